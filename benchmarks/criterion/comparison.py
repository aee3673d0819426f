"""The agent against each workflow on one task: paired by instance, clustered by instance, each comparison
on its own pairwise-complete instances, with intervals one at a time and for all comparisons at once.

The unit is the **instance**. A pattern's per-instance value is its mean over its trials (success rate,
cost per trial), so a difference `agent - workflow` is a mean over instances of per-instance differences,
and its standard error `sd(differences) / sqrt(instances)`: trials of one instance move together, and
this treats them as the one observation they nearly are. An instance one pattern did not run is left out
of that pattern's comparisons only.

- *One at a time* (`ci`): the success leg's 97.5% interval (`benchmarks.criterion.bounds` says why not 95%); `ci90`
  the 90% interval of non-inferiority and equivalence.
- *Simultaneous* (`sim`, `sim90`): max-T over the comparisons, whose correlation (they share the agent's
  column) is estimated on the instances each two share.
- *Cost*: the ratio workflow / agent of mean cost per trial over the paired instances — the estimate the
  interval is built on — with a symmetric studentized bootstrap of the instances (seeded) on the log scale.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from benchmarks.criterion.bounds import FIXED, Bounds, Levels, bounds, value_bounds


@dataclass(frozen=True)
class Pair:
    """The agent against one workflow on one task (see the module docstring for every interval)."""

    workflow: str
    instances: int  # paired instances of the success comparison
    diff: float  # agent - workflow success, mean over the paired instances
    se: float
    ci: tuple[float, float]
    ci90: tuple[float, float]
    sim: tuple[float, float]
    sim90: tuple[float, float]
    cost_ratio: float  # workflow / agent, mean cost per trial over the paired instances; NaN when unknown
    cost_ci: tuple[float, float]
    cost_sim: tuple[float, float]
    # the two sides over the paired instances (mean over instances of each one's mean over its trials)
    agent_success: float = float("nan")
    workflow_success: float = float("nan")
    agent_cost: float = float("nan")
    workflow_cost: float = float("nan")


@dataclass(frozen=True)
class Tables:
    """instance × pattern means over trials (NaN where a pattern did not run an instance); `cost` NaN for a
    pattern with any unpriced trial (one unpriced call makes its mean unknown, never $0)."""

    success: pd.DataFrame
    cost: pd.DataFrame

    def arrays(self, columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
        return (self.success[columns].to_numpy(float)[None], self.cost[columns].to_numpy(float)[None])


def tables(g: pd.DataFrame, patterns: list[str]) -> Tables:
    sub = g[g["pattern"].isin(patterns)]
    means = sub.groupby(["instance", "pattern"])[["success", "cost_usd"]].mean()
    success = means["success"].unstack().reindex(columns=patterns)
    cost = means["cost_usd"].unstack().reindex(columns=patterns)
    unpriced = sub.groupby("pattern")["cost_usd"].apply(lambda c: c.isna().any())
    for p in patterns:
        if unpriced.get(p, False):
            cost[p] = np.nan
    return Tables(success.astype(float), cost.astype(float))


def _pairs(names: list[str], b: Bounds) -> list[Pair]:
    def two(lo: np.ndarray, hi: np.ndarray, j: int) -> tuple[float, float]:
        return float(lo[0, j]), float(hi[0, j])

    return [Pair(workflow=w, instances=int(b.n[0, j]), diff=float(b.diff[0, j]), se=float(b.se[0, j]),
                 ci=two(b.win_lo, b.win_hi, j), ci90=two(b.eq_lo, b.eq_hi, j), sim=two(b.win_sim_lo, b.win_sim_hi, j),
                 sim90=two(b.eq_sim_lo, b.eq_sim_hi, j), cost_ratio=float(b.ratio[0, j]),
                 cost_ci=two(b.cost_lo, b.cost_hi, j), cost_sim=two(b.cost_sim_lo, b.cost_sim_hi, j))
            for j, w in enumerate(names)]


def compare(g: pd.DataFrame, workflows: list[str], seed: int = 0, levels: Levels = FIXED) -> list[Pair]:
    """Every workflow against the agent, each on the instances both ran (module docstring)."""
    t = tables(g, ["agent", *workflows])
    success, cost = t.arrays(["agent", *workflows])
    return [_with_sides(p, t) for p in _pairs(workflows, bounds(success, cost, levels, seed))]


def _with_sides(p: Pair, t: Tables) -> Pair:
    """The pair with each side's success and cost over the instances it was paired on."""
    both = t.success["agent"].notna() & t.success[p.workflow].notna()
    s, c = t.success[both], t.cost[both]
    return replace(p, agent_success=float(s["agent"].mean()), workflow_success=float(s[p.workflow].mean()),
                   agent_cost=float(c["agent"].mean()), workflow_cost=float(c[p.workflow].mean()))


def compare_value(g: pd.DataFrame, workflows: list[str], value: float, seed: int = 0,
                  levels: Levels = FIXED) -> list[Pair]:
    """Every workflow against the agent on net value per trial, success × value − cost (USD), agent −
    workflow: `diff`, `ci` (at the value level), `ci90`, `sim`, `sim90` on that scale; no cost fields."""
    t = tables(g, ["agent", *workflows])
    success, cost = t.arrays(["agent", *workflows])
    return _pairs(workflows, value_bounds(success, cost, value, levels, seed))


def pairs_frame(task: str, pairs: list[Pair], values: list[Pair] | None = None) -> pd.DataFrame:
    """`criterion_pairs.csv` rows for one task: every workflow against the agent."""
    rows = [{
        "task": task, "workflow": p.workflow, "instances": p.instances, "agent_success": p.agent_success,
        "workflow_success": p.workflow_success, "agent_cost": p.agent_cost, "workflow_cost": p.workflow_cost,
        "success_diff": p.diff, "diff_se": p.se,
        "diff_ci_low": p.ci[0], "diff_ci_high": p.ci[1], "diff_sim_low": p.sim[0], "diff_sim_high": p.sim[1],
        "cost_ratio": p.cost_ratio, "cost_ci_low": p.cost_ci[0], "cost_ci_high": p.cost_ci[1],
        "cost_sim_low": p.cost_sim[0], "cost_sim_high": p.cost_sim[1]} for p in pairs]
    for row, v in zip(rows, values or [], strict=False):
        row.update(value_diff=v.diff, value_ci_low=v.ci[0], value_ci_high=v.ci[1], value_sim_low=v.sim[0],
                   value_sim_high=v.sim[1])
    return pd.DataFrame(rows)

