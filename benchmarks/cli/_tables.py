"""Plain-text tables for the terminal (the CLI prints; helpers return strings)."""

from __future__ import annotations

import math

import pandas as pd


def fmt_cost(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def bench_table(summary: pd.DataFrame) -> str:
    """Per task: each pattern's success rate [95% CI], mean cost, p50 latency, mean steps."""
    if summary.empty:
        return "(no trials)"
    lines = []
    for task, g in summary.groupby("task", sort=False):
        lines.append(f"\n{task}")
        lines.append(f"  {'pattern':<18} {'success':>8} {'95% CI':>13} {'cost/trial':>11} {'p50 latency':>12} "
                     f"{'steps':>6}")
        for row in g.sort_values("success_rate", ascending=False).itertuples():
            ci = f"[{row.ci_low:.2f}, {row.ci_high:.2f}]"
            lines.append(f"  {row.pattern:<18} {row.success_rate:>8.0%} {ci:>13} {fmt_cost(row.cost_mean):>11} "
                         f"{row.latency_p50:>11.2f}s {row.steps_mean:>6.1f}")
    return "\n".join(lines).lstrip("\n")
