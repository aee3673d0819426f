"""The graph an engineer would draw from some walks, and whether a walk fits it.

Learned from the walks of a drawing set (`learn_graph`):
- **nodes** are round labels (the set of tools called in a round), plus `start` and `end`;
- **edges** are the transitions seen between consecutive stretches of different labels, from `start`
  to the first and from the last to `end` (a walk with no round goes `start → end`);
- **a repeated round is a bounded loop**: a label seen several rounds in a row gets a self-loop whose
  bound is the largest such count seen; a node a walk comes back to after other steps (fix → check →
  fix) may be visited at most as many times as the most any drawing walk did, so every cycle of the
  drawing is bounded too;
- **rare edges are dropped**: an edge (a self-loop included) taken by fewer than `min_share` of the
  drawing walks (default `MIN_SHARE`, 5 %: with 30 walks, one walk alone is a detour, two are a path);
- **each node keeps at most `cap` out-edges** (default `CAP`, 3: "after B, either C, D or B again"), the
  ones the most drawing walks took (ties: by the target's name), its self-loop and the edge to `end`
  included: "again" and "answer" are choices too. Without the cap coverage would mean nothing: random
  walks over a handful of tools are covered by the complete graph after a few dozen examples, and a
  graph that may go anywhere after any step is no drawing;
- **the entry is a routing table**: `start`'s out-edges are not held to the cap but to `routes` (default
  `ROUTES`, None: every entry the rare-edge rule keeps). The first step is chosen from the input alone,
  before any tool has answered: "an order question is tracked, a billing one invoiced, ..." is a router,
  drawable in advance whatever the number of its routes (the chapter's routing workflow has as many
  handlers as categories). Every later branch follows a tool's answer — what was found decides what comes
  next, the mark of a task that cannot be drawn — and that is what the cap limits. The synthetic
  processes justify the split (`tests/synthetic_walks.py`): a router among four or five lookups measured
  0.58–0.81 under a cap of 3 at the entry, as low as walks whose every step depends on the last, and
  0.86–0.91 with the routing table, while the open-ended walks moved by 0.00–0.06;
- nodes no fitting walk can use (unreachable from `start`, or with no way on to `end`) are left out.

A walk **fits** (`fits`) when every transition is an edge, every stretch of one label is within its
node's bound, and no node is visited more often than its `max_visits`.

The graph is a `networkx.DiGraph`: node attributes `tools` (sorted tuple), `bound`, `max_visits`, `walks`
(drawing walks through it), `kind` (`io` for start/end, `tool` otherwise) and `label`; edge attribute
`walks` (drawing walks that took it), and `loop=True` on a self-loop; graph attributes `cap`,
`min_share`, `routes` and `walks` (how many walks it was learned from). `to_json`/`from_json` round-trip it.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from benchmarks.criterion.drawability.walks import Label, Walk, name_of, runs_of

START, END = "start", "end"
CAP = 3
ROUTES: int | None = None
MIN_SHARE = 0.05
FORMAT = "wva-drawn-graph"


@dataclass(frozen=True)
class Counts:
    """What the drawing walks did, before pruning: walks per edge (self-loops included) and per node;
    each node's longest stretch and most visits in one walk; its tools."""

    walks: int
    edges: Counter[tuple[str, str]]
    nodes: Counter[str]
    longest: dict[str, int]
    visits: dict[str, int]
    tools: dict[str, tuple[str, ...]]


def count(walks: Sequence[Walk]) -> Counts:
    edges: Counter[tuple[str, str]] = Counter()
    nodes: Counter[str] = Counter()
    longest: dict[str, int] = {}
    visits: dict[str, int] = {}
    tools: dict[str, tuple[str, ...]] = {}
    for walk in walks:
        runs = [(name_of(label), label, n) for label, n in runs_of(walk)]
        path = [START, *(name for name, _, _ in runs), END]
        edges.update(set(itertools.pairwise(path)) | {(name, name) for name, _, n in runs if n > 1})
        nodes.update(set(path[1:-1]))
        for name, label, n in runs:
            tools[name] = tuple(sorted(label))
            longest[name] = max(longest.get(name, 1), n)
        for name, k in Counter(name for name, _, _ in runs).items():
            visits[name] = max(visits.get(name, 0), k)
    return Counts(len(walks), edges, nodes, longest, visits, tools)


def kept_edges(c: Counts, cap: int, min_share: float, routes: int | None = ROUTES) -> list[tuple[str, str]]:
    """The edges that survive the rare-edge rule and the cap (self-loops included); `start`'s out-edges, the
    routing table, are held to `routes` instead (None: no limit but the rare-edge rule)."""
    common = {e: k for e, k in c.edges.items() if k >= min_share * c.walks}
    out: list[tuple[str, str]] = []
    for source in sorted({u for u, _ in common}):
        ranked = sorted((e for e in common if e[0] == source), key=lambda e: (-common[e], e[1]))
        out += ranked[: cap if source != START else routes]
    return out


def _add_node(g: nx.DiGraph, c: Counts, n: str) -> None:
    if n not in g:
        g.add_node(n, kind="tool", label=n, tools=c.tools[n], bound=1, max_visits=c.visits[n], walks=c.nodes[n])


