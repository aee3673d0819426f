"""The drawn comparator, run: each task's graph drawn from the agent's walks on a few instances, compiled
into a workflow and run on the other instances, so the criterion can answer "if we froze what the agent
did on ten examples into a workflow, would it be as good and cheaper on the rest?"

    python -m benchmarks.studies.run_drawn DIR [--quiet]      (`wva bench` runs it too, unless --no-drawn)

Running a model is the harness's job and learning a drawing the criterion's, and the harness must not
import the criterion: this study joins them, after a bench, in three steps.

1. **Draw.** For each task of DIR/runs.csv whose agent walked on at least D + 2 instances, the graph is
   learned from the agent's walks on a seeded drawing set of D instances (`drawability.drawn_graph`, the
   folder's seed: the drawing the report pictures), the walks drawability reads: the repeats phase's (the
   agent at 3 trials on the first instances, `DIR/repeats/`) when it ran, else DIR's own. One trial per
   instance cannot tell the agent's slips from its process (a step it leaves one time in five reads as a
   rule), so a graph drawn from it can end a loop the agent keeps: on `pipeline`, the self-check after a
   VALID line (the drawn workflow 66% against the agent's 96%). It is written to
   `DIR/drawn/<task>.json`, with what it was drawn from (`about`: the task's spec, the drawing instances,
   and the testing instances: those the agent ran that the drawing did not see).
2. **Run.** An ordinary bench into `DIR/drawn/`: one pattern, `drawn`; per task a `DrawnTask` (a family
   whose one design is the drawing compiled with the agent's own tools, system prompt and first turn,
   `drawability.compile_drawing`, and whose instances are the testing instances); DIR's model,
   seed, instance count, trials, request options, limits, retry policy and grader. Its rows carry the
   task's own label and instance ids, so they pair with the agent's on the testing instances.
3. **Read.** `wva criterion DIR` joins `DIR/drawn/runs.csv` to the task's rows as the pattern `drawn`
   (`--comparator drawn` for its verdict; `criterion_pairs.csv` has its row either way), but only when its
   drawing is the one DIR's walks give now: a drawn run of an older bench is never read as this one's.

**Resumable.** A second call finds nothing to do when `DIR/drawn/` holds every trial, resumes it when some
are missing, and runs it again from scratch when its drawings changed (DIR was run again: each
`DrawnTask` spec names its drawing's digest, so the harness sees other settings) or the code did: trials
of a drawing that no longer exists are worth nothing.

**The same model, the same rules.** The drawn workflow's requests are the agent's requests with fewer
tools offered and a `tool_choice`; a `SimModel` policy decides from the request alone, blind to the
pattern, and honours `tool_choice` as the API does. Not run with a `replay:` model (a cassette holds only
the requests it recorded); always in local processes (a drawing is a file on this machine).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, unquote

from benchmarks.criterion.drawability import D, compile_drawing, drawing_file, drawn_graph, from_json, to_json
from benchmarks.criterion.drawability.walks import rounds_by_run, walks_of_runs
from benchmarks.criterion.families import task_specs
from benchmarks.criterion.read import EventLines, read_manifest
from benchmarks.criterion.repeats_runs import repeated_walks
from benchmarks.harness.atomic import write_text_atomic
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.outputs import EVENTS, read_runs
from benchmarks.names import DRAWN, PATTERNS
from benchmarks.tasks.base import Instance, Param
from benchmarks.tasks.registry import load_task
from patterns.limits import Limits
from patterns.options import RequestOptions
from patterns.retry import RetryPolicy
from patterns.specs import provider_of

SPEC = "benchmarks.studies.drawn:DrawnTask"


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class DrawnTask:
    """A task family whose one design is a drawing (`DIR/drawn/<task>.json`) compiled into a workflow, on
    the task's instances minus those it was drawn from. Everything else (its label, environment, grader,
    policy) is the task's own, so its rows are the task's rows with the pattern `drawn`."""

    name = DRAWN
    description = "the graph drawn from the agent's walks, run on the instances it was not drawn from"
    PARAMS: ClassVar[dict[str, Param]] = {"drawing": Param("", str, "the drawing's file (%-quoted path)"),
                                          "digest": Param("", str, "the drawing's digest: a changed file is refused")}

    def __init__(self, drawing: str = "", digest: str = "") -> None:
        path = Path(unquote(drawing))
        try:
            text = path.read_text(encoding="utf-8")
            about = json.loads(text)["about"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"drawn task: {path} is not a drawing written by benchmarks.studies.drawn "
                             f"({type(exc).__name__})") from None
        if digest and digest_of(text) != digest:
            raise ValueError(f"drawn task: {path} changed since this sweep began (run the study again)")
        self.drawing = from_json(text)
        self.inner = load_task(str(about["spec"]))
        self.drawn_from = frozenset(map(str, about["drawing_instances"]))
        self.tested = frozenset(map(str, about.get("testing_instances") or ())) or None  # None: every other one
        self.pool = int(about.get("instances") or 0) or None  # the task's instances they are among (None: n)
        self.name, self.PARAMS, self.settings = self.inner.name, self.inner.PARAMS, self.inner.settings

    def __getattr__(self, name: str) -> Any:  # what the harness may ask of a family (agrade, model_graded...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def instances(self, n: int, seed: int) -> list[Instance]:
        """The first `n` of the task's instances the agent ran and the drawing did not see (a paid run spends
        nothing on instances no agent row pairs with); the drawn bench asks for exactly as many as there are."""
        kept = [i for i in self.inner.instances(self.pool or n, seed)
                if i.id not in self.drawn_from and (self.tested is None or i.id in self.tested)]
        return kept[:n]

    def environment(self, instance: Instance, workdir: Path) -> Any:
        return self.inner.environment(instance, workdir)

    def design(self, pattern: str, env: Any) -> Any:
        if pattern != DRAWN:
            raise ValueError(f"the drawn task designs only {DRAWN!r}, not {pattern!r}")
        return compile_drawing(self.drawing, self.inner.design("agent", env))

    def design_drawn(self, env: Any) -> Any:
        return self.design(DRAWN, env)

    def grade(self, instance: Instance, env: Any, output: str) -> float:
        return float(self.inner.grade(instance, env, output))

    def policy(self) -> Any:
        return self.inner.policy()

    def not_offered(self) -> dict[str, str]:
        return {p: f"the drawn task runs only {DRAWN}" for p in PATTERNS}


@dataclass(frozen=True)
class Drawings:
    specs: tuple[str, ...]  # a DrawnTask spec per drawn task
    counts: tuple[tuple[str, int], ...]  # (task label, its testing instances) per drawn task
    skipped: tuple[str, ...]  # a line per task that was not drawn, saying why


def draw_tasks(out: Path, seed: int) -> Drawings:
    """Step 1: learn and write each task's drawing into `out/drawn/` (see the module docstring)."""
    runs = read_runs(out, ["run_id", "pattern", "task", "instance", "trial"])
    agents = runs[runs["pattern"] == "agent"].sort_values(["task", "instance", "trial"], kind="stable")
    rounds = rounds_by_run(EventLines(out / EVENTS).of_runs(set(agents["run_id"].astype(str))))
    manifest = read_manifest(out)
    specs, repeated = task_specs(manifest), repeated_walks(out, manifest)
    made, counts, skipped = [], [], []
    for task in dict.fromkeys(runs["task"].astype(str)):
        walks = repeated.get(task) or walks_of_runs(agents[agents["task"] == task], rounds)
        if task not in specs or sum(1 for w in walks.values() if w) < D + 2 or not rounds:
            why = "its family cannot be rebuilt" if task not in specs else \
                "no walk was recorded" if not rounds else f"fewer than {D + 2} instances with agent walks"
            skipped.append(f"{task}: not drawn ({why})")
            continue
        chosen, drawing = drawn_graph(walks, D, seed)
        path = (out / DRAWN / drawing_file(task)).resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        # tested on the instances the agent ran and the drawing did not see: only those pair with the agent's rows
        ran = set(agents.loc[agents["task"] == task, "instance"].astype(str))
        tested = sorted(ran - set(map(str, chosen)))
        text = to_json(drawing, {"task": task, "spec": specs[task], "d": D, "seed": seed, "drawing_instances": chosen,
                                 "testing_instances": tested, "instances": len(ran)})
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # a folder with nothing to do is not touched
            write_text_atomic(path, text)
        made.append(f"{SPEC}:drawing={quote(str(path), safe='')},digest={digest_of(text)}")
        counts.append((task, len(tested)))
    return Drawings(tuple(made), tuple(counts), tuple(skipped))


