"""Paired, instance-level statistics of the agent against m workflows, vectorised over replicates.

One code path serves the criterion on a results folder, the bootstrap inside it, the run planner and the
simulations that check the verdict: every function takes per-instance values as an array `(R, n, m)`
(R replicates — one for a results folder —, n instances, m comparisons) with NaN where an instance has no
pair for that comparison, and instance *weights* `(R, n)`: ones for the data as it is, resampling counts
for a bootstrap or a planned run drawn from a pilot (a resample of size N from n instances is the counts
of a multinomial draw, so any N costs the same). A data array may have R = 1 and be shared by all rows of
the weights.

Each comparison uses its own **pairwise-complete** instances: those where the agent and that workflow both
ran (an instance one workflow missed still counts for the other five).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Moments:
    """Per comparison (arrays `(R, m)`): instances paired (sum of weights), mean, standard deviation."""

    n: np.ndarray
    mean: np.ndarray
    sd: np.ndarray


def wsum(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ_i w[r, i] x[r, i, j] → (R, m); a shared data array (R = 1) is one matrix product."""
    if x.shape[0] == 1:
        return w @ x[0]
    return np.einsum("rn,rnm->rm", w, x)


def ones(x: np.ndarray) -> np.ndarray:
    """Unit weights for the data as it is."""
    return np.ones(x.shape[:2])


def moments(x: np.ndarray, w: np.ndarray | None = None) -> Moments:
    """Weighted mean and sd (ddof = 1) of per-instance values over each comparison's paired instances."""
    w = ones(x) if w is None else w
    present = ~np.isnan(x)
    xs = np.where(present, x, 0.0)
    n = wsum(w, present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = wsum(w, xs) / n
        # Σw(x - mean)² = Σwx² - n·mean²: sums only, so a bootstrap is a few matrix products
        ss = np.maximum(wsum(w, xs * xs) - n * mean * mean, 0.0)
        sd = np.sqrt(ss / (n - 1))
    sd = np.where(n >= 2, sd, np.nan)
    return Moments(n, mean, sd)


def log_ratio(flow: np.ndarray, agent: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """(log(mean flow / mean agent), its delta-method standard error, instances) per comparison.

    `flow` and `agent` are per-instance mean costs `(R, n, m)` (the agent's column repeated per comparison),
    NaN where either is unknown. The delta method linearises the log ratio into per-instance terms
    flow_i / mean(flow) - agent_i / mean(agent), whose mean is 0 and whose variance is the ratio's."""
    w = ones(flow) if w is None else w
    present = ~(np.isnan(flow) | np.isnan(agent))
    f, a = np.where(present, flow, 0.0), np.where(present, agent, 0.0)
    n = wsum(w, present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        mf, ma = wsum(w, f) / n, wsum(w, a) / n
        theta = np.log(mf / ma)
        ss = wsum(w, f * f) / mf**2 - 2 * wsum(w, f * a) / (mf * ma) + wsum(w, a * a) / ma**2
        se = np.sqrt(np.maximum(ss, 0.0) / (n - 1) / n)
    bad = (n < 2) | ~(mf > 0) | ~(ma > 0)
    return np.where(bad, np.nan, theta), np.where(bad, np.nan, se), n


def correlation(x: np.ndarray) -> np.ndarray:
    """The correlation of the m comparisons' mean estimates, `(R, m, m)`, from unit-weight data `(R, n, m)`.

    Two comparisons share the instances where all three patterns ran: their covariance is estimated there,
    scaled by n_jk / (n_j n_k) (the covariance of two means over overlapping instances). A comparison with
    no spread is uncorrelated with the rest. Rounded back to a valid correlation matrix (negative
    eigenvalues, possible with pairwise estimates, are set to 0)."""
    present = ~np.isnan(x)
    n = present.sum(axis=1).astype(float)  # (R, m)
    mean = np.where(n > 0, np.nansum(x, axis=1) / np.maximum(n, 1), 0.0)
    dev = np.where(present, x - mean[:, None, :], 0.0)
    both = np.einsum("rnj,rnk->rjk", present.astype(float), present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = np.einsum("rnj,rnk->rjk", dev, dev) / np.maximum(both - 1, 1)
        var_mean = np.diagonal(cov, axis1=1, axis2=2) / n  # (R, m): variance of each mean
        cov_mean = cov * both / (n[:, :, None] * n[:, None, :])
        corr = cov_mean / np.sqrt(var_mean[:, :, None] * var_mean[:, None, :])
    corr = np.where(np.isfinite(corr), corr, 0.0)
    eye = np.broadcast_to(np.eye(x.shape[2]), corr.shape)
    corr = np.where(eye > 0, 1.0, corr)
    return nearest_correlation(corr)


def nearest_correlation(corr: np.ndarray) -> np.ndarray:
    """Clip negative eigenvalues to 0 and rescale to a unit diagonal (batched `(R, m, m)`)."""
    vals, vecs = np.linalg.eigh(corr)
    if (vals >= -1e-12).all():
        return corr
    fixed = np.einsum("rij,rj,rkj->rik", vecs, np.maximum(vals, 0.0), vecs)
    d = np.sqrt(np.clip(np.diagonal(fixed, axis1=1, axis2=2), 1e-12, None))
    return fixed / (d[:, :, None] * d[:, None, :])
