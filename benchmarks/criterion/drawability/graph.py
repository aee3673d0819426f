"""A learned drawing (`learn.Drawing`) as a graph to draw and count, and as JSON to keep beside the results.

`to_graph` gives a `networkx.DiGraph`: nodes `start`, `end` and one per step (attributes `tools`, `bound`,
`max_visits`, `walks`: drawing walks through it, `kind` `tool`/`io`, `label`, `rules`: the step's dispatches as
text); edges are the model's kept ways on (`model=True`) and the transitions the drawing walks took that code
explains (`code=True`, `label`: the rule), each with `walks`, and `loop=True` on a self-loop; graph attributes
`cap`, `min_share`, `routes`, `walks`, `anywhere` (the dispatches that hold at every step, as text).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import networkx as nx

from benchmarks.criterion.drawability.decisions import Choice
from benchmarks.criterion.drawability.learn import CAP, END, MIN_SHARE, ROUTES, START, Drawing, Rule

__all__ = ["CAP", "END", "MIN_SHARE", "ROUTES", "START", "GraphSize", "from_json", "graph_size", "to_graph", "to_json"]

FORMAT = "wva-drawn-graph"
VERSION = 3  # 3: reserved nodes that no tool name can take; the model choices


def _explained(d: Drawing, u: str, v: str) -> Rule | None:
    """The rule of `u` (or the drawing's `anywhere`) that targets `v`, if any: how code reaches it."""
    for rule in (*d.rules.get(u, ()), *d.anywhere):
        if rule.kind == "names" or rule.target == v:
            return rule
    order = [START, *(n for n, _, _ in d.sequence), END]
    if d.sequence and u in order and v in order and order.index(u) < order.index(v):
        return Rule("always", target=v)  # the pipeline's next switched-on step
    return None


def to_graph(d: Drawing) -> nx.DiGraph:
    g = nx.DiGraph(cap=d.cap, min_share=d.min_share, routes=d.routes, walks=d.walks,
                   anywhere="; ".join(r.text() for r in d.anywhere))
    g.add_node(START, kind="io", label="start", tools=(), bound=1, max_visits=1, walks=d.walks, rules=())
    g.add_node(END, kind="io", label="answer", tools=(), bound=1, max_visits=1, walks=d.walks, rules=())
    for n, tools in sorted(d.tools.items()):
        g.add_node(n, kind="tool", label=n, tools=tools, bound=d.bound.get(n, 1), max_visits=d.visits.get(n, 1),
                   walks=d.through.get(n, 0), rules=tuple(r.text() for r in d.rules.get(n, ())))
    for u, vs in d.edges.items():
        for v in vs:
            g.add_edge(u, v, walks=d.taken.get((u, v), 0), model=True, **({"loop": True} if u == v else {}))
    for (u, v), k in d.taken.items():
        rule = _explained(d, u, v)
        if rule is not None and not g.has_edge(u, v) and u in g and v in g:
            g.add_edge(u, v, walks=k, code=True, label=rule.text(), **({"loop": True} if u == v else {}))
    return g


@dataclass(frozen=True)
class GraphSize:
    """nodes: steps (start and end not counted); edges: transitions between different nodes, start's and end's
    included; loops: self-loops (a round repeated, bounded); revisited: steps a walk may come back to after
    others; routes: the start's model ways on (the routing table); dispatches: the rules code decides by (a
    fixed edge, a dispatch on a field); cap: the most model ways on any later step may keep."""

    nodes: int
    edges: int
    loops: int
    revisited: int
    routes: int
    cap: int
    dispatches: int = 0


def graph_size(d: Drawing) -> GraphSize:
    g = to_graph(d)
    steps = [n for n in g if n not in (START, END)]
    loops = sum(1 for u, v in g.edges if u == v)
    rules = sum(len(r) for r in d.rules.values()) + len(d.anywhere)
    return GraphSize(nodes=len(steps), edges=g.number_of_edges() - loops, loops=loops,
                     revisited=sum(1 for n in steps if g.nodes[n]["max_visits"] > 1),
                     routes=len(d.edges.get(START, ())), cap=d.cap, dispatches=rules)


def _rule(r: Rule) -> dict[str, str]:
    return {"kind": r.kind, "field": r.field, "value": r.value, "target": r.target}


def to_json(d: Drawing, about: dict[str, Any] | None = None) -> str:
    """The drawing as JSON (stable order); `about` (what it was drawn from: task, instances, seed) is kept under
    its own key, which `from_json` does not read."""
    doc = {"format": FORMAT, "version": VERSION, "cap": d.cap, "min_share": d.min_share, "routes": d.routes,
           "walks": d.walks, "longest": d.longest, "free": sorted(sorted(p) for p in d.free),
           "anywhere": [_rule(r) for r in d.anywhere],
           "nodes": [{"id": n, "tools": list(t), "bound": d.bound.get(n, 1), "max_visits": d.visits.get(n, 1),
                      "walks": d.through.get(n, 0), "rules": [_rule(r) for r in d.rules.get(n, ())]}
                     for n, t in sorted(d.tools.items())],
           "start": {"rules": [_rule(r) for r in d.rules.get(START, ())]},
           "choices": [{"nodes": sorted(c.nodes), "ways": c.ways, "loop": c.loop, "kappa": c.kappa,
                        "within": c.within, "p": c.p, "fixed": c.fixed, "measured": c.measured}
                       for c in sorted(set(d.choices.values()), key=lambda c: sorted(c.nodes))],
           "edges": [{"source": u, "target": v, "walks": d.taken.get((u, v), 0)} for u in sorted(d.edges)
                     for v in d.edges[u]],
           "taken": [{"source": u, "target": v, "walks": k} for (u, v), k in sorted(d.taken.items())],
           "sequence": [list(s) for s in d.sequence],
           "args": {tool: [list(a) for a in args] for tool, args in sorted(d.args.items())}}
    return json.dumps({**doc, **({"about": about} if about else {})}, indent=1)


def from_json(text: str) -> Drawing:
    """A drawing from `to_json`'s text; a ValueError of one line, starting `bad drawn graph:`, for anything else
    (another file, an older version, a missing field, a bound below 1, an edge to a node it does not list)."""
    try:
        return _parsed(json.loads(text))
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if message.startswith("bad drawn graph:"):
            raise ValueError(message) from None
        raise ValueError(f"bad drawn graph: {type(exc).__name__}: {message}") from None


def _parsed(data: Any) -> Drawing:
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError(f"bad drawn graph: not a {FORMAT} version {VERSION} file")
    nodes = {str(n["id"]): n for n in data["nodes"]}
    if any(int(n["bound"]) < 1 or int(n["max_visits"]) < 1 for n in nodes.values()) or {START, END} & set(nodes):
        raise ValueError("bad drawn graph: a node is reserved or has a bound below 1")
    known = set(nodes) | {START, END}
    edges: dict[str, list[str]] = {}
    for e in data["edges"]:
        u, v = str(e["source"]), str(e["target"])
        if u not in known or v not in known:
            raise ValueError(f"bad drawn graph: edge {u} -> {v} names an unknown node")
        edges.setdefault(u, []).append(v)
    rules = {n: tuple(Rule(**r) for r in d["rules"]) for n, d in nodes.items() if d["rules"]}
    if data["start"]["rules"]:
        rules[START] = tuple(Rule(**r) for r in data["start"]["rules"])
    choices = [Choice(frozenset(map(str, c["nodes"])), int(c["ways"]), bool(c["loop"]), float(c["kappa"]),
                      float(c["within"]), float(c.get("p", 0.0)), bool(c.get("fixed", True)),
                      bool(c.get("measured", True))) for c in data["choices"]]
    routes, cap = data["routes"], int(data["cap"])
    if cap < 1 or (routes is not None and int(routes) < 1):
        raise ValueError("bad drawn graph: cap or routes below 1")
    return Drawing(
        walks=int(data["walks"]), cap=cap, min_share=float(data["min_share"]),
        routes=None if routes is None else int(routes), free=frozenset(frozenset(p) for p in data["free"]),
        rules=rules, anywhere=tuple(Rule(**r) for r in data["anywhere"]),
        edges={u: tuple(vs) for u, vs in edges.items()}, bound={n: int(d["bound"]) for n, d in nodes.items()},
        visits={n: int(d["max_visits"]) for n, d in nodes.items()}, longest=int(data["longest"]),
        tools={n: tuple(map(str, d["tools"])) for n, d in nodes.items()},
        taken={(str(e["source"]), str(e["target"])): int(e["walks"]) for e in data["taken"]},
        through={n: int(d["walks"]) for n, d in nodes.items()},
        sequence=tuple((str(n), str(f), str(v)) for n, f, v in data["sequence"]),
        args={str(t): tuple((str(a), str(f)) for a, f in args) for t, args in data["args"].items()},
        choices={n: c for c in choices for n in c.nodes})
