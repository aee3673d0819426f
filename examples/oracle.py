"""Record a cassette for ANY task file offline: a scripted model that answers right, from the dataset's `target`.

    .venv/bin/python examples/oracle.py path/to/task.toml                 # writes path/to/cassette.jsonl
    .venv/bin/python examples/oracle.py path/to/task.toml --out my.jsonl --instances 20
    .venv/bin/wva bench --tasks path/to/task.toml --trials 1 --instances 20 --model replay:my.jsonl --out r
    .venv/bin/python examples/oracle.py bugfix --instances 20          # a built-in family: writes bugfix.jsonl

On `sim` a task file gets no verdict (the simulator has no ground truth for it, so it is withheld:
`benchmarks.criterion.withheld`). This template stands in for a capable real model instead, the way
`examples/tickets/record_cassette.py` does for one task, for whatever task file it is given:

- it finds the row a request is about (the row's `input` quoted in the request) and knows its `target`;
- it does the work the way a careful model would: with `[routes]`, it classifies a row by its `category`
  and calls the tool its route's instructions name; with none, each offered tool whose arguments it can
  fill (a token shaped like the parameter's example, an email, a number from the last result) once, in
  the tools module's order; a chain step offered another tool says it is not needed;
- every answer is `Answer: <target>`; a judge or grader says PASS; a drawn `[workflow]` step that asks
  for one value gets the value the simulated policy would extract when right, and one that asks for a tool's
  name (a dispatch then calls it) gets the tool whose result, on the row, holds the target.

It runs inside `SimModel` at `error_rate=0`, so tokens and latency are modelled as for any simulated call,
and `RecordingModel` writes every call. Replaying the cassette gives, offline, each design's cost, steps
and latency with a model that is always right, and success that a design loses only through its own
mechanics (a fixed tool step that fails, a gate, a malformed plan). That is a measurement of the designs,
not of any real model: record a real one (`--model anthropic:<id>` with `RecordingModel`) for that.
The oracle reads `target`, which no policy of the simulator ever does: it is a recorder, not a policy.

A built-in family whose simulated model knows the truth (`bugfix`: the seeded bug, its file, line and original
text) needs no template: its own policy at `error_rate=0` is the oracle, making every true fix.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness.bench import BenchConfig, run_bench  # noqa: E402
from benchmarks.tasks.dataset import DatasetTask  # noqa: E402
from benchmarks.tasks.dataset import designs as d  # noqa: E402
from benchmarks.tasks.dataset.policy import shaped_argument, shaped_reply  # noqa: E402
from benchmarks.tasks.dataset.text import GRADER  # noqa: E402
from patterns.replay import RecordingModel  # noqa: E402
from patterns.sim import Decider, Reply, Request, SimModel  # noqa: E402

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _say(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _arguments(tool: dict[str, Any], text: str, last_result: str) -> dict[str, Any] | None:
    """The tool's arguments filled from the request, or None when one cannot be (the tool is not for this row)."""
    args: dict[str, Any] = {}
    for name, prop in ((tool.get("input_schema") or {}).get("properties") or {}).items():
        if prop.get("type") in ("number", "integer"):
            found = _NUMBER.search(last_result.replace(",", "")) or _NUMBER.search(text)
            if found is None:
                return None
            args[name] = int(float(found.group())) if prop["type"] == "integer" else float(found.group())
        elif (value := shaped_argument(name, prop.get("description", ""), text)) is not None:
            args[name] = value
        else:
            return None
    return args


