"""Chart 6: the criterion map — the chapter's rule as regions, each task (and sweep setting) as a point.

x: drawability — the share of unseen instances' agent walks that the graph drawn from ten other instances
covers — with its interval; y: agent minus comparator success, with the interval the verdict read; point
area: cost ratio (workflow / agent). The rule expects drawable tasks (right of the threshold) at or below
zero — a workflow is as good — and the others (left) above zero — the agent is better. Points in the
white quadrants contradict it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from benchmarks.report.charts.style import PATTERN_COLOURS, finish

MAP = "criterion_map.png"
VERDICT_COLOURS = {"workflow": PATTERN_COLOURS["chain"], "agent": PATTERN_COLOURS["agent"], "either": "#999999",
                   "inconclusive": "white"}
EXPECT_WORKFLOW, EXPECT_AGENT = "#DCEBF7", "#FBE3D3"  # pale blue / pale vermillion
# where a label may sit relative to its point (offset in points, alignment), tried in this order
OFFSETS = [((10, 8), "left"), ((-10, 8), "right"), ((10, -16), "left"), ((-10, -16), "right"),
           ((0, 16), "center"), ((0, -26), "center"), ((14, -4), "left"), ((-14, -4), "right"),
           ((22, 18), "left"), ((-22, 18), "right"), ((22, -28), "left"), ((-22, -28), "right"),
           ((0, 30), "center"), ((0, -40), "center"),
           # farther out, with a leader line: where tasks crowd near drawability 1 the nearer ones are taken
           ((-45, 34), "right"), ((-45, -44), "right"), ((-70, 8), "right"), ((-70, -20), "right"),
           ((-45, 56), "right"), ((-45, -66), "right")]


@dataclass
class Point:
    x: float
    y: float
    low: float
    high: float
    area: float
    x_low: float
    x_high: float
    marker: str
    colour: str
    edge: str
    label: str


def _area(ratio: float) -> float:
    return float(40 + 260 * np.clip(0.0 if pd.isna(ratio) else ratio, 0.0, 3.0))


def _get(r: Any, name: str) -> float:
    """A column an older criterion.csv may lack (then NaN: no bar drawn)."""
    value = getattr(r, name, np.nan)
    return float(value) if not pd.isna(value) else np.nan


def _with_x(df: pd.DataFrame) -> pd.DataFrame:
    """The rows that can be placed: a drawability and a difference (an older table without the column: none)."""
    if "drawability" not in df:
        return df.iloc[0:0].assign(drawability=np.nan)
    return df.dropna(subset=["drawability", "success_diff"])


def points_of(criterion: pd.DataFrame, sweep: pd.DataFrame | None) -> list[Point]:
    """Task points, then sweep points; a sweep setting that IS a task of the bench (same label, same
    place) is drawn once, labelled with both names."""
    pts: list[Point] = []
    for r in _with_x(criterion).itertuples():
        pts.append(Point(r.drawability, r.success_diff, r.diff_ci_low, r.diff_ci_high, _area(r.cost_ratio),
                         _get(r, "drawability_ci_low"), _get(r, "drawability_ci_high"), "o",
                         VERDICT_COLOURS.get(r.verdict, "white"), "black", r.task))
    if sweep is None or sweep.empty:
        return pts
    for r in _with_x(sweep).itertuples():
        name = f"{r.param}={r.value}"
        same = next((p for p in pts if p.label == r.task and abs(p.x - r.drawability) < 0.02
                     and abs(p.y - r.success_diff) < 0.02), None)
        if same is not None:
            same.label = f"{r.task} ({name})"
            continue
        pts.append(Point(r.drawability, r.success_diff, r.diff_ci_low, r.diff_ci_high, _area(r.cost_ratio),
                         _get(r, "drawability_ci_low"), _get(r, "drawability_ci_high"), "D",
                         VERDICT_COLOURS.get(r.verdict, "white"), "#444444", name))
    return pts


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _label(ax: Any, p: Point, offset: tuple[int, int], ha: str, leader: bool = False) -> Any:
    """A point's label at `offset`; `leader`: with a thin line to its point, so that a label pushed away by its
    neighbours (tasks crowded near drawability 1) is never read as another point's."""
    arrow = {"arrowstyle": "-", "color": "#777777", "lw": 0.6, "shrinkA": 0, "shrinkB": 3} if leader else None
    return ax.annotate(p.label, (p.x, p.y), xytext=offset, textcoords="offset points", ha=ha, fontsize=8, zorder=5,
                       bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
                       arrowprops=arrow)


def _obstacles(ax: Any, p: Point, px: float) -> list[tuple[float, ...]]:
    """A point's marker and its two error bars (caps included), in display pixels: no label may sit on them."""
    x, y = ax.transData.transform((p.x, p.y))
    r, cap = np.sqrt(p.area) / 2 * px, 4 * px
    boxes = [(x - r, y - r, x + r, y + r)]
    if not np.isnan(p.low):
        (_, y0), (_, y1) = ax.transData.transform([(p.x, p.low), (p.x, p.high)])
        boxes.append((x - cap, min(y0, y1), x + cap, max(y0, y1)))
    if not np.isnan(p.x_low):
        (x0, _), (x1, _) = ax.transData.transform([(p.x_low, p.y), (p.x_high, p.y)])
        boxes.append((min(x0, x1), y - cap, max(x0, x1), y + cap))
    return boxes


