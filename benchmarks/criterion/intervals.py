"""Critical values and intervals: t quantiles, the max-T quantile of a simultaneous interval, the symmetric
studentized (bootstrap-t) quantile, and Fieller's interval for a ratio of paired means.

Every critical value here is two-sided at a `level`: an interval estimate ± crit × SE leaves (1 - level) / 2
on each side, so its lower and upper ends are one-sided tests at that share.
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache

import numpy as np
from scipy import stats as st

DRAWS = 10000  # multivariate-t draws for a max-T critical value: its Monte Carlo error is about ±0.02
BOOT = 4000  # bootstrap resamples of the instances: the 95% quantile of |t*| to about ±0.03
BOOT_MIN = 5  # below 5 instances a resample repeats one instance too often: the delta method's t interval


def t_quantile(level: float, df: np.ndarray | float) -> np.ndarray:
    """The two-sided critical value of a `level` t interval with `df` degrees of freedom (NaN below 1)."""
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        q = st.t.ppf(1 - (1 - level) / 2, np.where(df >= 1, df, np.nan))
    return np.asarray(q, dtype=float)


def max_t_samples(corr: np.ndarray, df: np.ndarray, seed: int = 0, draws: int = DRAWS) -> np.ndarray:
    """Draws of max_j |T_j| for correlated t statistics, one row per replicate: `(R, draws)`.

    `corr` is `(R, m, m)`, `df` `(R,)`. The same normal draws serve every replicate, and the same scale
    draws every replicate with the same degrees of freedom (common random numbers): replicates differ only
    by their correlation and degrees of freedom. Seeded: a folder gets the same critical value every time."""
    g = np.random.default_rng(seed).standard_normal((draws, corr.shape[-1]))
    vals, vecs = np.linalg.eigh(corr)
    root = vecs * np.sqrt(np.maximum(vals, 0.0))[:, None, :]  # corr = root @ root.T
    scales: dict[float, np.ndarray] = {}
    out = np.empty((corr.shape[0], draws))
    for r in range(corr.shape[0]):
        d = float(df[r])
        if d not in scales:
            chi = np.random.default_rng([seed, int(d)]).chisquare(max(d, 1.0), draws)  # seeded per df
            scales[d] = np.sqrt(chi / d) if d >= 1 else np.full(draws, np.nan)
        out[r] = np.abs((g @ root[r].T) / scales[d][:, None]).max(axis=1)
    return out


def max_t_quantile(corr: np.ndarray, df: np.ndarray, levels: tuple[float, ...], seed: int = 0,
                   draws: int = DRAWS) -> np.ndarray:
    """`(R, len(levels))` max-T critical values: with one comparison, the plain t quantiles."""
    if corr.shape[-1] == 1:
        return np.stack([t_quantile(level, df) for level in levels], axis=-1)
    samples = max_t_samples(corr, df, seed, draws)
    return np.quantile(samples, levels, axis=1).T


def studentized(theta: np.ndarray, se: np.ndarray, boot_theta: np.ndarray, boot_se: np.ndarray,
                levels: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric bootstrap-t critical values: per comparison `(len(levels), m)` and simultaneous
    `(len(levels),)`, the `level` quantiles of |t*| and of max_j |t*_j|, t* = (θ* - θ) / se*.

    The symmetric form (not the equal-tailed one) because each tail of it held its share in simulation
    with skewed costs at 10 instances (tests/test_cost_interval.py). A resample with no spread (se* = 0)
    counts as t* = 0 if it reproduces θ, else as unbounded; one where a comparison has fewer than two
    paired instances (θ* NaN) is left out of that comparison's quantile."""
    diff = boot_theta - theta
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(diff / boot_se)
    t = np.where(boot_se > 0, t, np.where(np.abs(diff) <= 1e-12 * np.maximum(1.0, np.abs(theta)), 0.0, np.inf))
    t = np.where(np.isnan(boot_theta), np.nan, t)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a comparison with no usable resample: NaN
        one = np.nanquantile(t, levels, axis=0)
        sim = np.nanquantile(np.nanmax(t, axis=1), levels)
    return one, sim


@lru_cache(maxsize=32)
def boot_weights(n: int, seed: int, draws: int = BOOT) -> np.ndarray:
    """Resampling counts `(draws, n)` of n instances with replacement (seeded: a folder gives the same
    interval every time). Cached, read-only: a verdict decided again at other levels (a claim's p-value,
    `benchmarks.criterion.familywise`) draws the same resamples, and drawing them is most of its cost."""
    rng = np.random.default_rng(seed)
    w = rng.multinomial(n, np.full(n, 1.0 / n), size=draws).astype(float)
    w.flags.writeable = False
    return w


def fieller(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """mean(x) / mean(y) over paired instances, with Fieller's interval (t quantile, n - 1 df).

    The set of ratios θ for which mean(x - θy) = 0 is not rejected: bounded when mean(y) is itself
    significantly different from 0 at this level; else (−inf, inf) or an interval with an infinite end."""
    n = x.size
    if n < 2 or y.mean() == 0:
        return math.nan, -math.inf, math.inf
    xb, yb = float(x.mean()), float(y.mean())
    c = np.cov(np.vstack([x, y]), ddof=1) / n
    t2 = float(t_quantile(level, n - 1)) ** 2
    a = yb * yb - t2 * c[1, 1]
    b = -2 * (xb * yb - t2 * c[0, 1])
    k = xb * xb - t2 * c[0, 0]
    est = xb / yb
    disc = b * b - 4 * a * k
    if a <= 0 or disc < 0:
        return est, -math.inf, math.inf
    r1, r2 = sorted(((-b - math.sqrt(disc)) / (2 * a), (-b + math.sqrt(disc)) / (2 * a)))
    return est, r1, r2
