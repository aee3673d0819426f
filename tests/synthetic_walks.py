"""Synthetic agent walks from five processes whose answer is known, for drawability to be tested on.

Each process generates, per instance, one walk per trial; an instance's trials share what the input
decides (its path, its loop count, its branch, its transition table), so trials are correlated within
instances the way an agent's are. A walk is a tuple of rounds, each a frozenset of tool names.

- `retries`: one fixed path (fetch → parse → save), each call failing now and then and retried at
  once (a round repeated); how error-prone an instance is varies by input. Drawable: "each step,
  retried at most a few times".
- `bounded_loop`: plan, then `read` k times (k from 1 to 6, set by the input; a trial re-reads once more
  now and then), then summarise. Drawable: "read, at most 7 times".
- `branching`: classify, then one of three handlers chosen by the input (shares 0.5, 0.3, 0.2), then
  reply; now and then a handler's call is retried. Drawable once the three branches have been seen.
- `routing`: the input decides, before any tool is called, which of four to six lookups to make (shares
  0.3, 0.25, 0.2, 0.15, 0.1 by default), then reply; now and then a lookup is retried. Drawable: a router
  among five ("an order question is tracked, a billing one invoiced"), once the routes have been seen.
- `open_ended`: five tools, the next one depending on what the last one found: each instance has its own
  first-tool distribution and transition table (Dirichlet(0.3) rows), and a trial walks 3 to 6 rounds.
  Not drawable: the next step cannot be written down before the input is seen.

`write_folder` writes walks as a results folder (runs.csv with the agent's runs and a workflow's, and
events.jsonl with the agent's model and tool calls) that `wva criterion` can read; its task label is no
built-in family.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.criterion.drawability.walks import Walk
from benchmarks.harness.trial import RUN_COLUMNS

Walks = dict[str, list[Walk]]


def _one(*names: str) -> frozenset[str]:
    return frozenset(names)


def _retried(step: frozenset[str], p: float, rng: np.random.Generator, most: int = 3) -> list[frozenset[str]]:
    tries = 1
    while tries <= most and rng.random() < p:
        tries += 1
    return [step] * tries


def retries(rng: np.random.Generator, instances: int, trials: int, error: float = 0.1) -> Walks:
    out: Walks = {}
    for i in range(instances):
        p = rng.beta(1.0, (1 - error) / error)  # mean `error`; some inputs are much harder than others
        out[f"retries-{i:04d}"] = [tuple(r for step in ("fetch", "parse", "save")
                                         for r in _retried(_one(step), p, rng)) for _ in range(trials)]
    return out


def bounded_loop(rng: np.random.Generator, instances: int, trials: int, most: int = 6) -> Walks:
    out: Walks = {}
    for i in range(instances):
        k = int(rng.integers(1, most + 1))
        out[f"loop-{i:04d}"] = [(_one("plan"), *[_one("read")] * (k + int(rng.random() < 0.1)), _one("summarise"))
                                for _ in range(trials)]
    return out


def branching(rng: np.random.Generator, instances: int, trials: int, shares: tuple[float, ...] = (0.5, 0.3, 0.2),
              error: float = 0.05) -> Walks:
    handlers = ("refund", "track", "reset", "escalate", "upgrade")[: len(shares)]
    out: Walks = {}
    for i in range(instances):
        handler = _one(handlers[int(rng.choice(len(shares), p=shares))])
        out[f"branch-{i:04d}"] = [(_one("classify"), *_retried(handler, error, rng), _one("reply"))
                                  for _ in range(trials)]
    return out


def routing(rng: np.random.Generator, instances: int, trials: int,
            shares: tuple[float, ...] = (0.3, 0.25, 0.2, 0.15, 0.1), error: float = 0.05) -> Walks:
    """The input decides, before any tool is called, which of several lookups to make (a ticket about an order
    is tracked, one about a bill is invoiced); then the reply. A router among five."""
    lookups = ("get_account", "track_order", "get_invoice", "search_kb", "get_plan", "get_device")[: len(shares)]
    out: Walks = {}
    for i in range(instances):
        lookup = _one(lookups[int(rng.choice(len(shares), p=shares))])
        out[f"route-{i:04d}"] = [(*_retried(lookup, error, rng), _one("reply")) for _ in range(trials)]
    return out


def open_ended(rng: np.random.Generator, instances: int, trials: int, tools: int = 5, shortest: int = 3,
               longest: int = 6, concentration: float = 0.3) -> Walks:
    names = [_one(f"tool_{k}") for k in range(tools)]
    out: Walks = {}
    for i in range(instances):
        first = np.cumsum(rng.dirichlet([concentration] * tools))
        table = np.cumsum(rng.dirichlet([concentration] * tools, size=tools), axis=1)
        walks = []
        for _ in range(trials):  # inverse-CDF draws (rng.choice per step is slow)
            length, draws = int(rng.integers(shortest, longest + 1)), rng.random(longest)
            at = min(int(np.searchsorted(first, draws[0], side="right")), tools - 1)
            walk = [names[at]]
            for u in draws[1:length]:
                at = min(int(np.searchsorted(table[at], u, side="right")), tools - 1)
                walk.append(names[at])
            walks.append(tuple(walk))
        out[f"open-{i:04d}"] = walks
    return out


@dataclass(frozen=True)
class Process:
    name: str
    drawable: bool
    generate: Callable[[np.random.Generator, int, int], Walks]


PROCESSES = (Process("retries", True, retries), Process("bounded_loop", True, bounded_loop),
             Process("branching", True, branching), Process("routing", True, routing),
             Process("open_ended", False, open_ended))


def sample(process: Process, instances: int, trials: int = 3, seed: int = 0) -> Walks:
    return process.generate(np.random.default_rng(seed), instances, trials)


# The settings the chapter's threshold was chosen from (benchmarks/criterion/drawability/__init__.py): each process
# over the range of its knobs, the open-ended one from three tools and short walks (the easiest to cover
# by chance) to six tools and long ones.
GRID: tuple[tuple[str, bool, dict[str, Any]], ...] = (
    *(("retries", True, {"error": e}) for e in (0.02, 0.05, 0.1, 0.2, 0.3)),
    *(("bounded_loop", True, {"most": m}) for m in (2, 4, 6, 10, 15)),
    *(("branching", True, {"shares": s}) for s in ((0.5, 0.5), (0.5, 0.3, 0.2), (0.34, 0.33, 0.33), (0.8, 0.15, 0.05))),
    *(("routing", True, {"shares": s}) for s in ((0.25,) * 4, (0.2,) * 5, (0.3, 0.25, 0.2, 0.15, 0.1),
                                                  (0.4, 0.3, 0.15, 0.1, 0.05))),
    *(("open_ended", False, {"tools": t, "shortest": a, "longest": b})
      for t in (3, 4, 5, 6) for a, b in ((2, 4), (3, 6), (2, 8))),
)


def grid_sample(name: str, settings: dict[str, Any], instances: int = 60, trials: int = 3, seed: int = 0) -> Walks:
    generate: Callable[..., Walks] = globals()[name]
    return generate(np.random.default_rng(seed), instances, trials, **settings)


def _events(run_id: str, walk: Walk) -> list[dict[str, object]]:
    """The events an agent run leaves: a model call per round, then its tool calls; a last model call answers."""
    rows: list[dict[str, object]] = []
    for rnd in walk:
        rows.append({"run_id": run_id, "kind": "model_call", "name": "agent"})
        rows += [{"run_id": run_id, "kind": "tool_call", "name": tool, "gen_ai.tool.name": tool}
                 for tool in sorted(rnd)]
    rows.append({"run_id": run_id, "kind": "model_call", "name": "agent"})
    return rows


def write_folder(out: Path, walks_by_task: dict[str, Walks], seed: int = 0) -> Path:
    """A results folder: per task, the agent's runs (their walks in events.jsonl) and a `chain` workflow's
    runs on the same instances (3 model calls each, no tools), all successful at a cost of 0.01."""
    rows, events = [], []
    for task, walks in walks_by_task.items():
        for instance, ws in walks.items():
            for trial, walk in enumerate(ws):
                for pattern in ("agent", "chain"):
                    run_id = f"{task}-{pattern}-{instance}-{trial}"
                    steps = len(walk) + 1 if pattern == "agent" else 3
                    rows.append({"run_id": run_id, "pattern": pattern, "task": task, "instance": instance,
                                 "trial": trial, "model": "synthetic", "seed": seed, "success": True, "score": 1.0,
                                 "terminal": "completed", "steps": steps, "tool_calls": sum(map(len, walk)),
                                 "cost_usd": 0.01, "latency_s": float(steps)})
                    if pattern == "agent":
                        events += _events(run_id, walk)
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).reindex(columns=RUN_COLUMNS, fill_value=0).to_csv(out / "runs.csv", index=False)
    (out / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (out / "manifest.json").write_text(json.dumps({"model": "synthetic", "seed": seed, "tasks": list(walks_by_task)}))
    return out
