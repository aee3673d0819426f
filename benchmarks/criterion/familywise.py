"""A familywise reading of many verdicts at once: Holm's step-down procedure over the winner claims.

Each task's verdict spends its own 5% error budget, so a table of K tasks that are all truly equal
names at least one false winner far more often than 5% (5 tasks: up to about 1 − 0.95⁵ ≈ 23%; a 25-cell
sweep map: up to about 72%). The familywise reading keeps the chance of *any* false winner in the whole
table (or map) at most 5%.

**A claim's p-value** (`claim_p`, column `claim_p`). A verdict that names a winner (`workflow` or `agent`)
holds at the task's error budget α = 5%. Shrink the budget — every one-sided test of the rule scaled
together, each interval's tail (1 − level) multiplied by α / 5%, so that α = 5% gives the levels the
verdict was read at — and at some α the claim no longer holds. `claim_p` is the smallest α at which the
same verdict still comes out (found by bisection on log α, to within a factor `TOLERANCE`, and rounded
*up*, so it is never smaller than the truth's). The rule is monotone in its levels, so the claim holds at
every α above it. A verdict without a winner (`either`, `inconclusive`) makes no claim: p = 1.

**Holm** (`holm`). Sort the K p-values; the i-th smallest is compared with α / (K − i + 1), stopping at
the first that fails; adjusted p-values are the running maximum of (K − i + 1) p_(i). It controls the
familywise error at α under any dependence between the tasks (Holm 1979), with no assumption that the
tasks are independent — they share a model and a seed. K counts every task (or cell) with a
comparison, winner or not: each was a chance to name a false winner. A withheld task (`criterion.withheld`) has no
claim (`claim_p` empty): it is not counted, and it has no familywise verdict.

**The familywise verdict** (`verdict_familywise`): the verdict where Holm confirms its winner (adjusted
p ≤ 5%); a winner Holm does not confirm reads `inconclusive` (its claim is not made familywise; the
equivalence reading is not re-decided); `either` and `inconclusive` are unchanged. The per-task verdict
stays the headline: it answers "for *this* task, which?"; the familywise column answers "how many of
these winners would survive if every one of them had to be right at once?".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from benchmarks.criterion.bounds import Levels

ALPHA = 0.05  # the rule's error budget per task (benchmarks.criterion.bounds)
FLOOR = 1e-4  # the smallest α looked at: a claim that holds there is reported as p = 1e-4 (an upper bound)
TOLERANCE = 1.25  # bisection stops when the bracket is within this factor
WINNERS = ("workflow", "agent")


def scaled(levels: Levels, alpha: float) -> Levels:
    """Every level of `levels` with its tail scaled by alpha / ALPHA (ALPHA gives `levels` itself)."""
    k = alpha / ALPHA
    return Levels(win=1 - (1 - levels.win) * k, eq=1 - (1 - levels.eq) * k, cost=1 - (1 - levels.cost) * k,
                  value=1 - (1 - levels.value) * k)


def claim_p(holds: Callable[[Levels], bool], levels: Levels) -> float:
    """The smallest α (to within TOLERANCE, rounded up) at which `holds(scaled(levels, α))` is still true;
    `holds(levels)` is assumed true (the committed verdict)."""
    if holds(scaled(levels, FLOOR)):
        return FLOOR
    low, high = FLOOR, ALPHA
    while high / low > TOLERANCE:
        mid = math.sqrt(low * high)
        low, high = (low, mid) if holds(scaled(levels, mid)) else (mid, high)
    return high


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's adjusted p-values (NaN: no comparison, left out of K and kept NaN)."""
    arr = np.asarray(p, dtype=float)
    known = np.flatnonzero(~np.isnan(arr))
    out = np.full(arr.shape, np.nan)
    k = known.size
    if k == 0:
        return out
    order = known[np.argsort(arr[known], kind="stable")]
    adjusted = np.maximum.accumulate((k - np.arange(k)) * arr[order])
    out[order] = np.minimum(adjusted, 1.0)
    return out


def familywise_columns(df: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """`df` (criterion or sweep rows with `verdict` and `claim_p`) with `familywise_p` (Holm-adjusted over
    its rows) and `verdict_familywise`. Rows without a comparison (no `claim_p`) are left out of K."""
    out = df.copy()
    if out.empty:
        out["familywise_p"], out["verdict_familywise"] = [], []
        return out
    p = pd.to_numeric(out["claim_p"], errors="coerce").to_numpy(float)
    adjusted = holm(p)
    out["familywise_p"] = adjusted
    keep = ~np.isin(out["verdict"].astype(str), WINNERS) | (adjusted <= alpha)
    out["verdict_familywise"] = np.where(keep, out["verdict"].astype(str), "inconclusive")
    out.loc[out["verdict"].astype(str) == "withheld", "verdict_familywise"] = None  # no verdict, no reading of one
    return out


def claim_p_of(verdict: str, holds: Callable[[Levels], bool], levels: Levels) -> float:
    """A row's `claim_p`: the winner's p-value, 1 for a verdict without a winner."""
    return claim_p(holds, levels) if verdict in WINNERS else 1.0


def reading_text(df: pd.DataFrame) -> str:
    """One sentence: how many winners Holm keeps across the table (or map)."""
    if "verdict_familywise" not in df or df["verdict_familywise"].isna().all():
        return ""
    won = df["verdict"].astype(str).isin(WINNERS)
    kept = won & (df["verdict_familywise"].astype(str) == df["verdict"].astype(str))
    k = int(pd.to_numeric(df["claim_p"], errors="coerce").notna().sum())
    lost = ", ".join(str(t) for t in df.loc[won & ~kept, "task"]) if "task" in df else ""
    return (f"Familywise (Holm over the {k} comparisons, 5% in all): {int(kept.sum())} of {int(won.sum())} "
            f"winners stand" + (f"; {lost} would read inconclusive" if lost else "") + ".")
