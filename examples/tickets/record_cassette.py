"""Record `cassette.jsonl`: the tickets example answered by a scripted model that answers correctly.

    .venv/bin/python examples/tickets/record_cassette.py            # rewrites examples/tickets/cassette.jsonl

The scripted model (`Oracle`) stands in for a capable real model: it reads each request as a model
would (never the dataset's targets), finds the identifier in the ticket, calls the tool that
identifier belongs to, and answers with the tool's result. It runs inside `SimModel` at
`error_rate=0`, so tokens and latency are modelled as for any simulated call, and every call is
recorded by `RecordingModel`. Replaying the cassette (`--model replay:examples/tickets/cassette.jsonl`)
gives real success figures offline; the test suite does exactly that.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness.bench import BenchConfig, run_bench  # noqa: E402
from benchmarks.tasks.dataset import designs as d  # noqa: E402
from patterns.replay import RecordingModel  # noqa: E402
from patterns.sim import Decider, Reply, Request, SimModel  # noqa: E402

IDS = {"get_invoice": (re.compile(r"\bC-\d+\b"), "customer_id"),
       "track_order": (re.compile(r"\bORD-\d+\b"), "order_id"),
       "get_account": (re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+\w"), "email")}
CATEGORY = {"get_invoice": "billing", "track_order": "shipping", "get_account": "account"}


def _say(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _lookup(text: str) -> tuple[str, dict[str, str]] | None:
    for name, (pattern, arg) in IDS.items():
        if m := pattern.search(text):
            return name, {arg: m.group()}
    return None


class Oracle:
    """A scripted model that does the tickets task right, step by step, from the request alone."""

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        first = request.first_user_text()
        found = _lookup(first)
        if first.startswith(d.EVALUATE):
            return _say("PASS")
        if first.startswith(d.CLASSIFY):
            return _say(CATEGORY[found[0]] if found else "billing")
        if first.startswith(d.SUBTASKS):
            return _say(json.dumps([first.split("Task:\n", 1)[-1].strip()]))
        if first.startswith(d.PLAN):
            return _say("1. Find the identifier in the ticket.\n2. Look it up with its tool.\n3. Quote the fact.")
        if first.startswith((d.COMPOSE, d.SYNTH)):
            found = first.rsplit(":\n", 1)[-1].strip().splitlines()[-1]
            fact = re.sub(r"^(\w+: )?(Answer: )?", "", found)
            return _say(f"{fact}\n\nAnswer: {fact}")
        results = request.last_tool_results()
        if results:
            return _say(f"Answer: {results[-1]['content']}")
        if first.startswith(d.USE) and (not found or found[0] not in request.tool_names()):
            return _say(d.NOT_NEEDED)  # the chain's step for another tool than this ticket needs
        if found and found[0] in request.tool_names():
            return Reply([{"type": "tool_use", "name": found[0], "input": found[1]}])
        return _say("Answer: I could not find an identifier in this ticket.")


class OracleRecorder:
    """Forks a simulated model running `Oracle` per trial, each fork recording to the cassette."""

    def __init__(self, path: Path) -> None:
        self.sim = SimModel(Oracle(), error_rate=0.0)
        self.path = path
        self.clock = self.sim.clock
        self.price_id = self.sim.price_id

    def fork(self, stream: str) -> Any:
        # no `policy` attribute: the bench keeps Oracle; `made_by` marks its replies as a script's, not a model's
        return RecordingModel(self.sim.fork(stream), self.path, made_by="oracle")


def record(cassette: Path, instances: int = 30) -> Any:
    cassette.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="wva-record-") as out:
        config = BenchConfig(tasks=(str(HERE / "tickets.toml"),), instances=instances, trials=1, model="sim-oracle",
                             out=Path(out), concurrency=1, workers=1)
        return asyncio.run(run_bench(config, model=OracleRecorder(cassette))).summary


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "cassette.jsonl"
    print(record(target)[["pattern", "success_rate"]].to_string(index=False))
    print(f"recorded {sum(1 for _ in target.open())} calls to {target}")
