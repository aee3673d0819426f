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


def _layout(graph: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Left to right by longest distance from the input; cycles (an agent) are laid out on their DAG."""
    dag = graph.copy()
    for cycle in list(nx.simple_cycles(dag)):
        if len(cycle) > 1 and dag.has_edge(cycle[-1], cycle[0]):
            dag.remove_edge(cycle[-1], cycle[0])
    dag.remove_edges_from([(u, v) for u, v in dag.edges if u == v])
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


def draw(graph: nx.DiGraph, ax: Any = None, *, title: str | None = None, widths: dict[Any, float] | None = None) -> Any:
    """Draw a workflow graph: nodes coloured by kind (llm / tool / code), labelled, left to right."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 1.6 * len(graph)), 3.2))
    pos = _layout(graph)
    colours = [KIND_COLOURS.get(graph.nodes[n].get("kind", "code"), "#999999") for n in graph]
    edge_widths = [(widths or {}).get((u, v), 1.5) for u, v in graph.edges]
    styles = ["dashed" if graph.edges[e].get("optional") else "solid" for e in graph.edges]
    nx.draw_networkx_edges(graph, pos, ax=ax, width=edge_widths, style=styles, arrowsize=14,
                           edge_color="#444444", node_size=1800, connectionstyle="arc3,rad=0.08")
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=colours, node_size=1800, alpha=0.9)
    labels = {n: _wrap(str(graph.nodes[n].get("label", n))) for n in graph}
    nx.draw_networkx_labels(graph, pos, labels, ax=ax, font_size=7, font_color="black")
    ax.set_title(title if title is not None else graph.graph.get("title", ""), fontsize=10)
    ax.legend(handles=[Patch(color=c, label=k) for k, c in KIND_COLOURS.items() if k != "io"],
              loc="lower center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=7, frameon=False)
    ax.axis("off")
    ax.margins(0.15)
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
    return "\n".join(lines[:3])
