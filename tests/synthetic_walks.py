"""Synthetic agent walks from processes whose answer is known, for drawability to be tested on.

The processes are those of the `walks` task family (`benchmarks/tasks/walks/processes.py`: drawable — retries,
bounded_loop, branching, routing, parallel_map, optional_flags, code_dispatch; not drawable — open_ended,
random_walk, first_random). Here they are simulated directly, without a model, many folders a second: each
trial's calls become the events a real run leaves (a model call per round, a tool call with its arguments and
JSON result, the input's fields), read back by the same code that reads a results folder
(`walks.rounds_by_run`), so a synthetic walk has exactly the fields a real one would. An instance's trials share
what the case decides (its path, its loop count, its branch, its transition table), so trials are correlated
within instances the way an agent's are; slips (a wrong key, one read too many, a wrong place) come at `error`.

`write_folder` writes walks as a results folder (runs.csv with the agent's runs and a workflow's, and
events.jsonl with the agent's calls) that `wva criterion` can read; its task label is no built-in family.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.drawability.walks import Walk, rounds_by_run, walk_of
from benchmarks.harness.trial import RUN_COLUMNS
from benchmarks.tasks.walks.processes import NAMES, Process, make, simulate
from patterns.fields import fields

__all__ = ["COVERED", "GRID", "PROCESSES", "SELECT", "TABLE", "TEST", "Process", "grid_sample", "sample",
           "write_folder"]

Walks = dict[str, list[Walk]]
ERROR = 0.05  # the slips of the processes' default settings

PROCESSES = tuple(make(name) for name in NAMES)


def trial_events(p: Process, case: dict[str, Any], rng: random.Random, error: float) -> list[dict[str, Any]]:
    """One trial's events: the input's fields, then per call a model call and the tool call."""
    events: list[dict[str, Any]] = [{"run_id": "r", "kind": "input", "wva.input.fields": fields(json.dumps(case))}]
    for calls in simulate(p, case, rng, error):
        events.append({"run_id": "r", "kind": "model_call"})
        events += [{"run_id": "r", "kind": "tool_call", "gen_ai.tool.name": tool, "is_error": failed,
                    "gen_ai.tool.call.arguments": json.dumps(args),
                    "gen_ai.tool.call.result": result if isinstance(result, str) else json.dumps(result)}
                   for tool, args, result, failed in calls]
    return events


def sample(process: Process, instances: int, trials: int = 3, seed: int = 0, error: float = ERROR) -> Walks:
    """instance -> its trials' walks, for `instances` cases of the process."""
    out: Walks = {}
    for i in range(instances):
        case = process.case(i, random.Random(f"{process.name}:{seed}:{i}"))
        out[f"{process.name}-{i:04d}"] = [
            walk_of(rounds_by_run(trial_events(process, case, random.Random(f"{seed}:{i}:{t}"), error))["r"])
            for t in range(trials)]
    return out


# The known-truth table (benchmarks/tasks/walks/known.py): each process over walk lengths (`shortest`-`longest`
# calls, polls, steps or hops) where it has one. The threshold is chosen on SELECT (lengths 1-8, error rates 0, 0.1,
# 0.2, wrong-tool slips) and tested on TEST (other lengths, 2-4 and 10-12, and other error rates, 0.05 and 0.15).
TABLE: tuple[tuple[str, bool, dict[str, Any], bool], ...] = (  # (process, drawable, settings, has a length)
    ("code_dispatch", True, {"tools": 12}, True), ("poll", True, {}, True), ("pipeline", True, {}, True),
    ("chaining", True, {}, True), ("lookup_json", True, {}, False), ("lookup_prose", True, {}, False),
    ("orchestrator", True, {}, False), ("retry", True, {}, False), ("random_walk", False, {"tools": 2}, True),
    ("first_random", False, {"tools": 8}, False), ("prose_trail", False, {"tools": 12}, True),
)


