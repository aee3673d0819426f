"""The learning curve: how many instances' walks it takes before the agent's graph can be drawn.

Per task, drawability (y, with its 95% interval) when the graph is drawn from d instances' walks (x, log
scale: 1, 2, 5, 10, 20, …, as far as the folder's instances allow). The dotted line is the chapter's
threshold; the dashed one is the d at which the criterion reads drawability. A curve that climbs over the
threshold and flattens is a task whose graph a few examples draw; one that stays low, or keeps climbing
with no plateau, is a task whose next step no finite drawing foretells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt

from benchmarks.criterion.drawability import THRESHOLD, D, Drawability
from benchmarks.report.charts.style import finish, short_task

CURVE = "learning_curve.png"
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")


def learning_chart(curves: Mapping[str, Sequence[Drawability]], out: Path) -> Path:
    """`curves`: task -> its learning curve (`drawability.learning_curve`), drawn in the given order."""
    fig, ax = plt.subplots(figsize=(9, 5.2))
    for k, (task, curve) in enumerate(curves.items()):
        points = [c for c in curve if c.value == c.value]  # NaN: too few instances at that d
        if not points:
            continue
        xs, ys = [c.d for c in points], [c.value for c in points]
        err = [[max(0.0, c.value - c.low) for c in points], [max(0.0, c.high - c.value) for c in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", markersize=4, capsize=3, linewidth=1.4,
                    color=COLOURS[k % len(COLOURS)], label=short_task(task))
    ax.axhline(THRESHOLD, color="#444444", linestyle=":", linewidth=1)
    ax.axvline(D, color="#444444", linestyle="--", linewidth=1)
    ax.text(D, 0.02, f"  d = {D}: the criterion's drawability", fontsize=8, va="bottom", color="#444444")
    ax.text(1, THRESHOLD, f"threshold {THRESHOLD:g}", fontsize=8, va="bottom", color="#444444")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.03)
    ax.set_xlabel("instances the graph is drawn from (d, log scale)")
    ax.set_ylabel("drawability: share of unseen instances' walks covered (95% CI)")
    ax.grid(True, alpha=0.25)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    return finish(fig, "The learning curve: how many examples before the agent's graph can be drawn?", out / CURVE,
                  legend_in=0.0)
