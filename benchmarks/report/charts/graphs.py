"""Chart 8, one figure per task: the comparator workflow's fixed graph above the graph the agent walked.

The walked graph is the union of the agent's runs: a node per tool it called (with how many calls),
an edge per pair of consecutive calls, labelled with how often it was taken (its width says the same
at a glance). A task whose walked graph is a thin line is one a workflow can draw in advance; a
tangle with loops is not. The fixed graph is drawn by `patterns.workflows.draw`; the walked one here,
in the same visual language (boxes coloured by kind), because its layout follows the order of calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import networkx as nx

from benchmarks.criterion.drawability.walks import Round, walked_graph
from benchmarks.report.charts.style import footnote, slug
from patterns.workflows.graph import KIND_COLOURS, draw

INCH_PER_COLUMN, INCH_PER_ROW = 1.5, 0.9  # room for a label like `read_document` and an arrow between


def graph_file(task: str) -> str:
    return f"graph_{slug(task)}.png"


def shortened(graph: nx.DiGraph) -> nx.DiGraph:
    """A copy in which a tool node that offers many tools names two and counts the rest."""
    g = graph.copy()
    for _, d in g.nodes(data=True):
        tools = tuple(d.get("tools") or ())
        if len(tools) > 2 and d.get("label") == ", ".join(tools):
            d["label"] = f"{', '.join(tools[:2])} +{len(tools) - 2} more"
    return g


def walk_positions(graph: nx.DiGraph, walks: Sequence[Sequence[Round]]) -> dict[str, tuple[float, float]]:
    """A tool's column is when the agent first called it (the mean over runs of its first call's index):
    tools called at the same point of different runs (alternatives) share a column, stacked; start is
    the first column and the answer the last."""
    first: dict[str, list[int]] = {}
    for rounds in walks:
        calls = [c for r in rounds for c in r]
        for name in dict.fromkeys(calls):
            first.setdefault(name, []).append(calls.index(name))
    columns: dict[int, list[str]] = {}
    for n in sorted(n for n in graph if n not in ("input", "output")):
        at = first.get(n, [0])
        columns.setdefault(round(sum(at) / len(at)), []).append(n)
    pos = {"input": (0.0, 0.0)}
    for x, (_, names) in enumerate(sorted(columns.items()), start=1):
        pos.update({n: (float(x), (len(names) - 1) / 2 - i) for i, n in enumerate(names)})
    pos["output"] = (float(len(columns) + 1), 0.0)
    return pos


def _extent(pos: dict[str, tuple[float, float]]) -> tuple[int, int]:
    columns = Counter(x for x, _ in pos.values())
    return len(columns), max(columns.values(), default=1)


def draw_walked(graph: nx.DiGraph, pos: dict[str, tuple[float, float]], ax: Any, title: str) -> None:
    top = max((d["count"] for _, _, d in graph.edges(data=True)), default=1)
    for u, v, d in graph.edges(data=True):
        if u == v:  # matplotlib draws a self-loop as a huge ring: the node's label counts the repeats instead
            continue
        # u→v and v→u bend to opposite sides, so a back-and-forth reads as two arrows; a long edge bends
        # less, so that its arc stays as shallow as a short one's and inside the panel
        span = max(1.0, abs(pos[v][0] - pos[u][0]))
        # between tools of one column (a detour from one lookup to another) a shallow arc runs behind the boxes
        # and its count lands on them: bend it out to the side, where the label can be read
        same_column = abs(pos[v][0] - pos[u][0]) < 0.5
        style = "arc3,rad=0.9" if same_column else f"arc3,rad={0.25 / span:.3f}"
        nx.draw_networkx_edges(graph, pos, ax=ax, edgelist=[(u, v)], node_size=2600, node_shape="s",
                               width=0.8 + 7.0 * d["count"] / top, edge_color="#555555", arrowsize=14,
                               connectionstyle=style)
        if d["count"] >= 0.05 * top:  # rare detours stay thin lines: their labels would only clutter
            nx.draw_networkx_edge_labels(graph, pos, {(u, v): str(d["count"])}, ax=ax, font_size=7,
                                         connectionstyle=style, bbox={"fc": "white", "ec": "none", "alpha": 0.8})
    for n, (x, y) in pos.items():
        d = graph.nodes[n]
        kind = d.get("kind", "tool")
        label = str(d.get("label", n)) + (f"\n×{d['calls']} calls" if kind == "tool" else "")
        if graph.has_edge(n, n):  # the same tool again right after itself
            label += f"\n↻ {graph.edges[n, n]['count']} repeats"
        ax.text(x, y, label, ha="center", va="center", fontsize=7.5, zorder=3, color="black",
                bbox={"boxstyle": "round,pad=0.45", "facecolor": KIND_COLOURS.get(kind, "#999999"),
                      "edgecolor": "#333333", "linewidth": 0.6})
    xs, ys = [x for x, _ in pos.values()], [y for _, y in pos.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.9, max(ys) + 0.9)
    ax.set_title(title, fontsize=10)
    ax.axis("off")


def _drawn(path: Any) -> Any:
    """A path's vertices that are drawn: CLOSEPOLY and STOP carry placeholder vertices, never drawn."""
    from matplotlib.path import Path as MplPath

    if path.codes is None:
        return path.vertices
    return path.vertices[(path.codes != MplPath.CLOSEPOLY) & (path.codes != MplPath.STOP)]


