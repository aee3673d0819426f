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
from matplotlib.ticker import FixedFormatter, FixedLocator, NullFormatter
from matplotlib.transforms import blended_transform_factory

from benchmarks.criterion.drawability import THRESHOLD, D, Drawability
from benchmarks.report.charts.style import finish, short_task

CURVE = "learning_curve.png"
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")


def learning_chart(curves: Mapping[str, Sequence[Drawability]], out: Path) -> Path:
    """`curves`: task -> its learning curve (`drawability.learning_curve`), drawn in the given order. The reference
    lines' labels sit outside the plot (the threshold's in the right margin, d's above the top), where no curve can
    run under them; each d's tick says how many unseen instances were left to test on, which is why the bars widen
    to the right."""
    fig, ax = plt.subplots(figsize=(9, 5.8))
    unseen: dict[int, set[int]] = {}
    unmeasured = []
    for k, (task, curve) in enumerate(curves.items()):
        points = [c for c in curve if c.value == c.value]  # NaN: too few instances, or not measured (no repeats)
        if not points:
            unmeasured.append(short_task(task))
            continue
        for c in points:
            unseen.setdefault(c.d, set()).add(c.instances - c.d)
        xs, ys = [c.d for c in points], [c.value for c in points]
        err = [[max(0.0, c.value - c.low) for c in points], [max(0.0, c.high - c.value) for c in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", markersize=4, capsize=3, linewidth=1.4,
                    color=COLOURS[k % len(COLOURS)], label=short_task(task))
    edge = blended_transform_factory(ax.transAxes, ax.transData)
    ax.axhline(THRESHOLD, color="#444444", linestyle=":", linewidth=1)
    ax.text(1.01, THRESHOLD, f"threshold\n{THRESHOLD:g}", transform=edge, fontsize=8, va="center", color="#444444")
    ax.axvline(D, color="#444444", linestyle="--", linewidth=1)
    ax.text(D, 1.01, f"d = {D}: the criterion's drawability", transform=blended_transform_factory(
        ax.transData, ax.transAxes), fontsize=8, ha="center", va="bottom", color="#444444")
    if unmeasured:  # a curve missing says why, not just nothing (docs/drawability.md: "not measured")
        ax.text(0.5, 0.02, "not measured (too few instances, or one trial each): " + ", ".join(unmeasured),
                transform=ax.transAxes, ha="center", va="bottom", fontsize=8, color="#444444", wrap=True)
    if not unseen:
        ax.set_ylim(0, 1.03)
        ax.set_xticks([])
        return finish(fig, "The learning curve: how many examples before the agent's graph can be drawn?",
                      out / CURVE, legend_in=0.1)
    ax.set_xscale("log")
    ds = sorted(unseen)
    ax.xaxis.set_major_locator(FixedLocator(ds))
    ax.xaxis.set_major_formatter(FixedFormatter([f"{d}\n{_span(unseen[d])} unseen" for d in ds]))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelsize=8)
    ax.set_ylim(0, 1.03)
    ax.set_xlabel("instances the graph is drawn from (d, log scale); under each, the unseen instances left to test\n"
                  "it on: the fewer they are, the wider the interval (at the largest d, a few are left)")
    ax.set_ylabel("drawability: share of unseen instances' walks covered (95% CI)")
    ax.grid(True, alpha=0.25)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=4, fontsize=8, frameon=False)
    return finish(fig, "The learning curve: how many examples before the agent's graph can be drawn?", out / CURVE,
                  legend_in=0.1)


def _span(values: set[int]) -> str:
    return f"{min(values)}" if len(values) == 1 else f"{min(values)}–{max(values)}"
