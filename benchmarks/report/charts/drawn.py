"""The graph drawn from the agent's walks, per task: as JSON (what the `drawn` comparator runs) and as a
picture, beside the fixed and walked graphs (`graph_<task>.png`).

The drawing is learned from the agent's walks on the folder's seeded drawing set of `D` instances
(`drawability.drawn_graph`, the same instances `benchmarks.studies.drawn` draws from), and drawn as the
workflow it compiles into (`drawability.Drawn`): each box a step offered only its tools, with its bounds;
an arc back is a bounded loop; the answer step is the agent's.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import networkx as nx

from benchmarks.criterion.drawability import Drawing, Drawn, Walk, drawn_graph, graph_size, to_json
from benchmarks.harness.atomic import write_text_atomic
from benchmarks.report.charts.style import footnote, slug
from patterns.tools import ToolSet
from patterns.workflows.graph import draw, figure_size


def drawn_files(task: str) -> tuple[str, str]:
    """(the picture's name, the JSON's name) of a task's drawn graph, beside `graph_<task>.png`."""
    return f"graph_{slug(task)}_drawn.png", f"graph_{slug(task)}_drawn.json"


def drawn_chart(task: str, walks: Mapping[str, Sequence[Walk]], out: Path, seed: int = 0) -> tuple[Path, Path] | None:
    """Learn, save and draw a task's drawing; None when the folder has too few instances with walks."""
    from benchmarks.criterion.drawability import D

    if sum(1 for ws in walks.values() if ws) < D + 2:
        return None
    chosen, drawing = drawn_graph(walks, D, seed)
    picture, data = (out / name for name in drawn_files(task))
    write_text_atomic(data, to_json(drawing))
    graph = Drawn(drawing, tools=ToolSet()).graph
    # matplotlib draws a self-loop as a ring over its neighbours: the box's label says "≤k in a row" instead
    graph.remove_edges_from([(u, v) for u, v in list(graph.edges) if u == v])
    draw_drawing(graph, drawing, task, len(chosen), picture)
    return picture, data


def draw_drawing(graph: nx.DiGraph, drawing: Drawing, task: str, drawn_from: int, path: Path) -> Path:
    size = graph_size(drawing)
    width, height = figure_size(graph)
    fig, ax = plt.subplots(figsize=(max(8.0, width), height + 1.0))
    routes = f"the start routes among {size.routes}; " if size.routes > 1 else ""
    routes += f"{size.dispatches} rules code decides by; " if size.dispatches else ""
    title = (f"drawn from the agent's {drawing.walks} walks on {drawn_from} instances: {size.nodes} steps, "
             f"{size.edges} edges, {size.loops} loops ({routes}at most {size.cap} ways on from a later step)")
    # about 10 characters an inch at the title's size: a long one wraps instead of running off both edges
    draw(graph, ax, title=textwrap.fill(title, width=int(max(8.0, width) * 10)))
    fig.suptitle(f"{task}: the graph drawn from the agent's walks, as a workflow", fontsize=12, fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    footnote(fig)  # a run on the simulator says so
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

