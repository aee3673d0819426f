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

**The interval** is a delete-one-instance jackknife: the estimate is recomputed with each instance left
out (all its walks together, as a drawing instance and as a tested one), on the same splits, and the
spread of those recomputations gives the standard error; the interval is the estimate ± Student's t
(n − 1 degrees of freedom) times it, cut to [0, 1]. The unit resampled is the instance, because an
instance's trials agree with each other far more than with other instances'. When every tested walk fitted
(or none did) there is nothing to spread: see `interval`.

Its coverage was checked by simulation on the known-truth processes of `tests/synthetic_walks.py` (`COVERED`,
trials correlated within instances): `python -m benchmarks.perf.drawability_gap --parts cover`;
`tests/test_drawability_truth.py` checks at least 85 % on two of them.
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


@dataclass(frozen=True)
class Drawability:
    """value: the coverage at `d` drawing instances; [low, high]: its interval at `level`; se: its
    jackknife standard error; instances: how many instances had walks; splits: drawing sets used.
    All NaN when the instances are too few (fewer than d + 2: leaving one out must still leave one tested)."""

    value: float
    low: float
    high: float
    se: float
    d: int
    instances: int
    splits: int
    level: float = LEVEL


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
        return Drawability(math.nan, math.nan, math.nan, math.nan, d, n, 0, level)
    drawing = drawing_sets(n, d, permutations, seed)
    shares = fit_shares(walks, drawing, cap=cap, min_share=min_share, routes=routes)
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


def interval(value: float, se: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """value ± t(n − 1) × se, cut to [0, 1]. When every tested walk fitted (or none did) the jackknife has
    nothing to spread (se 0): the interval is then Clopper–Pearson's for n of n instances covered (or 0 of
    n), [((1 − level) / 2)^(1/n), 1] — as if each instance were wholly covered or not, the cautious case."""
    if se == 0 and value in (0.0, 1.0):
        edge = ((1 - level) / 2) ** (1 / n)
        return (edge, 1.0) if value == 1.0 else (0.0, 1 - edge)
    half = float(stats.t.ppf((1 + level) / 2, n - 1)) * se
    return max(0.0, value - half), min(1.0, value + half)


def learning_curve(walks: Mapping[str, Sequence[Walk]], ds: Sequence[int] = CURVE, **options: Any) -> \
        list[Drawability]:
    """Drawability at each `d` in `ds` that the instances allow (d + 2 or more instances with walks)."""
    n = sum(1 for v in walks.values() if len(v))
    return [drawability(walks, d, **options) for d in ds if n >= d + 2]
