"""Results folders whose truth is known: many tasks, seven patterns, instance difficulty shared by every
pattern, trials of an instance correlated — the data a verdict must be right about as often as it claims.

Each trial of pattern p on instance i succeeds with chance sigmoid(b_p + u_i + e_pi): u_i is the
instance's difficulty, shared by all patterns (sd `difficulty_sd` on the logit scale), e_pi how hard the
instance is for that pattern in particular (sd `pattern_sd`), so trials of one instance agree far more
than independent draws would. b_p is solved so that pattern p's *marginal* success (over instances) is
exactly the scenario's figure. Cost per trial is c_p × an instance factor × a trial factor (log-normal,
mean 1). The runs are written in the documented runs.csv schema with an empty events.jsonl and a
manifest naming the tasks, which are no built-in family (so the comparator is selected).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness.trial import RUN_COLUMNS
from benchmarks.tasks.base import PATTERNS

WORKFLOWS = [p for p in PATTERNS if p != "agent"]
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(60)


@dataclass(frozen=True)
class Scenario:
    tasks: int
    instances: int
    success: dict[str, float]  # every pattern's true marginal success
    cost: dict[str, float] = field(default_factory=dict)  # true mean cost per trial (default 0.01)
    trials: int = 3
    difficulty_sd: float = 1.5
    pattern_sd: float = 0.7
    cost_sd: float = 0.3


def uniform(p: float, **agent: float) -> dict[str, float]:
    """Every workflow at p, the agent at agent['agent'] (or p)."""
    return {w: p for w in WORKFLOWS} | {"agent": agent.get("agent", p)}


def offset_for(p: float, sd: float) -> float:
    """b with E[sigmoid(b + Z sd)] = p, Z standard normal (Gauss–Hermite quadrature, bisection)."""
    lo, hi = -20.0, 20.0
    for _ in range(80):
        mid = (lo + hi) / 2
        mean = float((_WEIGHTS / (1 + np.exp(-(mid + _NODES * sd)))).sum() / _WEIGHTS.sum())
        lo, hi = (mid, hi) if mean < p else (lo, mid)
    return (lo + hi) / 2


def task_runs(s: Scenario, task: str, rng: np.random.Generator) -> pd.DataFrame:
    sd = math.hypot(s.difficulty_sd, s.pattern_sd)
    u = rng.normal(0, s.difficulty_sd, s.instances)
    inst_cost = rng.lognormal(-s.cost_sd ** 2 / 2, s.cost_sd, s.instances)
    inst = np.repeat(np.arange(s.instances), s.trials)
    trial = np.tile(np.arange(s.trials), s.instances)
    frames = []
    for p, rate in s.success.items():
        chance = 1 / (1 + np.exp(-(offset_for(rate, sd) + u + rng.normal(0, s.pattern_sd, s.instances))))
        wins = rng.random(inst.size) < chance[inst]
        costs = s.cost.get(p, 0.01) * inst_cost[inst] * rng.lognormal(-0.02, 0.2, inst.size)
        steps = rng.integers(2, 7, inst.size) if p == "agent" else np.full(inst.size, 3)
        frames.append(pd.DataFrame({
            "run_id": [f"{task}-{p}-{i}-{t}" for i, t in zip(inst, trial, strict=True)], "pattern": p, "task": task,
            "instance": [f"{task}-{i:04d}" for i in inst], "trial": trial, "model": "synthetic", "seed": 0,
            "success": wins, "score": wins.astype(float), "terminal": "completed", "steps": steps,
            "cost_usd": costs, "latency_s": steps.astype(float)}))
    return pd.concat(frames, ignore_index=True)


def write_scenario(out: Path, s: Scenario, seed: int = 0) -> Path:
    """A results folder with `s.tasks` independent tasks drawn from the scenario."""
    rng = np.random.default_rng(seed)
    tasks = [f"synth-{k:03d}" for k in range(s.tasks)]
    runs = pd.concat([task_runs(s, task, rng) for task in tasks], ignore_index=True)
    out.mkdir(parents=True, exist_ok=True)
    runs.reindex(columns=RUN_COLUMNS, fill_value=0).to_csv(out / "runs.csv", index=False)
    (out / "events.jsonl").write_text("")
    (out / "manifest.json").write_text(json.dumps({"model": "synthetic", "seed": seed, "tasks": tasks}))
    return out


def draw_arrays(s: Scenario, reps: int, rng: np.random.Generator,
                order: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`reps` independent tasks drawn as the criterion sees them: per-instance means over the trials of
    success and cost, arrays `(reps, instances, patterns)` in `order` (default: the agent, then the
    workflows) — the same model as `task_runs`, without writing a folder."""
    order = order or ["agent", *[p for p in s.success if p != "agent"]]
    sd = math.hypot(s.difficulty_sd, s.pattern_sd)
    shape = (reps, s.instances)
    u = rng.normal(0, s.difficulty_sd, shape)
    inst_cost = rng.lognormal(-s.cost_sd ** 2 / 2, s.cost_sd, shape)
    success = np.empty((*shape, len(order)))
    cost = np.empty((*shape, len(order)))
    for k, p in enumerate(order):
        chance = 1 / (1 + np.exp(-(offset_for(s.success[p], sd) + u + rng.normal(0, s.pattern_sd, shape))))
        success[..., k] = rng.binomial(s.trials, chance) / s.trials
        trial = rng.lognormal(-0.02, 0.2, (*shape, s.trials)).mean(axis=-1)
        cost[..., k] = s.cost.get(p, 0.01) * inst_cost * trial
    return success, cost


