"""Drawability: how much of unseen instances' decisions a graph drawn from `d` instances draws.

**What is estimated.** Draw a graph (`graph.learn_graph`) from the walks of `d` instances (all their
trials); take a new instance; its score (`fit.score`: its trials' decisions judged, the least drawn one
counting). Drawability is the expected value of that score, over which `d` instances drew the graph and
which instance is new. It is defined at a fixed `d` (default `D`, 10), so it does not drift with how many
instances a folder has: more instances only narrow its interval. (It does depend on the trials per
instance, as any reading of an agent's walks does: its trials' agreement is what a slip is judged against.)

**How.** Cross-fitting over seeded splits: each split shuffles the instances and cuts them into
drawing sets of `d` (so every instance draws as often as every other); each drawing set's graph is
tested on every instance outside it (so every instance is tested). An instance counts once, whatever its
trials: its score reads them all together, and the estimate is the mean over
(drawing set, tested instance) pairs.

**The interval** resamples the instance, because an instance's trials agree with each other far more than
with other instances'. Its standard error is a delete-one-instance jackknife: the estimate recomputed with each
instance left out (all its walks together, as a drawing instance and as a tested one: the splits it drew in
go, so the learning step's dependence on it counts), on the same splits. The interval is then Clopper–Pearson's
for a proportion measured that precisely (`interval`, Korn and Graubard's for clustered data): the number of
independent, wholly covered or uncovered instances that would give that standard error stands in for n. Its
coverage was checked by simulation on the known-truth processes of `tests/synthetic_walks.py` (`COVERED`,
trials correlated within instances): `python -m benchmarks.perf.drawability_gap --parts cover`;
`tests/test_drawability_truth.py` checks at least 90 % on two of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from benchmarks.criterion.drawability.learn import CAP, MIN_SHARE, ROUTES
from benchmarks.criterion.drawability.shares import fit_shares
from benchmarks.criterion.drawability.walks import Walk

D = 10  # drawing instances: "if we froze what the agent did on ten examples..."
PERMUTATIONS = 10  # each instance draws in this many drawing sets (fewer when d is small: see `drawing_sets`)
MIN_SPLITS, MAX_SPLITS = 60, 300  # drawing sets in all, at least and at most
LEVEL = 0.95
CURVE = (1, 2, 5, 10, 20, 50, 100, 200, 500)
TOO_FEW = "not measured: fewer than {} instances with walks of the agent"
UNMEASURED = ("not measured: the agent chose among a few next steps, and whether that choice is the instance's "
              "or a coin's needs repeated trials (at least half of the drawing instances at 2 or more trials)")


@dataclass(frozen=True)
class Drawability:
    """value: the coverage at `d` drawing instances; [low, high]: its interval at `level`; se: its
    jackknife standard error; instances: how many instances had walks; splits: drawing sets used.
    All NaN, with the reason, when the instances are too few (fewer than d + 2: leaving one out must still leave
    one tested) or a model choice's dependence on the instance could not be read (`UNMEASURED`)."""

    value: float
    low: float
    high: float
    se: float
    d: int
    instances: int
    splits: int
    level: float = LEVEL
    reason: str = ""  # why value is NaN, when it is


def drawing_sets(n: int, d: int, permutations: int = PERMUTATIONS, seed: int = 0) -> np.ndarray:
    """splits × n, 1 for the drawing instances of each split: whole permutations of the instances, each cut
    into ⌊n/d⌋ drawing sets of d (the remainder is tested only in that permutation), so that every instance
    draws equally often. `permutations` of them, or as many as keep the splits within MIN_SPLITS–MAX_SPLITS
    (with d = 1 a permutation already holds every possible drawing set)."""
    per = n // d
    count = min(max(permutations, math.ceil(MIN_SPLITS / per)), max(1, MAX_SPLITS // per))
    rng = np.random.default_rng(seed)
    rows = np.zeros((count * per, n))
    for p in range(count):
        order = rng.permutation(n)
        for k in range(per):
            rows[p * per + k, order[k * d: (k + 1) * d]] = 1
    return rows


def drawability(walks: Mapping[str, Sequence[Walk]], d: int = D, *, permutations: int = PERMUTATIONS,
                seed: int = 0, cap: int = CAP, min_share: float = MIN_SHARE, routes: int | None = ROUTES,
                level: float = LEVEL) -> Drawability:
    """Drawability of the walks (instance -> its walks, one per trial) at `d` drawing instances."""
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    walks = {k: v for k, v in walks.items() if len(v)}
    n = len(walks)
    if n < d + 2:
        return Drawability(math.nan, math.nan, math.nan, math.nan, d, n, 0, level, TOO_FEW.format(d + 2))
    drawing = drawing_sets(n, d, permutations, seed)
    shares = fit_shares(walks, drawing, cap=cap, min_share=min_share, routes=routes)
    if np.isnan(shares[drawing == 0]).any():
        return Drawability(math.nan, math.nan, math.nan, math.nan, d, n, len(drawing), level, UNMEASURED)
    value, se = jackknife(shares, 1 - drawing)
    low, high = interval(value, se, n, level)
    return Drawability(value, low, high, se, d, n, len(drawing), level)


def jackknife(shares: np.ndarray, tested: np.ndarray) -> tuple[float, float]:
    """(estimate, jackknife standard error) from splits × instances coverage and the tested mask.

    Instance i left out: the splits where i drew go (their graph is not one the others would have drawn
    without it); in the splits where i was tested, the mean over the other tested instances."""
    n = shares.shape[1]
    total, count = (shares * tested).sum(axis=1), tested.sum(axis=1)
    value = float((total / count).mean())
    without = (total[:, None] - shares) / (count[:, None] - 1)
    loo = (without * tested).sum(axis=0) / tested.sum(axis=0)
    return value, math.sqrt((n - 1) / n * float(((loo - loo.mean()) ** 2).sum()))


def effective(value: float, se: float, n: int) -> float:
    """How many independent instances, each wholly covered or not, would measure `value` as precisely as the
    jackknife found (value (1 − value) / se², the design effect's count), at most n and at least 1; n when the
    jackknife has nothing to spread (se 0)."""
    if se == 0 or value in (0.0, 1.0):
        return float(n)
    return max(1.0, min(float(n), value * (1 - value) / se**2))


def interval(value: float, se: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Clopper–Pearson's interval for value × m of m covered, m the effective count (`effective`): Korn and
    Graubard's interval for a proportion from clustered data. Near 0 and 1, where most instances are wholly
    covered or not, the estimate's distribution is skewed and its jackknife error small exactly when it is high;
    a symmetric value ± t × se there covered the truth in 70-85 % of folders (docs/drawability.md)."""
    m = effective(value, se, n)
    x, tail = value * m, (1 - level) / 2
    low = 0.0 if x <= 0 else float(stats.beta.ppf(tail, x, m - x + 1))
    high = 1.0 if x >= m else float(stats.beta.ppf(1 - tail, x + 1, m - x))
    return low, high


def learning_curve(walks: Mapping[str, Sequence[Walk]], ds: Sequence[int] = CURVE, **options: Any) -> \
        list[Drawability]:
    """Drawability at each `d` in `ds` that the instances allow (d + 2 or more instances with walks)."""
    n = sum(1 for v in walks.values() if len(v))
    return [drawability(walks, d, **options) for d in ds if n >= d + 2]
