"""The statistics every table reports, as plain functions checked against hand-computed values."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default); (0, 1) when n = 0.

    Preferred over the normal approximation because it stays inside [0, 1] and behaves at
    0 and n successes, which small benchmark samples hit often.
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_hat_k(per_instance: Iterable[tuple[int, int]], k: int) -> float:
    """tau-bench's pass^k: the chance that k trials of an instance ALL succeed, averaged over instances.

    Unbiased per instance as C(c, k) / C(n, k) (c successes in n trials); instances with fewer
    than k trials are skipped; NaN if none has k.
    """
    values = pass_k_per_instance(per_instance, k)
    return sum(values) / len(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (as numpy's default); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# --- clustered by instance -----------------------------------------------------------------------
#
# Trials of one instance are not independent (an instance that is hard for a pattern tends to fail all
# its trials), so every interval below treats the *instance* as the unit: a pattern's per-instance mean
# over its trials is one observation. The standard error of a mean over instances is then the
# cluster-robust one, sd(per-instance values, ddof=1) / sqrt(instances) — what a cluster bootstrap that
# resamples whole instances converges to, with the usual n - 1 correction.


def cluster_se(per_instance: Sequence[float] | Iterable[float]) -> float:
    """Standard error of the mean of per-instance values (instances resampled as units); NaN below 2."""
    import numpy as np

    x = np.asarray(list(per_instance), dtype=float)
    if x.size < 2:
        return math.nan
    return float(x.std(ddof=1) / math.sqrt(x.size))


def effective_n(p: float, se: float, instances: int, trials: int) -> float:
    """The sample size that a binomial rate with this standard error would have (n_eff = p(1-p)/se²),
    kept within [instances, trials]: at worst every trial of an instance is the same draw (one observation
    per instance), at best every trial is independent. With no spread at all (p = 0 or 1, or every
    instance alike) the evidence cannot tell, so the worst case holds: one observation per instance."""
    if instances <= 0:
        return 0.0
    if se <= 0 or math.isnan(se) or p <= 0 or p >= 1:
        return float(instances)
    return min(float(trials), max(float(instances), p * (1 - p) / (se * se)))


def clustered_rate(per_instance: Sequence[float], trials: int, z: float = Z95) -> tuple[float, float, float]:
    """(rate, low, high): the mean of per-instance rates with a Wilson interval at the effective sample
    size (a design-effect correction: the interval widens by how much the trials of one instance agree).
    Stays inside [0, 1]; (nan, 0, 1) without instances."""
    n = len(per_instance)
    if n == 0:
        return math.nan, 0.0, 1.0
    p = sum(per_instance) / n
    n_eff = effective_n(p, cluster_se(per_instance) if n > 1 else math.nan, n, max(trials, n))
    return (p, *_wilson_real(p, n_eff, z))


def _wilson_real(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's interval for a rate p observed over a (possibly fractional) effective sample of n."""
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_k_per_instance(per_instance: Iterable[tuple[int, int]], k: int) -> list[float]:
    """Each instance's unbiased pass^k, C(c, k) / C(n, k), skipping instances with fewer than k trials."""
    return [math.comb(c, k) / math.comb(n, k) for n, c in per_instance if n >= k]