class Oracle:
    """See the module docstring: right answers for the rows of one task file."""

    def __init__(self, task: DatasetTask) -> None:
        self.task = task
        self.rows = {" ".join(row.prompt.split()): row for row in task.rows}
        self.routes = dict(task.file.routes)

    def accepts(self, request: Request) -> bool:
        return True

    def row_of(self, request: Request) -> Any:
        said = " ".join(f"{request.system}\n{json.dumps(request.messages, ensure_ascii=False)}".split())
        found = [row for text, row in self.rows.items() if text in said or json.dumps(text)[1:-1] in said]
        return max(found, key=lambda row: len(row.prompt), default=None)

    def respond(self, request: Request, decide: Decider) -> Reply:
        said, row = request.instructions(), self.row_of(request)
        target = "" if row is None else str(row.data.get("target") or "")
        if "You are a strict, fair grader" in said or f"Please {GRADER}" in said or d.EVALUATE in said:
            return _say("PASS")
        if d.CLASSIFY in said:
            return _say(str((row.data["fields"].get("category") if row else None) or next(iter(self.routes), "")))
        if d.SUBTASKS in said:
            return _say(json.dumps([row.prompt if row else request.first_user_text()]))
        if d.PLAN in said and not request.tools:
            return _say("1. Find what the question names.\n2. Look it up with its tool.\n3. Answer from the result.")
        if not request.tools and (value := shaped_reply(said)) is not None:
            return _say(value)
        if not request.tools and row is not None and (name := self._tool_to_name(said, row, target)) is not None:
            return _say(name)  # a step whose reply names the tool code calls next: the one that gives the target
        if request.tools and (call := self._next_call(request, row)) is not None:
            return Reply([{"type": "tool_use", "name": call[0], "input": call[1]}])
        if d.USE in said and request.tools and not request.tool_uses():
            return _say(d.NOT_NEEDED)
        return _say(f"Answer: {target}")

    def _tool_to_name(self, said: str, row: Any, target: str) -> str | None:
        """When a step asks for a tool's name (two or more of the task's tools named in it), the one whose result,
        called on the row, holds the target: how an oracle picks the action a dispatch then calls."""
        tools = self.task.tools.tools if self.task.tools else {}
        named = [t for name, t in tools.items() if re.search(rf"\b{re.escape(name)}\b", said)]
        if len(named) < 2 or not target or "name" not in said.lower():
            return None
        for tool in named:
            args = _arguments(tool.param, row.prompt, "")
            try:
                if args is not None and target in str(tool.fn(**args)):
                    return str(tool.param["name"])
            except Exception:  # a tool that refuses this row is not its action
                continue
        return None

    def _next_call(self, request: Request, row: Any) -> tuple[str, dict[str, Any]] | None:
        """The next tool to call for this row (the route's tool, else each fillable tool once), or None."""
        if row is None:
            return None
        called = {use.get("name") for use in request.tool_uses()}
        category = str(row.data["fields"].get("category") or "").lower()
        named = self.routes.get(category, "")
        results = request.tool_results()
        last = str(results[-1]["content"]) if results else ""
        text = f"{row.prompt}\n{last}"
        for tool in request.tools:
            name = str(tool.get("name", ""))
            if name in called or (named and name not in named):
                continue
            if (args := _arguments(tool, text, last)) is not None:
                return name, args
        return None


class OracleRecorder:
    """Forks a simulated model running `Oracle` per trial, each fork recording to the cassette."""

    def __init__(self, oracle: Oracle, path: Path) -> None:
        self.sim = SimModel(oracle, error_rate=0.0)
        self.path = path
        self.clock = self.sim.clock
        self.price_id = self.sim.price_id

    def fork(self, stream: str) -> Any:
        # no `policy` attribute: the bench keeps Oracle; `made_by` marks its replies as a script's, not a model's
        return RecordingModel(self.sim.fork(stream), self.path, made_by="oracle")


def record(toml: Path, cassette: Path, instances: int | None = None) -> Any:
    """Record every pattern on the task file's first `instances` rows (all by default); returns the summary."""
    task = DatasetTask.from_file(toml)
    cassette.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="wva-oracle-") as out:
        config = BenchConfig(tasks=(str(toml),), instances=instances or len(task.rows), trials=1, model="sim-oracle",
                             out=Path(out), concurrency=1, workers=1)
        return asyncio.run(run_bench(config, model=OracleRecorder(Oracle(task), cassette))).summary


def record_family(spec: str, cassette: Path, instances: int | None = None) -> Any:
    """Record a built-in family's designs with its own policy, every decision right (the true fixes for bugfix)."""
    from benchmarks.tasks.registry import load_task

    family = load_task(spec)
    cassette.unlink(missing_ok=True)
    variants = [name[len("design_"):].replace("__", ":") for name in dir(family)
                if name.startswith("design_") and "__" in name[len("design_"):]]  # chain__survey: chain:survey
    designs = ("agent", family.natural_workflow, *variants)
    with tempfile.TemporaryDirectory(prefix="wva-oracle-") as out:
        config = BenchConfig(tasks=(spec,), patterns=designs, instances=instances or 20, trials=1, model="sim-oracle",
                             out=Path(out), concurrency=1, workers=1)
        return asyncio.run(run_bench(config, model=OracleRecorder(family.policy(), cassette))).summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record a cassette for a task file with a scripted oracle.")
    parser.add_argument("toml", type=Path, help="the task file, or a built-in family that knows its truth (bugfix)")
    parser.add_argument("--out", type=Path, default=None, help="the cassette (default: cassette.jsonl beside it)")
    parser.add_argument("--instances", type=int, default=None, help="the first N rows (default: all)")
    args = parser.parse_args(argv)
    builtin = args.toml.suffix != ".toml"
    target = args.out or (Path(f"{args.toml}.jsonl") if builtin else args.toml.resolve().parent / "cassette.jsonl")
    try:
        summary = (record_family(str(args.toml), target, args.instances) if builtin
                   else record(args.toml, target, args.instances))
    except ValueError as exc:
        print(f"oracle: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(summary[["pattern", "success_rate", "steps_mean"]].to_string(index=False))
    print(f"recorded {sum(1 for _ in target.open())} calls to {target}; replay: --model replay:{target} --trials 1")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