def simulated_verdicts(s: Scenario, reps: int, seed: int, comparator: str | None = None, margin: float = 0.05,
                       cost_margin: float = 0.10, chunk: int = 250) -> np.ndarray:
    """The rule's verdict on `reps` tasks drawn from the scenario, vectorised: the criterion's own interval
    and rule code on the arrays it would build from a folder (cost intervals by the delta method, max-T
    with 2,000 draws per task), against the selected best workflow or a named `comparator`."""
    from benchmarks.criterion.bounds import bounds
    from benchmarks.criterion.rule import decide, verdicts

    rng = np.random.default_rng(seed)
    order = ["agent", *[p for p in s.success if p != "agent"]]
    if comparator is not None:
        order = ["agent", comparator]
    out = []
    for start in range(0, reps, chunk):
        success, cost = draw_arrays(s, min(chunk, reps - start), rng)
        keep = [0, *[1 + [p for p in s.success if p != "agent"].index(w) for w in order[1:]]]
        b = bounds(success[..., keep], cost[..., keep], seed=seed + start, method="delta", draws=2000)
        out.append(verdicts(decide(b, margin, cost_margin)[0]))
    return np.concatenate(out)


def sequential_verdicts(s: Scenario, reps: int, seed: int, batch: int, spending: str = "obf",
                        comparator: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(verdict, look it stopped at) for `reps` tasks of `s.instances` instances at most, run in batches
    under the group-sequential design: the criterion's own code at each look's levels, vectorised."""
    from benchmarks.criterion.bounds import bounds
    from benchmarks.criterion.rule import decide, verdicts
    from benchmarks.criterion.sequential import design

    d = design(batch, s.instances, spending)
    order = [p for p in s.success if p != "agent"]
    keep = [0, *([1 + order.index(comparator)] if comparator else range(1, len(order) + 1))]
    success, cost = draw_arrays(s, reps, np.random.default_rng(seed))
    success, cost = success[..., keep], cost[..., keep]
    verdict = np.full(reps, "", dtype=object)
    look_of = np.zeros(reps, dtype=int)
    for look, n in enumerate(d.looks, start=1):
        live = look_of == 0
        b = bounds(success[live, :n], cost[live, :n], d.levels(look), seed=seed + look, method="delta", draws=2000)
        now = verdicts(decide(b, 0.05, 0.10)[0])
        done = (now != "inconclusive") | (look == len(d.looks))
        idx = np.flatnonzero(live)[done]
        verdict[idx], look_of[idx] = now[done], look
    return verdict, look_of
