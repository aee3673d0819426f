"""Charts 1 and 2: what each pattern's success costs — in dollars, and in waiting — per task."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from benchmarks.report.charts.style import (
    colour,
    finish,
    log_axis,
    marker,
    ordered,
    panels,
    pattern_legend,
    seconds,
    short_task,
    usd,
)

COST, LATENCY = "cost_vs_success.png", "latency_vs_success.png"


def front(points: pd.DataFrame, x: str) -> pd.DataFrame:
    """The Pareto front (lower x, higher success), sorted by x: each point beats every cheaper one."""
    pts = points.dropna(subset=[x]).sort_values([x, "success_rate"], ascending=[True, False])
    keep, best = [], -math.inf
    for row in pts.itertuples():
        if row.success_rate > best:
            keep.append(row.Index)
            best = row.success_rate
    return pts.loc[keep]


def _draw(summary: pd.DataFrame, x: str, xlabel: str, title: str, path: Path, fmt: Callable[[float], str]) -> Path:
    tasks = list(dict.fromkeys(summary["task"]))
    fig, axes = panels(len(tasks))
    for ax, task in zip(axes, tasks, strict=True):
        g = summary[summary["task"] == task].set_index("pattern")
        for p in ordered(g.index):
            r = g.loc[p]
            if pd.isna(r[x]) or r[x] <= 0:
                continue  # unknown cost: no honest place on a dollar axis
            yerr = [[max(0.0, r.success_rate - r.ci_low)], [max(0.0, r.ci_high - r.success_rate)]]  # float noise
            ax.errorbar(r[x], r.success_rate, yerr=yerr, fmt=marker(p), color=colour(p), markersize=9 if p ==
                        "agent" else 7, capsize=3, elinewidth=1, zorder=3)
        f = front(g.reset_index().set_index("pattern"), x)
        if len(f) > 1:
            ax.plot(f[x], f["success_rate"], linestyle="--", color="#555555", linewidth=1, zorder=2,
                    drawstyle="steps-post")
        if len(f):
            ax.scatter(f[x], f["success_rate"], s=220, facecolors="none", edgecolors="#555555", linewidths=1,
                       zorder=2)
        log_axis(ax, g[x], fmt)
        ax.set_ylim(-0.05, 1.08)
        ax.set_title(short_task(task), fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("success rate (95% CI, clustered by instance)")
        ax.grid(True, which="major", alpha=0.3)
    pattern_legend(fig, summary["pattern"])
    return finish(fig, title, path)


def cost_chart(summary: pd.DataFrame, out: Path) -> Path:
    return _draw(summary, "cost_mean", "mean cost per trial (USD, log scale)",
                 "Cost vs success per task — ringed, on the dashed line: the Pareto front (nothing is both cheaper\n"
                 "and more successful)", out / COST, usd)


def latency_chart(summary: pd.DataFrame, out: Path) -> Path:
    return _draw(summary, "latency_p50", "median latency per trial (s, log scale)",
                 "Latency vs success per task — ringed, on the dashed line: the Pareto front (nothing is both "
                 "faster\nand more successful)", out / LATENCY, seconds)