def learn_graph(walks: Sequence[Walk], *, cap: int = CAP, min_share: float = MIN_SHARE,
                routes: int | None = ROUTES) -> nx.DiGraph:
    """The drawing learned from `walks` (see the module docstring)."""
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")
    if routes is not None and routes < 1:
        raise ValueError(f"routes must be >= 1 or None, got {routes}")
    if not 0 <= min_share < 1:
        raise ValueError(f"min_share must be in [0, 1), got {min_share}")
    c = count(walks)
    g = nx.DiGraph(cap=cap, min_share=min_share, routes=routes, walks=c.walks)
    g.add_node(START, kind="io", label="start", tools=(), bound=1, max_visits=1, walks=c.walks)
    g.add_node(END, kind="io", label="answer", tools=(), bound=1, max_visits=1, walks=c.walks)
    for u, v in kept_edges(c, cap, min_share, routes):
        _add_node(g, c, u)
        _add_node(g, c, v)
        if u == v:
            g.nodes[u]["bound"] = c.longest[u]
            g.add_edge(u, u, walks=c.edges[u, u], loop=True)
        else:
            g.add_edge(u, v, walks=c.edges[u, v])
    useful = nx.descendants(g, START) & nx.ancestors(g, END)
    g.remove_nodes_from([n for n in list(g) if n not in useful | {START, END}])
    return g


def fits(graph: nx.DiGraph, walk: Sequence[Label]) -> bool:
    """Does the walk fit the drawing: every transition an edge, every loop and revisit within its bound?"""
    prev, seen = START, Counter[str]()
    for label, n in runs_of(walk):
        name = name_of(label)
        if not graph.has_edge(prev, name) or n > graph.nodes[name]["bound"]:
            return False
        seen[name] += 1
        if seen[name] > graph.nodes[name]["max_visits"]:
            return False
        prev = name
    return graph.has_edge(prev, END)


@dataclass(frozen=True)
class GraphSize:
    """nodes: steps (start and end not counted); edges: transitions between different nodes, start's and
    end's included; loops: self-loops (a round repeated, bounded); revisited: nodes a walk may come back
    to after other steps (a cycle, bounded by `max_visits`); routes: start's out-edges (the routing table);
    cap: the most out-edges any other node may keep."""

    nodes: int
    edges: int
    loops: int
    revisited: int
    routes: int
    cap: int


def graph_size(graph: nx.DiGraph) -> GraphSize:
    steps = [n for n in graph if n not in (START, END)]
    loops = sum(1 for u, v in graph.edges if u == v)
    return GraphSize(nodes=len(steps), edges=graph.number_of_edges() - loops, loops=loops,
                     revisited=sum(1 for n in steps if graph.nodes[n]["max_visits"] > 1),
                     routes=graph.out_degree(START), cap=graph.graph["cap"])


def to_json(graph: nx.DiGraph, about: dict[str, Any] | None = None) -> str:
    """The drawing as JSON (stable order): its settings, nodes with their bounds, edges with their counts;
    `about` (what it was drawn from: task, instances, seed) is kept under its own key, which `from_json`
    does not read."""
    nodes = [{"id": n, "tools": list(d["tools"]), "bound": d["bound"], "max_visits": d["max_visits"],
              "walks": d["walks"]} for n, d in sorted(graph.nodes(data=True)) if n not in (START, END)]
    edges = [{"source": u, "target": v, "walks": d["walks"]} for u, v, d in sorted(graph.edges(data=True))]
    settings = {k: graph.graph[k] for k in ("cap", "min_share", "routes", "walks")}
    return json.dumps({"format": FORMAT, "version": 1, **settings, "nodes": nodes, "edges": edges,
                       **({"about": about} if about else {})}, indent=1)


def from_json(text: str) -> nx.DiGraph:
    """A drawing from `to_json`'s text; a ValueError of one line, starting `bad drawn graph:`, for anything
    else (another file, a missing field, a bound below 1, an edge to a node it does not list)."""
    try:
        return _parsed(json.loads(text))
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if message.startswith("bad drawn graph:"):
            raise ValueError(message) from None
        raise ValueError(f"bad drawn graph: {type(exc).__name__}: {message}") from None


def _parsed(data: Any) -> nx.DiGraph:
    if data.get("format") != FORMAT or data.get("version") != 1:
        raise ValueError(f"bad drawn graph: not a {FORMAT} version 1 file")
    routes = data["routes"]
    g = nx.DiGraph(cap=int(data["cap"]), min_share=float(data["min_share"]),
                   routes=None if routes is None else int(routes), walks=int(data["walks"]))
    g.add_node(START, kind="io", label="start", tools=(), bound=1, max_visits=1, walks=g.graph["walks"])
    g.add_node(END, kind="io", label="answer", tools=(), bound=1, max_visits=1, walks=g.graph["walks"])
    for n in data["nodes"]:
        name, bound, visits = str(n["id"]), int(n["bound"]), int(n["max_visits"])
        if name in g or bound < 1 or visits < 1:
            raise ValueError(f"bad drawn graph: node {name!r} is repeated, reserved or has a bound below 1")
        g.add_node(name, kind="tool", label=name, tools=tuple(map(str, n["tools"])), bound=bound,
                   max_visits=visits, walks=int(n["walks"]))
    for e in data["edges"]:
        u, v = str(e["source"]), str(e["target"])
        if u not in g or v not in g:
            raise ValueError(f"bad drawn graph: edge {u} -> {v} names an unknown node")
        g.add_edge(u, v, walks=int(e["walks"]), **({"loop": True} if u == v else {}))
    if g.graph["cap"] < 1 or (routes is not None and g.graph["routes"] < 1):
        raise ValueError("bad drawn graph: cap or routes below 1")
    return g


def node_data(graph: nx.DiGraph) -> dict[str, Any]:
    """Per step node: its tools, bound and max_visits (for printing and tests)."""
    return {n: {k: d[k] for k in ("tools", "bound", "max_visits")} for n, d in graph.nodes(data=True)
            if n not in (START, END)}
