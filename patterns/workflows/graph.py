"""A workflow's fixed structure as a `networkx.DiGraph`, and a readable drawing of it."""

from __future__ import annotations

from typing import Any

import networkx as nx

# Okabe–Ito colours: distinguishable with every common form of colour blindness.
KIND_COLOURS = {"llm": "#0072B2", "tool": "#E69F00", "code": "#009E73", "io": "#999999"}


def node(graph: nx.DiGraph, node_id: str, kind: str, label: str, **attrs: Any) -> str:
    graph.add_node(node_id, kind=kind, label=label, **attrs)
    return node_id


def connect(graph: nx.DiGraph, sources: list[str], targets: list[str]) -> None:
    for s in sources:
        for t in targets:
            graph.add_edge(s, t)


def graph_of(step: Any, title: str = "") -> nx.DiGraph:
    """input → the step's nodes → output."""
    graph = nx.DiGraph(title=title or getattr(step, "name", ""))
    graph.add_node("input", kind="io", label="input")
    graph.add_node("output", kind="io", label="output")
    entries, exits = step.add_to(graph, "")
    connect(graph, ["input"], entries)
    connect(graph, exits, ["output"])
    return graph


def layout(graph: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Left to right by longest distance from the input; cycles (an agent) are laid out on their DAG."""
    dag = graph.copy()
    dag.remove_edges_from([(u, v) for u, v, loop in graph.edges(data="loop") if loop or u == v])
    while not nx.is_directed_acyclic_graph(dag):  # a cycle not marked as a loop: break it anywhere
        u, v = nx.find_cycle(dag)[-1][:2]
        dag.remove_edge(u, v)
    depth = {n: 0 for n in dag}
    for n in nx.topological_sort(dag):
        for succ in dag.successors(n):
            depth[succ] = max(depth[succ], depth[n] + 1)
    columns: dict[int, list[str]] = {}
    for n, d in depth.items():
        columns.setdefault(d, []).append(n)
    pos = {}
    for d, nodes in columns.items():
        for i, n in enumerate(sorted(nodes)):
            pos[n] = (float(d), (len(nodes) - 1) / 2 - i)
    return pos


def figure_size(graph: nx.DiGraph) -> tuple[float, float]:
    """A figure size that fits the graph's columns and its tallest column."""
    pos = layout(graph)
    columns = max(x for x, _ in pos.values()) + 1
    rows = max(sum(1 for p in pos.values() if p[0] == x) for x in {p[0] for p in pos.values()})
    return max(4.0, 1.7 * columns), max(2.0, 0.8 * rows + 1.2)


def draw(graph: nx.DiGraph, ax: Any = None, *, title: str | None = None, widths: dict[Any, float] | None = None) -> Any:
    """Draw a workflow graph left to right: labelled boxes coloured by kind (llm / tool / code).

    Dashed edges are optional (taken only when the model asks for a tool); `widths` may give an
    edge width per (u, v), e.g. how often an agent walked it.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if ax is None:
        _, ax = plt.subplots(figsize=figure_size(graph))
    pos = layout(graph)
    def group(e: tuple[str, str]) -> str:
        attrs = graph.edges[e]
        return "loop" if attrs.get("loop") else "optional" if attrs.get("optional") else "main"

    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 1.2, max(ys) + 0.6)
    # optional edges (dashed) and loops arc away, to either side, so they don't hide the main path; an arc
    # bulges by rad/2 of its length on screen, so a long loop arcs flatter: just below the lowest box
    x_px, y_px = ax.bbox.width / (max(xs) - min(xs) + 1.2), ax.bbox.height / (max(ys) - min(ys) + 1.8)

    def loop_rad(u: str, v: str) -> float:
        length = max(1e-9, abs(pos[u][0] - pos[v][0]) * x_px)
        return -min(0.5, 2 * (min(pos[u][1], pos[v][1]) - min(ys) + 0.75) * y_px / length)

    styles = [("main", "solid", 0.06, []), ("optional", "dashed", 0.45, [])]
    styles += [("loop", "solid", loop_rad(u, v), [(u, v)]) for u, v in graph.edges if group((u, v)) == "loop"]
    for kind, style, rad, only in styles:
        edges = only or [e for e in graph.edges if group(e) == kind]
        nx.draw_networkx_edges(graph, pos, ax=ax, edgelist=edges, width=[(widths or {}).get(e, 1.2) for e in edges],
                               style=style, arrowsize=12, edge_color="#555555", node_size=2600, node_shape="s",
                               connectionstyle=f"arc3,rad={rad}")
    labels = {e: text for e, text in nx.get_edge_attributes(graph, "label").items() if group(e) == "main"}
    nx.draw_networkx_edge_labels(graph, pos, ax=ax, edge_labels=labels, font_size=6.5, rotate=False,
                                 bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"})
    for n, (x, y) in pos.items():
        kind = graph.nodes[n].get("kind", "code")
        colour = KIND_COLOURS.get(kind, "#999999")
        flagged = bool(graph.nodes[n].get("agent_like"))  # an agent-like step (choices.py): outlined in vermillion
        ax.text(x, y, _wrap(str(graph.nodes[n].get("label", n))), ha="center", va="center", fontsize=7.5,
                color="white" if kind == "llm" else "black", zorder=3,
                bbox={"boxstyle": "round,pad=0.45", "facecolor": colour,
                      "edgecolor": "#D55E00" if flagged else "#333333", "linewidth": 2.4 if flagged else 0.6})
    ax.set_title(title if title is not None else graph.graph.get("title", ""), fontsize=10)
    ax.legend(handles=[Patch(color=c, label=k) for k, c in KIND_COLOURS.items() if k != "io"],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7, frameon=False)
    ax.axis("off")
    return ax


def _wrap(text: str, width: int = 14) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    lines.append(line)
    return "\n".join(lines[:4])
