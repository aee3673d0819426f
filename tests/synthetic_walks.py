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

__all__ = ["GRID", "PROCESSES", "Process", "grid_sample", "sample", "write_folder"]

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


# The settings the chapter's threshold is chosen from (benchmarks/criterion/drawability/__init__.py): each process
# over the range of its knobs and of the agent's slips; the open-ended ones from two tools and short walks (the
# easiest to cover by chance) to six tools and long ones.
GRID: tuple[tuple[str, bool, dict[str, Any]], ...] = (
    *(("retries", True, {"error": e}) for e in (0.02, 0.05, 0.1, 0.2)),
    *(("bounded_loop", True, {"most": m, "error": e}) for m in (2, 6, 15) for e in (0.05, 0.1)),
    *(("branching", True, {"shares": s}) for s in ((0.5, 0.5), (0.5, 0.3, 0.2), (0.8, 0.15, 0.05))),
    *(("routing", True, {"shares": s}) for s in ((0.25,) * 4, (0.2,) * 5, (0.4, 0.3, 0.15, 0.1, 0.05))),
    *(("parallel_map", True, {"error": e}) for e in (0.0, 0.1)),
    *(("optional_flags", True, {"error": e}) for e in (0.0, 0.05, 0.1)),
    *(("code_dispatch", True, {"error": e, "tools": t}) for e in (0.0, 0.05, 0.1) for t in (8, 12)),
    *(("open_ended", False, {"tools": t, "shortest": a, "longest": b})
      for t in (3, 4, 6) for a, b in ((2, 4), (2, 8))),
    *(("random_walk", False, {"tools": t}) for t in (2, 3, 4, 6)),
    *(("first_random", False, {"tools": t}) for t in (4, 8)),
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
