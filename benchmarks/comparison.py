"""The agent against each workflow on one task: paired by instance, clustered by instance, with intervals
that hold one at a time and intervals that hold for all six comparisons at once.

The unit is the **instance**. Every pattern ran the same instances; a pattern's per-instance value is the
mean over its trials (success rate, cost). So a difference `agent - workflow` is a mean over instances
of per-instance differences, and its standard error is `sd(differences, ddof=1) / sqrt(instances)`:
trials of one instance move together, and this is what treats them as the one observation they nearly
are (it is the limit of a bootstrap that resamples whole instances). Intervals are `estimate ± t × SE`
with `instances - 1` degrees of freedom.

- *One at a time* (`ci`): 95% two-sided; `ci90` is the 90% interval of an equivalence test (TOST).
- *Simultaneous* (`sim`): max-T. The six differences are correlated (they share the agent's column),
  so the critical value is the 95% quantile of max_j |T_j| for a multivariate t with their correlation
  (simulated, seeded), not a Bonferroni bound: all six intervals cover their truths together 95% of the
  time, whichever workflow a reader looks at afterwards — the best one included.
- *Cost*: the ratio workflow / agent of mean cost per trial, on the log scale with a delta-method,
  instance-clustered standard error, back-transformed; the same max-T treatment for the simultaneous one.

A difference with no spread at all (every instance concordant) is given the standard error of one
discordant instance in n, 1/n, rather than zero: no sample shows a rate finer than 1/n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

DRAWS = 10000  # multivariate-t draws for a max-T critical value: its Monte Carlo error is about ±0.02


@dataclass(frozen=True)
class Pair:
    """The agent against one workflow on one task (see the module docstring for every interval)."""

    workflow: str
    instances: int
    diff: float  # agent - workflow success, mean over instances
    se: float
    ci: tuple[float, float]
    ci90: tuple[float, float]
    sim: tuple[float, float]
    sim90: tuple[float, float]
    cost_ratio: float  # workflow / agent, mean cost per trial; NaN when a cost is unknown
    cost_ci: tuple[float, float]
    cost_sim: tuple[float, float]


def per_instance(g: pd.DataFrame, column: str, patterns: list[str]) -> pd.DataFrame:
    """instance × pattern means over trials, for the instances every listed pattern ran."""
    sub = g[g["pattern"].isin(patterns)]
    return sub.groupby(["instance", "pattern"])[column].mean().unstack().reindex(columns=patterns).dropna()


def diff_se(d: np.ndarray) -> float:
    """Clustered standard error of a mean of per-instance differences, floored at 1/n (docstring)."""
    n = d.size
    if n < 2:
        return math.nan
    return max(float(d.std(ddof=1)) / math.sqrt(n), 1.0 / n)


def t_quantile(level: float, instances: int) -> float:
    """The two-sided critical value of a `level` interval with instances - 1 degrees of freedom."""
    return float(st.t.ppf(1 - (1 - level) / 2, instances - 1)) if instances >= 2 else math.nan


def max_t_quantile(columns: np.ndarray, level: float, seed: int = 0) -> float:
    """The `level` quantile of max |T_j| over correlated t statistics (one column per comparison)."""
    n, m = columns.shape
    if n < 2:
        return math.nan
    if m == 1:
        return t_quantile(level, n)
    sd = columns.std(axis=0, ddof=1)
    cov = np.cov(columns, rowvar=False)
    live = sd > 0
    corr = np.eye(m)
    corr[np.ix_(live, live)] = cov[np.ix_(live, live)] / np.outer(sd[live], sd[live])
    rng = np.random.default_rng(seed)
    z = rng.multivariate_normal(np.zeros(m), corr, size=DRAWS, method="eigh")
    scale = np.sqrt(rng.chisquare(n - 1, size=DRAWS) / (n - 1))[:, None]
    return float(np.quantile(np.abs(z / scale).max(axis=1), level))


def log_cost_terms(w: np.ndarray, a: np.ndarray) -> tuple[float, np.ndarray]:
    """log(mean w / mean a) and the per-instance linearised terms whose mean has the same variance
    (delta method): w_i / mean(w) - a_i / mean(a)."""
    mw, ma = float(w.mean()), float(a.mean())
    if mw <= 0 or ma <= 0:
        return math.nan, np.full(w.size, math.nan)
    return math.log(mw / ma), w / mw - a / ma


def _interval(x: float, se: float, crit: float) -> tuple[float, float]:
    if any(math.isnan(v) for v in (x, se, crit)):
        return math.nan, math.nan
    return x - crit * se, x + crit * se


def _exp(iv: tuple[float, float]) -> tuple[float, float]:
    low, high = iv
    return math.exp(low), math.exp(high)  # exp(nan) is nan: an unknown bound stays unknown


def compare(g: pd.DataFrame, workflows: list[str], seed: int = 0) -> list[Pair]:
    """Every workflow against the agent on the instances all of them ran (module docstring)."""
    patterns = ["agent", *workflows]
    succ = per_instance(g, "success", patterns)
    cost = per_instance(g, "cost_usd", patterns) if g["cost_usd"].notna().all() else None
    n = len(succ)
    diffs = np.column_stack([succ["agent"] - succ[w] for w in workflows]) if n else np.empty((0, len(workflows)))
    t95, t90 = t_quantile(0.95, n), t_quantile(0.90, n)
    m95, m90 = max_t_quantile(diffs, 0.95, seed), max_t_quantile(diffs, 0.90, seed + 1)
    logs, terms = [], []
    for w in workflows:
        lr, lin = log_cost_terms(cost[w].to_numpy(), cost["agent"].to_numpy()) if cost is not None and n else \
            (math.nan, np.full(n, math.nan))
        logs.append(lr)
        terms.append(lin)
    lin_matrix = np.column_stack(terms) if n else np.empty((0, len(workflows)))
    cost_ok = n >= 2 and not np.isnan(lin_matrix).any()
    c95 = max_t_quantile(lin_matrix, 0.95, seed + 2) if cost_ok else math.nan
    pairs = []
    for j, w in enumerate(workflows):
        d = diffs[:, j]
        diff, se = (float(d.mean()) if n else math.nan), diff_se(d)
        lse = float(lin_matrix[:, j].std(ddof=1) / math.sqrt(n)) if cost_ok else math.nan
        pairs.append(Pair(
            workflow=w, instances=n, diff=diff, se=se, ci=_interval(diff, se, t95), ci90=_interval(diff, se, t90),
            sim=_interval(diff, se, m95), sim90=_interval(diff, se, m90),
            cost_ratio=math.exp(logs[j]) if not math.isnan(logs[j]) else math.nan,
            cost_ci=_exp(_interval(logs[j], lse, t95)), cost_sim=_exp(_interval(logs[j], lse, c95))))
    return pairs


def pairs_frame(task: str, pairs: list[Pair]) -> pd.DataFrame:
    """`criterion_pairs.csv` rows for one task: every workflow against the agent."""
    return pd.DataFrame([{
        "task": task, "workflow": p.workflow, "instances": p.instances, "success_diff": p.diff, "diff_se": p.se,
        "diff_ci_low": p.ci[0], "diff_ci_high": p.ci[1], "diff_sim_low": p.sim[0], "diff_sim_high": p.sim[1],
        "cost_ratio": p.cost_ratio, "cost_ci_low": p.cost_ci[0], "cost_ci_high": p.cost_ci[1],
        "cost_sim_low": p.cost_sim[0], "cost_sim_high": p.cost_sim[1]} for p in pairs])


def instances_needed(diff: float, sd: float, margin: float, power_z: float = 0.8416212335729143,
                     alpha_z: float = 1.959963984540054) -> float:
    """Prospective: how many instances would likely settle the comparison if the observed difference and
    its per-instance spread (`sd`) were the truth — enough for 80% power on the easier route, showing a
    difference (distance |diff| from 0) or showing equivalence (distance margin - |diff| from ±margin)."""
    if any(math.isnan(v) for v in (diff, sd)):
        return math.nan
    distance = max(abs(diff), margin - abs(diff))
    return float(math.ceil(((alpha_z + power_z) * max(sd, 1e-9) / distance) ** 2))