def _arc_room(graph: nx.DiGraph | None, column_in: float) -> float:
    """Inches an arc bending away from the rows may need: about a quarter of its length for a loop or an
    optional edge (drawn with a strong bend), nothing for a straight edge."""
    if graph is None:
        return 0.0
    from patterns.workflows.graph import layout

    pos = layout(graph)
    spans = [abs(pos[u][0] - pos[v][0]) for u, v, d in graph.edges(data=True) if d.get("loop") or d.get("optional")]
    return 0.25 * max(spans, default=0.0) * column_in


def fit_arcs(ax: Any, ys: Sequence[float], pad_px: float = 28.0) -> None:
    """Widen the y limits to hold every edge's arc: a loop's arc bends below the nodes and its flat bottom,
    clipped by the axes, would vanish over a long stretch. An arc's bend is set in pixels (it does not
    shrink when the limits grow), so measure it in pixels and solve for the limits that leave it room."""
    for patch in ax.patches:  # whatever the limits end up as, an arc is never cut off
        patch.set_clip_on(False)
    ax.figure.canvas.draw()
    points = [_drawn(p.get_path()) for p in ax.patches]  # data coordinates
    points = [ax.transData.transform(v)[:, 1] for v in points if len(v)]
    if not points or not ys:
        return
    arc_low, arc_high = min(v.min() for v in points), max(v.max() for v in points)
    (_, row_low), (_, row_high) = ax.transData.transform([(0, min(ys)), (0, max(ys))])
    height = ax.bbox.height
    # the pad is measured from the rows' centres or the arcs, whichever reaches further: it must hold half a
    # node's box and clear the panel's title above it
    below = (max(row_low - arc_low, 0.0) + pad_px) / height
    above = (max(arc_high - row_high, 0.0) + pad_px) / height
    if below + above >= 0.9:  # no room to make: leave the limits as they are
        return
    low, high, r0, r1 = *ax.get_ylim(), min(ys), max(ys)
    # the lowest node must sit at least `below` of the axes' height above its bottom and the highest `above`
    # under its top: (r0 - lo) / span >= below, (hi - r1) / span >= above; keep at least the current span
    span = max(high - low, (r1 - r0) / (1 - below - above))
    spare = span - (r1 - r0) - (below + above) * span
    lo = r0 - below * span - spare / 2
    ax.set_ylim(lo, lo + span)


def graphs_chart(task: str, best: str, fixed: nx.DiGraph | None, walks: Sequence[Sequence[Round]], out: Path) -> Path:
    walked = walked_graph(walks)
    pos = walk_positions(walked, walks)
    cols_w, rows_w = _extent(pos)
    if fixed is not None:
        from patterns.workflows.graph import layout  # the drawing's own layout: to size the panel to it

        cols_f, rows_f = _extent(layout(fixed))
    else:
        cols_f, rows_f = 3, 1
    width = min(30.0, max(11.0, INCH_PER_COLUMN * max(cols_f, cols_w)))
    heights = [INCH_PER_ROW * rows_f + 1.4 + _arc_room(fixed, width / (cols_f + 1.2)), INCH_PER_ROW * rows_w + 1.6]
    fig, (upper, lower) = plt.subplots(2, 1, figsize=(width, sum(heights) + 0.8), height_ratios=heights)
    if fixed is not None:
        draw(shortened(fixed), upper, title=f"the comparator workflow, {best}: its graph, fixed in advance")
    else:
        upper.text(0.5, 0.5, f"{best}: graph unavailable (the task family could not be rebuilt)", ha="center",
                   va="center")
        upper.axis("off")
    draw_walked(walked, pos, lower, f"the agent: the tools it called over {len(walks)} runs, in order "
                "(edge label and width = how often taken)")
    fig.suptitle(f"{task}: fixed workflow graph vs the agent's walked graph", fontsize=12, fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    if fixed is not None:
        from patterns.workflows.graph import layout

        fit_arcs(upper, [y for _, y in layout(fixed).values()])
    fit_arcs(lower, [y for _, y in pos.values()])
    path = out / graph_file(task)
    footnote(fig)  # a run on the simulator says so
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