def place_labels(ax: Any, pts: list[Point]) -> None:
    """Greedy: each label takes the first offset whose box — measured as drawn, its white pad included — hits
    no earlier label, marker, error bar or the axes edge; where every offset hits something, the one inside the
    axes that hits the fewest (a label cut by the edge is unreadable)."""
    px = ax.figure.dpi / 72
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [box for p in pts for box in _obstacles(ax, p, px)]
    for p in sorted(pts, key=lambda q: (q.x, q.y)):
        hits: dict[tuple[tuple[int, int], str], int] = {}  # offsets inside the axes -> labels and markers hit
        boxes = {}
        for offset, ha in OFFSETS:
            text = _label(ax, p, offset, ha)
            e = text.get_window_extent(renderer)
            text.remove()
            box = (e.x0 - 2 * px, e.y0 - 2 * px, e.x1 + 2 * px, e.y1 + 2 * px)
            if frame.x0 <= box[0] and box[2] <= frame.x1 and frame.y0 <= box[1] and box[3] <= frame.y1:
                hits[offset, ha], boxes[offset, ha] = sum(_overlaps(box, t) for t in taken), box
                if not hits[offset, ha]:
                    break
        choice = min(hits, key=hits.__getitem__) if hits else OFFSETS[0]
        if choice in boxes:
            taken.append(boxes[choice])
        _label(ax, p, *choice, leader=choice != OFFSETS[0])


def criterion_map(criterion: pd.DataFrame, out: Path, sweep: pd.DataFrame | None = None,
                  threshold: float | None = None) -> Path:
    from benchmarks.criterion.drawability import THRESHOLD, D

    threshold = THRESHOLD if threshold is None else threshold
    fig, ax = plt.subplots(figsize=(10, 7))
    pts = points_of(criterion, sweep)
    top = float(min(1.05, max([0.3, *[max(abs(p.low), abs(p.high)) + 0.1 for p in pts if not np.isnan(p.low)]])))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-top, top)
    ax.axvspan(threshold, 1.02, ymin=0, ymax=0.5, color=EXPECT_WORKFLOW, zorder=0)
    ax.axvspan(-0.02, threshold, ymin=0.5, ymax=1, color=EXPECT_AGENT, zorder=0)
    ax.axhline(0, color="#444444", linewidth=1)
    ax.axvline(threshold, color="#444444", linewidth=1, linestyle="--")
    ax.text(1.0, -top * 0.95, "rule expects: workflow\n(the graph can be drawn; agent no better)", ha="right",
            va="bottom", fontsize=9, color="#1f4e79")
    ax.text(0.0, top * 0.95, "rule expects: agent\n(no graph covers the walks; agent better)", ha="left", va="top",
            fontsize=9, color="#8a3200")
    sweep_pts = [p for p in pts if p.marker == "D"]
    if len(sweep_pts) > 1:
        ax.plot([p.x for p in sweep_pts], [p.y for p in sweep_pts], color="#777777", linewidth=1, linestyle=":",
                zorder=2)
    for p in pts:
        # an interval need not contain the point estimate exactly (a selection-proof one, a percentile one):
        # clip, never a negative bar
        xerr = None if np.isnan(p.x_low) else [[max(0.0, p.x - p.x_low)], [max(0.0, p.x_high - p.x)]]
        ax.errorbar(p.x, p.y, yerr=[[max(0.0, p.y - p.low)], [max(0.0, p.high - p.y)]], xerr=xerr, fmt="none",
                    ecolor="#444444", elinewidth=1, capsize=3, zorder=3)
        ax.scatter(p.x, p.y, s=p.area, marker=p.marker, color=p.colour, edgecolors=p.edge, linewidths=1.2, zorder=4)
    ax.set_xlabel(f"drawability (95% CI): unseen instances' walks a graph drawn from {D} others covers; "
                  f"threshold {threshold:g}")
    ax.set_ylabel("agent − comparator workflow success (the interval the verdict read, by instance)")
    ax.grid(True, alpha=0.25)
    present = {p.colour for p in pts}  # the legend names what the map shows, nothing more
    verdicts = [Patch(facecolor=c, edgecolor="black", label=f"verdict: {v}") for v, c in VERDICT_COLOURS.items()
                if c in present]
    sizes = [Line2D([], [], marker="o", linestyle="none", markerfacecolor="white", markeredgecolor="black",
                    markersize=np.sqrt(_area(r)), label=f"area: cost ratio {r:g}") for r in (0.25, 1.0, 2.0)]
    shapes = [Line2D([], [], marker="o", linestyle="none", color="black", label="task"),
              Line2D([], [], marker="D", linestyle=":", color="#777777", label="sweep setting")] \
        if sweep_pts else []  # one kind of point needs no key
    ax.legend(handles=verdicts + sizes + shapes, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8,
              frameon=False, labelspacing=1.2, title="cost ratio = workflow / agent", title_fontsize=8)
    fig.suptitle(" ", fontsize=12)  # the geometry `finish` will give, first: labels are placed in pixels
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_size_inches()[1]))
    place_labels(ax, pts)
    return finish(fig, "The criterion map: does drawability foretell whether the agent pays off?",
                  out / MAP, legend_in=0.0)
