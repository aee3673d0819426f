"""The intervals the verdict reads, for the agent against m workflows, built from per-instance arrays
(`benchmarks.criterion.paired`): the same code for a results folder (one replicate) and for a simulation of many.

**The error budget.** The rule may name a winner by two legs, and both would err at the same truth (equal
success, a cost at the edge of "meaningfully cheaper"), so the 5% budget is split between them:
- the *success leg* ("significantly more successful") reads a 97.5% interval of agent − workflow: 2.5% in
  all, 1.25% per direction;
- the *cost leg* ("cheaper by at least the cost margin") reads each end of a 95% interval of the cost ratio
  workflow / agent: 2.5% one-sided;
- *non-inferiority and equivalence* read a 90% interval (each end a one-sided 5% test, TOST). Their
  worst case (a true difference exactly at the margin) is far from the legs' (no difference), so they do
  not add to them: the chance of naming a wrong winner is at most 5% at any truth (union bound).
With a value per success the two legs become one (net value per trial), which gets the whole 5%.

Success intervals: paired t intervals on the per-instance differences (standard error floored at one
discordant instance in n, 1/n), clipped to [-1, 1]; simultaneous ones use the max-T critical value of
the comparisons' correlation. Cost: the log of the ratio of mean costs, its standard error by the delta
method; on a results folder its critical values come from a symmetric studentized bootstrap of the
instances (`method="boot"`), in a simulation from the t distribution (`method="delta"`;
`benchmarks.criterion.intervals`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from benchmarks.criterion import intervals as iv
from benchmarks.criterion.paired import correlation, log_ratio, moments


@dataclass(frozen=True)
class Levels:
    """Two-sided interval levels: each end of a `level` interval is a one-sided test at (1 - level) / 2."""

    win: float = 0.975  # the success leg
    eq: float = 0.90  # non-inferiority and equivalence (TOST)
    cost: float = 0.95  # the cost leg
    value: float = 0.95  # net value per trial, the one leg when a success has a price


FIXED = Levels()


@dataclass(frozen=True)
class Bounds:
    """Interval ends, arrays `(R, m)`: `win_*` and `eq_*` on agent − workflow (success, or net value),
    `cost_*` on the cost ratio workflow / agent; `*_sim_*` simultaneous over the m comparisons."""

    diff: np.ndarray
    se: np.ndarray
    n: np.ndarray
    win_lo: np.ndarray
    win_hi: np.ndarray
    win_sim_lo: np.ndarray
    win_sim_hi: np.ndarray
    eq_lo: np.ndarray
    eq_hi: np.ndarray
    eq_sim_lo: np.ndarray
    eq_sim_hi: np.ndarray
    ratio: np.ndarray
    cost_lo: np.ndarray
    cost_hi: np.ndarray
    cost_sim_lo: np.ndarray
    cost_sim_hi: np.ndarray


def _df(n: np.ndarray) -> np.ndarray:
    """Degrees of freedom of a simultaneous interval: the fewest paired instances − 1 (0 with none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a replicate with no comparison of 2+ instances
        return np.nan_to_num(np.nanmin(np.where(n >= 2, n, np.nan), axis=1) - 1, nan=0.0)


def _around(x: np.ndarray, se: np.ndarray, crit: np.ndarray, clip: bool) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = x - crit * se, x + crit * se
    return (np.clip(lo, -1, 1), np.clip(hi, -1, 1)) if clip else (lo, hi)


def success_part(d: np.ndarray, w: np.ndarray | None, win: float, eq: float, seed: int,
                 corr: np.ndarray | None, unit: float = 1.0, draws: int = iv.DRAWS) -> dict[str, np.ndarray]:
    """Estimates and intervals on per-instance differences `d` `(R, n, m)` at levels `win` and `eq`.

    No sample shows a rate finer than one discordant instance in n, so the standard error is at least
    `unit` / n (`unit` 1 for success; the value of a success for net value). Success intervals (unit 1)
    are clipped to [-1, 1]."""
    mo = moments(d, w)
    se = mo.sd / np.sqrt(mo.n)
    se = np.where(mo.n >= 2, np.maximum(se, unit / np.maximum(mo.n, 1)), np.nan)
    if corr is None:
        corr = correlation(d)
    sim = iv.max_t_quantile(corr, _df(mo.n), (win, eq), seed, draws)
    out = {"diff": mo.mean, "se": se, "n": mo.n}
    clip = unit == 1.0
    for name, level, k in (("win", win, 0), ("eq", eq, 1)):
        out[f"{name}_lo"], out[f"{name}_hi"] = _around(mo.mean, se, iv.t_quantile(level, mo.n - 1), clip)
        out[f"{name}_sim_lo"], out[f"{name}_sim_hi"] = _around(mo.mean, se, sim[:, k:k + 1], clip)
    return out


def cost_part(flow: np.ndarray, agent: np.ndarray, w: np.ndarray | None, level: float, seed: int,
              method: str, corr: np.ndarray | None = None, draws: int = iv.DRAWS) -> dict[str, np.ndarray]:
    """The cost ratio workflow / agent and its intervals (`method`: "boot" on one replicate, or "delta")."""
    theta, se, n = log_ratio(flow, agent, w)
    crit = iv.t_quantile(level, n - 1)
    if method == "boot" and flow.shape[0] == 1 and (n >= iv.BOOT_MIN).any():
        bt, bse, _ = log_ratio(flow, agent, iv.boot_weights(flow.shape[1], seed))
        one, sim = iv.studentized(theta, se, bt, bse, (level,))
        crit = np.where(n >= iv.BOOT_MIN, one[0][None, :], crit)  # the delta method's t below BOOT_MIN
        crit_sim = np.full_like(theta, sim[0])
    else:
        if corr is None:
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a comparison whose cost is unknown: NaN
                mf = np.nanmean(flow, axis=1, keepdims=True)
                ma = np.nanmean(agent, axis=1, keepdims=True)
                corr = correlation(flow / mf - agent / ma)
        crit_sim = iv.max_t_quantile(corr, _df(n), (level,), seed + 2, draws)
    crit, crit_sim = np.where(se == 0, 0.0, crit), np.where(se == 0, 0.0, crit_sim)  # no spread: no width
    lo, hi = _around(theta, se, crit, False)
    slo, shi = _around(theta, se, crit_sim, False)
    return {"ratio": np.exp(theta), "cost_lo": np.exp(lo), "cost_hi": np.exp(hi), "cost_sim_lo": np.exp(slo),
            "cost_sim_hi": np.exp(shi)}


def no_cost(shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    nan = np.full(shape, np.nan)
    return {"ratio": nan, "cost_lo": nan, "cost_hi": nan, "cost_sim_lo": nan, "cost_sim_hi": nan}


def bounds(success: np.ndarray, cost: np.ndarray | None, levels: Levels = FIXED, seed: int = 0,
           w: np.ndarray | None = None, method: str = "boot",
           corrs: tuple[np.ndarray, np.ndarray] | None = None, draws: int = iv.DRAWS) -> Bounds:
    """Every interval the rule reads, from instance × pattern arrays `(R, n, 1 + m)` (column 0 the agent,
    NaN where a pattern did not run an instance or its cost is unknown); `w` instance weights `(R, n)`;
    `corrs` fixed correlations (success, cost) for resampled data, else estimated per replicate."""
    return diff_bounds(success[..., :1] - success[..., 1:], cost, levels, seed, w, method, corrs, draws)


def diff_bounds(d: np.ndarray, cost: np.ndarray | None, levels: Levels = FIXED, seed: int = 0,
                w: np.ndarray | None = None, method: str = "boot",
                corrs: tuple[np.ndarray, np.ndarray] | None = None, draws: int = iv.DRAWS) -> Bounds:
    """`bounds` from per-instance success differences agent − workflow `(R, n, m)` (a planned run shifts
    them to a stated truth) and the instance × pattern costs."""
    part = success_part(d, w, levels.win, levels.eq, seed, None if corrs is None else corrs[0], draws=draws)
    if cost is None:
        costs = no_cost(part["diff"].shape)
    else:
        agent = np.broadcast_to(cost[..., :1], cost[..., 1:].shape)
        costs = cost_part(cost[..., 1:], agent, w, levels.cost, seed, method, None if corrs is None else corrs[1],
                          draws)
    return Bounds(**part, **costs)


def value_bounds(success: np.ndarray, cost: np.ndarray, value: float, levels: Levels = FIXED, seed: int = 0,
                 w: np.ndarray | None = None, method: str = "boot", corr: np.ndarray | None = None,
                 draws: int = iv.DRAWS) -> Bounds:
    """The net value per trial, success × value − cost, agent − workflow (USD), in the `win_*` and `eq_*`
    slots (at the value level and at 90%); no cost leg. Bootstrap-t critical values on a results folder:
    the costs in it are as skewed as the cost ratio's."""
    nv = value * (success[..., :1] - success[..., 1:]) - (cost[..., :1] - cost[..., 1:])
    part = success_part(nv, w, levels.value, levels.eq, seed, corr, unit=value, draws=draws)
    if method == "boot" and nv.shape[0] == 1 and (part["n"] >= iv.BOOT_MIN).any():
        mo = moments(nv, iv.boot_weights(nv.shape[1], seed + 3))
        boot_se = np.maximum(mo.sd / np.sqrt(mo.n), value / mo.n)  # the same floor as the estimate's
        one, sim = iv.studentized(part["diff"], part["se"], mo.mean, boot_se, (levels.value, levels.eq))
        raw = moments(nv)
        # where the floor binds the resamples know no better than it: the t intervals stand
        boot = (part["n"] >= iv.BOOT_MIN) & (part["se"] <= raw.sd / np.sqrt(raw.n) * (1 + 1e-9))
        for k, name in enumerate(("win", "eq")):
            lo, hi = _around(part["diff"], part["se"], one[k][None, :], False)
            slo, shi = _around(part["diff"], part["se"], sim[k], False)
            part[f"{name}_lo"], part[f"{name}_hi"] = np.where(boot, lo, part[f"{name}_lo"]), np.where(
                boot, hi, part[f"{name}_hi"])
            if boot.all():
                part[f"{name}_sim_lo"], part[f"{name}_sim_hi"] = slo, shi
    return Bounds(**part, **no_cost(part["diff"].shape))
