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
    values = [math.comb(c, k) / math.comb(n, k) for n, c in per_instance if n >= k]
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
