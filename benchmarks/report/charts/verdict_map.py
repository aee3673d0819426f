"""The verdict map: a family's verdict over a grid of two sweep axes (task parameters or SimModel knobs).

One cell per sweep point (`sweep.csv`), coloured by the verdict read from that point's criterion.csv,
labelled with the verdict and agent − workflow success; x is the sweep's first axis, y its second
(one row for a one-axis sweep), in the order the values were given. It shows under which
assumptions the agent pays off and where the verdict flips.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch

from benchmarks.report.charts.criterion_map import VERDICT_COLOURS
from benchmarks.report.charts.style import finish

MAP = "verdict_map.png"
UNKNOWN = "#DDDDDD"


def _text(value: object) -> str:
    """A value as it was written (`0`, not the `0.0` a CSV reader makes of it)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if pd.isna(value) else str(value)  # type: ignore[call-overload]


def _axis(sweep: pd.DataFrame, column: str) -> list[str]:
    return list(dict.fromkeys(_text(v) for v in sweep[column]))


def verdict_grid(sweep: pd.DataFrame) -> tuple[list[str], list[str], dict[tuple[str, str], tuple[str, float]]]:
    """(x values, y values, {(x, y): (verdict, success_diff)}) from a sweep table."""
    table = sweep.copy()
    if "by_value" not in table or table["by_value"].isna().all():
        table["by_value"] = ""
    xs, ys = _axis(table, "value"), _axis(table, "by_value")
    cells = {(_text(r.value), _text(r.by_value)): (str(r.verdict), float(r.success_diff)) for r in table.itertuples()}
    return xs, ys, cells


def familywise_cells(sweep: pd.DataFrame) -> set[tuple[str, str]] | None:
    """The cells whose winner stands familywise (Holm over the map's cells: `verdict_familywise`, which
    `benchmarks.studies.sweep` computes across them); None for a sweep table without that column."""
    if "verdict_familywise" not in sweep or sweep["verdict_familywise"].isna().all():
        return None
    by = sweep["by_value"] if "by_value" in sweep else pd.Series([""] * len(sweep), index=sweep.index)
    return {(_text(r.value), _text(b)) for r, b in zip(sweep.itertuples(), by, strict=True)
            if str(r.verdict) in ("workflow", "agent") and str(r.verdict_familywise) == str(r.verdict)}


def verdict_map(sweep: pd.DataFrame, out: Path) -> Path:
    xs, ys, cells = verdict_grid(sweep)
    holm = familywise_cells(sweep)
    param = str(sweep["param"].iloc[0])
    by = str(sweep["by"].iloc[0]) if "by" in sweep and isinstance(sweep["by"].iloc[0], str) else ""
    task = str(sweep["task"].iloc[0]).split(":")[0] if "task" in sweep else ""
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(xs) + 2), max(2.6, 1.0 * len(ys) + 1.8)))
    for i, x in enumerate(xs):
        for j, y in enumerate(ys):
            verdict, diff = cells.get((x, y), ("", float("nan")))
            ax.add_patch(plt.Rectangle((i, j), 1, 1, facecolor=VERDICT_COLOURS.get(verdict, UNKNOWN),
                                       edgecolor="#444444", linewidth=1))
            mark = verdict + ("*" if holm is not None and (x, y) in holm else "")
            text = "not run" if not verdict else mark if pd.isna(diff) else f"{mark}\n{diff:+.2f}"
            dark = verdict in ("workflow", "agent")
            ax.text(i + 0.5, j + 0.5, text, ha="center", va="center", fontsize=9,
                    color="white" if dark else "#222222")
    ax.set_xlim(0, len(xs))
    ax.set_ylim(0, len(ys))
    ax.set_xticks([i + 0.5 for i in range(len(xs))], xs)
    ax.set_yticks([j + 0.5 for j in range(len(ys))], ys if by else [""])
    ax.set_xlabel(param)
    ax.set_ylabel(by)
    legend = [Patch(facecolor=c, edgecolor="#444444", label=v) for v, c in VERDICT_COLOURS.items()]
    fig.legend(handles=legend, loc="lower center", ncol=len(legend), fontsize=8, frameon=False)
    title = f"Verdict map{': ' + task if task else ''}\n(each cell: the verdict, agent − workflow success)"
    if holm is not None:
        title += "\n* the winner stands familywise (Holm over the map's cells, 5% in all)"
    return finish(fig, title, out / MAP, legend_in=0.45)