def table_grid(lengths: tuple[tuple[int, int], ...], errors: tuple[float, ...]) -> \
        tuple[tuple[str, bool, dict[str, Any]], ...]:
    out = []
    for name, drawable, settings, has_length in TABLE:
        # a trail of one place is one routed choice (routing, drawn): a trail has at least two
        sizes = [(max(lo, 2), max(hi, 2)) if name == "prose_trail" else (lo, hi) for lo, hi in lengths]
        for lo, hi in dict.fromkeys(sizes) if has_length else ((0, 0),):
            sized = {**settings, **({"shortest": lo, "longest": hi} if has_length else {})}
            out += [(name, drawable, {**sized, "error": e}) for e in errors]
    return tuple(out)


SELECT = table_grid(((1, 1), (1, 3), (4, 8)), (0.0, 0.1, 0.2))
TEST = table_grid(((2, 4), (10, 12)), (0.05, 0.15))
GRID = SELECT
# Where the interval's coverage is checked: truths strictly inside (0, 1), drawable and not, short and long.
COVERED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("lookup_prose", {"error": 0.1}), ("retry", {"error": 0.2}),
    ("pipeline", {"shortest": 3, "longest": 3, "error": 0.2}),
    ("code_dispatch", {"tools": 12, "shortest": 10, "longest": 12, "error": 0.1}),
    ("random_walk", {"tools": 2, "shortest": 2, "longest": 4}),
    ("prose_trail", {"tools": 12, "shortest": 2, "longest": 4, "error": 0.2}),
)


def grid_sample(name: str, settings: dict[str, Any], instances: int = 60, trials: int = 3, seed: int = 0) -> Walks:
    kept = {k: v for k, v in settings.items() if k != "error"}
    return sample(make(name, **kept), instances, trials, seed, settings.get("error", ERROR))


def _events(run_id: str, walk: Walk) -> list[dict[str, Any]]:
    """The events an agent run leaves (a model call per round, then its tool calls; a last model call answers),
    each tool's result the JSON of its fields."""
    rows: list[dict[str, Any]] = []
    if walk.inputs:
        rows.append({"run_id": run_id, "kind": "input",
                     "wva.input.fields": {k.removeprefix("input."): v for k, v in walk.inputs}})
    for step in walk.steps:
        rows.append({"run_id": run_id, "kind": "model_call", "name": "agent"})
        mine = dict(step.fields)
        for tool in sorted(step.label):
            result = {k[len(tool) + 1:]: v for k, v in mine.items()
                      if k.startswith(tool + ".") and k != f"{tool}.is_error"}
            rows.append({"run_id": run_id, "kind": "tool_call", "name": tool, "gen_ai.tool.name": tool,
                         "is_error": mine.get(f"{tool}.is_error") == "true",
                         "gen_ai.tool.call.result": json.dumps(result) if result else ""})
    rows.append({"run_id": run_id, "kind": "model_call", "name": "agent"})
    return rows


def write_folder(out: Path, walks_by_task: dict[str, Walks], seed: int = 0) -> Path:
    """A results folder: per task, the agent's runs (their walks in events.jsonl) and a `chain` workflow's
    runs on the same instances (3 model calls each, no tools), all successful at a cost of 0.01."""
    rows, events = [], []
    for task, walks in walks_by_task.items():
        for instance, ws in walks.items():
            for trial, walk in enumerate(ws):
                walk = walk if isinstance(walk, Walk) else walk_of(walk)
                for pattern in ("agent", "chain"):
                    run_id = f"{task}-{pattern}-{instance}-{trial}"
                    steps = len(walk) + 1 if pattern == "agent" else 3
                    rows.append({"run_id": run_id, "pattern": pattern, "task": task, "instance": instance,
                                 "trial": trial, "model": "synthetic", "seed": seed, "success": True, "score": 1.0,
                                 "terminal": "completed", "steps": steps,
                                 "tool_calls": sum(len(s.label) for s in walk.steps),
                                 "cost_usd": 0.01, "latency_s": float(steps)})
                    if pattern == "agent":
                        events += _events(run_id, walk)
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).reindex(columns=RUN_COLUMNS, fill_value=0).to_csv(out / "runs.csv", index=False)
    (out / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (out / "manifest.json").write_text(json.dumps({"model": "synthetic", "seed": seed, "tasks": list(walks_by_task)}))
    return out