def config_of(out: Path, main: BenchConfig | None = None) -> BenchConfig | None:
    """The drawn bench's settings: the main bench's (given, or read from DIR's manifest); None for a replay."""
    if main is None:
        m = read_manifest(out)
        if not m.get("model"):
            raise ValueError(f"{out} has no manifest.json naming its model: run 'wva bench --out {out}' first")
        main = BenchConfig(model=m["model"], seed=int(m.get("seed", 0)), instances=int(m["instances"]),
                           trials=int(m["trials"]), limits=Limits(**m.get("limits", {})),
                           retry=RetryPolicy(**m.get("retry", {})), workers=None,
                           options=RequestOptions(prompt_cache=m.get("prompt_cache", "on") == "on",
                                                  max_tokens=m.get("max_tokens", RequestOptions().max_tokens)),
                           grader_model=m.get("grader_model"))
    if provider_of(main.model) == "replay":
        return None
    return replace(main, patterns=(DRAWN,), out=out / DRAWN, resume=False, overwrite=False, allow_mixed=False,
                   executor="local", address=None)


def run_drawn(out: Path, run: Callable[..., Any], main: BenchConfig | None = None, **hooks: Callable[..., Any]) -> \
        tuple[Any, list[str]]:
    """`arun_drawn` from synchronous code."""
    return asyncio.run(arun_drawn(out, run, main, **hooks))


async def arun_drawn(out: Path, run: Callable[..., Any], main: BenchConfig | None = None,
                     **hooks: Callable[..., Any]) -> tuple[Any, list[str]]:
    """Steps 1 and 2 for a bench's folder: (the drawn bench's outcome, or None when nothing was drawn or the
    model is a replay; lines to tell the user). `run` is the harness's `run_bench`, given by the caller (a
    command already holds it: passing it keeps this study off the harness's longest chain of imports);
    `hooks`: its on_start, on_trial, on_warning."""
    config = config_of(out, main)
    if config is None:
        return None, ["drawn: not run (a replay cassette holds only the requests it recorded)"]
    drawings = draw_tasks(out, config.seed)
    if not drawings.specs:
        return None, [*drawings.skipped]
    # each task runs exactly its testing instances: fewer than the main bench's, by design, never "short"
    config = replace(config, tasks=drawings.specs, instances_by_task=drawings.counts)
    for attempt in ({}, {"resume": True}, {"overwrite": True}):  # as it is; its missing trials; from scratch
        try:
            return await run(replace(config, **attempt), **hooks), [*drawings.skipped]
        except SweepRefused:
            if "overwrite" in attempt:
                raise
    raise AssertionError("unreachable")
