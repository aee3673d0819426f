"""What every chart shares: one colour and marker per pattern, panel grids, saving.

Okabe–Ito colours stay distinguishable with every common form of colour blindness; each pattern
also has its own marker, so a chart printed in grey still tells them apart. The SAME colour means
the same pattern in every chart of a report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from benchmarks.names import PATTERNS
from benchmarks.report.origin import SIM_NOTE

PATTERN_COLOURS = {
    "single": "#000000",  # black
    "chain": "#0072B2",  # blue
    "route": "#009E73",  # bluish green
    "orchestrate": "#CC79A7",  # reddish purple
    "parallel": "#56B4E9",  # sky blue
    "evaluate_optimize": "#E69F00",  # orange
    "agent": "#D55E00",  # vermillion: the one every chart compares against
}
PATTERN_MARKERS = {"single": "o", "chain": "s", "route": "^", "orchestrate": "D", "parallel": "v",
                   "evaluate_optimize": "P", "agent": "*"}
OTHER = "#999999"  # a pattern of the user's own, not in the table


def colour(pattern: str) -> str:
    return PATTERN_COLOURS.get(pattern, OTHER)


def marker(pattern: str) -> str:
    return PATTERN_MARKERS.get(pattern, "X")


def ordered(patterns: Iterable[str]) -> list[str]:
    """Patterns in the canonical order (the agent last), unknown ones after, alphabetically."""
    present = set(patterns)
    return [p for p in PATTERNS if p in present] + sorted(present - set(PATTERNS))


def slug(text: str) -> str:
    """A task label as a file-name part: `multihop:hops=1-6` -> `multihop_hops-1-6`."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text.replace("=", "-")).strip("_") or "task"


def panels(n: int, *, width: float = 4.6, height: float = 3.6, ncols: int = 3, **kwargs: Any) -> tuple[Any, list[Any]]:
    """A figure with one panel per task (at most `ncols` a row); unused panels hidden."""
    cols = max(1, min(ncols, n))
    rows = max(1, math.ceil(n / cols))
    width = max(width, 11.0 / cols)  # room for the title and the legend even with one panel
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows + 1.3), squeeze=False, **kwargs)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def pattern_legend(fig: Any, patterns: Iterable[str], *, lines: bool = False) -> None:
    """One legend for the whole figure, below the panels, in the canonical pattern order."""
    handles = [Line2D([], [], color=colour(p), marker=marker(p), linestyle="-" if lines else "none", markersize=8,
                      label=p) for p in ordered(patterns)]
    fig.legend(handles=handles, loc="lower center", ncol=min(7, len(handles)), frameon=False, fontsize=9,
               title="pattern", title_fontsize=9)


CAVEAT: ContextVar[str | None] = ContextVar("caveat", default=None)  # set by `draw_all` for the whole report
SIMULATED: ContextVar[bool] = ContextVar("simulated", default=False)  # figures of the simulator: every chart says so
NOTE: ContextVar[str] = ContextVar("note", default=SIM_NOTE)  # whose: `sim`, or a replay of its or an oracle's


def footnote(fig: Any) -> None:
    """Along the bottom edge: the caveat set for the report (the simulator on a user's dataset), in red, or for
    any other run on the simulated model, that it was made on the simulator (`draw_all` sets both)."""
    if CAVEAT.get():
        fig.text(0.01, 0.005, "Simulator on a user's own dataset: these success figures measure nothing about "
                 "quality (use a real model or a recorded cassette).", fontsize=8, color="#b2182b", ha="left",
                 va="bottom")
    elif SIMULATED.get():
        fig.text(0.99, 0.005, NOTE.get(), fontsize=7, color="#555555", ha="right", va="bottom")


def sim_subtitle(fig: Any, title: str) -> float:
    """For a chart with a legend along its bottom: the sim note under the title instead (it would cross the
    legend there); returns the inches it takes."""
    if CAVEAT.get() or not SIMULATED.get():
        return 0.0
    height = fig.get_size_inches()[1]
    fig.text(0.5, 1 - (0.42 + 0.2 * title.count("\n")) / height, NOTE.get(), fontsize=8, color="#555555",
             ha="center", va="top")
    return 0.2


def finish(fig: Any, title: str, path: Path, *, legend_in: float = 0.75) -> Path:
    """Title, `legend_in` inches below the panels for the legend, save as PNG, close the figure. A caveat set
    for the report (the simulator on a user's dataset) is printed along the bottom edge, in red."""
    fig.suptitle(title, fontsize=12, fontweight="bold")
    if CAVEAT.get():
        footnote(fig)
    below_title = sim_subtitle(fig, title)
    height = fig.get_size_inches()[1]
    top = 1 - (0.45 + 0.2 * title.count("\n") + below_title) / height
    fig.tight_layout(rect=(0, legend_in / height, 1, top))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def log_axis(ax: Any, values: Iterable[float], fmt: Any) -> None:
    """A log x axis labelled at 1-2-5 steps inside the data's range (matplotlib's own minor labels
    collide when the data span less than a decade)."""
    vals = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not vals:  # nothing positive to place (every cost 0): a log axis would have no range
        return
    lo, hi = min(vals) / 1.6, max(vals) * 1.6
    ax.set_xlim(lo, hi)  # before the log scale: one point alone would give it identical limits to transform
    ax.set_xscale("log")
    ticks = [m * 10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
             for m in (1, 2, 5) if lo <= m * 10.0**e <= hi]
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_locator(FixedLocator(fitting_ticks(ax, ticks, fmt, lo, hi)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt(v)))
    ax.xaxis.set_minor_formatter(NullFormatter())


def fitting_ticks(ax: Any, ticks: list[float], fmt: Any, lo: float, hi: float) -> list[float]:
    """The most of the 1-2-5 ticks whose labels fit side by side in the axes' width: all of them, else the 1s and 5s,
    else the decades, else every other decade (a label's width is estimated from its characters at the tick font)."""
    points = ax.get_position().width * ax.figure.get_figwidth() * 72
    size = FontProperties(size=plt.rcParams["xtick.labelsize"]).get_size_in_points()
    span = math.log10(hi) - math.log10(lo)

    def fits(chosen: list[float]) -> bool:
        at = [(math.log10(t) - math.log10(lo)) / span * points for t in chosen]
        half = [sum(0.15 if c in ".," else 0.32 for c in fmt(t)) * size for t in chosen]  # digits 0.64 em, dots 0.3
        return all(at[i + 1] - at[i] >= half[i] + half[i + 1] + 0.3 * size for i in range(len(chosen) - 1))

    def lead(t: float) -> int:
        return round(t / 10.0 ** math.floor(math.log10(t) + 1e-9))

    decades = [t for t in ticks if lead(t) == 1]
    for chosen in (ticks, [t for t in ticks if lead(t) in (1, 5)], decades, decades[::2]):
        if len(chosen) >= 2 and fits(chosen):
            return chosen
    return decades[::2] or ticks[:1]


def usd(v: float) -> str:
    return f"${v:.{max(0, -math.floor(math.log10(v)))}f}" if v < 1 else f"${v:g}"


def seconds(v: float) -> str:
    return f"{v:g} s"


def short_task(task: str, width: int = 34) -> str:
    return task if len(task) <= width else task[: width - 1] + "…"
