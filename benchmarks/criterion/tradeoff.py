"""The price of the extra success: when the more successful side is also significantly costlier, what one
extra success costs — the paired mean cost difference over the paired mean success difference (USD per
extra success), with Fieller's 95% interval (bounded when the success difference is significant; an end
may be infinite otherwise)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchmarks.criterion.comparison import Pair, tables
from benchmarks.criterion.intervals import fieller


@dataclass(frozen=True)
class Price:
    side: str  # "agent", or the workflow's name: the more successful side
    extra: float  # its success advantage, mean over the paired instances
    times: float  # its cost per trial as a multiple of the other's
    usd: float  # USD per extra success
    low: float
    high: float

    def text(self) -> str:
        """e.g. "agent: +0.03 success at 1.80× cost, $0.06 per extra success [$0.04, $0.10]"."""
        return (f"{self.side}: {self.extra:+.2f} success at {self.times:.2f}× cost, {usd(self.usd)} per extra "
                f"success [{usd(self.low)}, {usd(self.high)}]")


def usd(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"${x:.3g}" if abs(x) < 1 else f"${x:,.2f}"


def price(g: pd.DataFrame, pair: Pair) -> Price | None:
    """The price of `pair`'s extra success, or None unless one side is significantly more successful (the
    success leg's interval) and significantly costlier (the cost ratio's 95% interval excludes 1)."""
    agent_better = pair.ci[0] > 0 and pair.cost_ci[1] < 1
    flow_better = pair.ci[1] < 0 and pair.cost_ci[0] > 1
    if not (agent_better or flow_better):
        return None
    t = tables(g, ["agent", pair.workflow])
    both = pd.concat([t.success, t.cost.add_suffix("_cost")], axis=1).dropna().to_numpy(float)
    sign = 1.0 if agent_better else -1.0
    y = sign * (both[:, 0] - both[:, 1])  # success: better - worse
    x = sign * (both[:, 2] - both[:, 3])  # cost per trial: better - worse
    est, low, high = fieller(x, y)
    times = (1 / pair.cost_ratio) if agent_better else pair.cost_ratio
    return Price("agent" if agent_better else pair.workflow, float(np.mean(y)), times, est, float(low), float(high))


def price_columns(p: Price | None) -> dict[str, object]:
    """The criterion.csv columns of a price (empty when there is none)."""
    if p is None:
        return {"price_side": "", "price_extra_success": math.nan, "price_cost_times": math.nan,
                "price_per_success": math.nan, "price_ci_low": math.nan, "price_ci_high": math.nan}
    return {"price_side": p.side, "price_extra_success": p.extra, "price_cost_times": p.times,
            "price_per_success": p.usd, "price_ci_low": p.low, "price_ci_high": p.high}


def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Patterns no other beats on both (success, cost): success at least as high AND cost at most as
    low, one of them strictly. Unknown cost (NaN) never dominates and is never on the front; nor does a
    pattern that never succeeded: the cheapest way to fail is no trade-off anyone would choose. By cost."""
    known = {p: (s, c) for p, (s, c) in points.items() if not math.isnan(c) and s > 0}
    front = [p for p, (s, c) in known.items()
             if not any(s2 >= s and c2 <= c and (s2 > s or c2 < c) for q, (s2, c2) in known.items() if q != p)]
    return sorted(front, key=lambda p: (known[p][1], -known[p][0], p))
