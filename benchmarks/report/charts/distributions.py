"""Charts 3 and 5: how many steps a trial took, and how trials ended, per pattern and task."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from benchmarks.report.charts.style import colour, finish, ordered, panels, pattern_legend, short_task

STEPS, TERMINALS = "steps.png", "terminals.png"
# How a trial ended: a completed run is split by whether its answer was right. Okabe–Ito again, but
# on its own axis (bars per pattern), with its own legend; the order is best to worst.
OUTCOMES = {
    "completed, correct": "#009E73", "completed, wrong": "#F0E442", "max_steps": "#E69F00", "budget": "#CC79A7",
    "timeout": "#56B4E9", "error": "#D55E00", "refusal": "#000000", "aborted": "#999999",
}


def steps_chart(runs: pd.DataFrame, out: Path) -> Path:
    tasks = list(dict.fromkeys(runs["task"]))
    fig, axes = panels(len(tasks))
    rng = np.random.default_rng(0)  # jitter only: the same picture every time
    for ax, task in zip(axes, tasks, strict=True):
        g = runs[runs["task"] == task]
        pats = ordered(g["pattern"])
        data = [g.loc[g["pattern"] == p, "steps"].to_numpy(dtype=float) for p in pats]
        box = ax.boxplot(data, positions=range(len(pats)), widths=0.6, patch_artist=True, showfliers=False,
                         medianprops={"color": "black"})
        for patch, p in zip(box["boxes"], pats, strict=True):
            patch.set_facecolor(colour(p))
            patch.set_alpha(0.35)
        for i, (p, d) in enumerate(zip(pats, data, strict=True)):
            ax.scatter(i + rng.uniform(-0.18, 0.18, len(d)), d + rng.uniform(-0.12, 0.12, len(d)), s=9,
                       color=colour(p), alpha=0.6, zorder=3, linewidths=0)
        ax.set_xticks(range(len(pats)), [p.replace("_", "/\n") if len(p) > 11 else p for p in pats], rotation=35,
                      ha="right", fontsize=8)
        ax.set_ylabel("model calls per trial (steps)")
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(short_task(task), fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    pattern_legend(fig, runs["pattern"])
    return finish(fig, "Steps per trial — box: quartiles and median; dots: every trial (jittered)", out / STEPS)


def outcome_of(row: pd.Series) -> str:
    if row["terminal"] == "completed":
        return "completed, correct" if bool(row["success"]) else "completed, wrong"
    return str(row["terminal"])


def terminals_chart(runs: pd.DataFrame, out: Path) -> Path:
    tasks = list(dict.fromkeys(runs["task"]))
    runs = runs.assign(outcome=runs.apply(outcome_of, axis=1))
    seen = [o for o in OUTCOMES if o in set(runs["outcome"])] + sorted(set(runs["outcome"]) - set(OUTCOMES))
    fig, axes = panels(len(tasks))
    for ax, task in zip(axes, tasks, strict=True):
        g = runs[runs["task"] == task]
        pats = ordered(g["pattern"])
        share = pd.crosstab(g["pattern"], g["outcome"], normalize="index").reindex(index=pats, columns=seen,
                                                                                    fill_value=0.0)
        bottom = np.zeros(len(pats))
        for o in seen:
            ax.bar(range(len(pats)), share[o], bottom=bottom, color=OUTCOMES.get(o, "#777777"), label=o,
                   edgecolor="white", linewidth=0.5)
            bottom += share[o].to_numpy()
        ax.set_xticks(range(len(pats)), [p.replace("_", "/\n") if len(p) > 11 else p for p in pats], rotation=35,
                      ha="right", fontsize=8)
        for tick, p in zip(ax.get_xticklabels(), pats, strict=True):
            tick.set_color(colour(p) if p != "single" else "black")
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of trials")
        ax.set_title(short_task(task), fontsize=10)
    handles = [Patch(color=OUTCOMES.get(o, "#777777"), label=o) for o in seen]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 8), frameon=False, fontsize=9,
               title="how the trial ended", title_fontsize=9)
    return finish(fig, "How trials ended, per pattern (terminal reason; a completed run split by its grade)",
                  out / TERMINALS)
