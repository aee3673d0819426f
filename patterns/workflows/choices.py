"""One definition of "drawn", read off a workflow's own graph: who decides each next step, traced by data flow.

**A model decision** is any model output that selects the next step:
- tools offered to an `LLM` step (which to call, if any): the steps are *offered*;
- a `Route` whose classifier is a model call: the step is *routed*;
- a value the model wrote that code then dispatches on (a `Dispatch`, or a `Route` with a `Code` classifier, reading
  text a model step produced): the step is *named* by the model. Where a dispatched value came from is traced back
  through code steps: a field a tool computed, or a field of the input, is code's decision; a field copied out of a
  model's reply is the model's. A route's handler receives the route's input, not its classifier's reply.

**Agent-like**: a model decision among more than `K` next steps that sits on a loop, so that the model picks
again after what it picked has answered. A tree of routers counts as its leaves (a 3-way router feeding 3-way
routers is a 9-way choice). Such a loop is the agent pattern by another name, whether the steps are offered,
routed or named: `check_drawn` refuses it (`AgentLike`), `Loop` and `EvaluateOptimize` refuse to be built
around one, `arun_workflow` refuses to run one, and a task file holding one is refused when it is loaded.

**Routing**: a model decision not on a loop may have any number of branches, on the input or after a tool has
answered (look up the order, then the model picks 1 of 4 actions). **A survey** (code calls every option, the
model only reads the results) holds no model decision at all. An `Agent` spec is the agent itself, never checked.

Graphs learned from walks (drawability) mark a model's choice on the edge (`model=True`); the same rule reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from .graph import graph_of

K = 3  # a model decision on a loop has at most this many branches (drawability's cap too)
HOW = {"offered": "tools offered to it", "routed": "a route it classifies", "named": "a step it names for code to call",
       "learned": "edges learned from its walks"}


class AgentLike(ValueError):
    """A workflow whose model picks among more than K next steps on a loop: the agent pattern by another name."""


@dataclass(frozen=True)
class Choice:
    """A model decision in a workflow's graph: its node, how many branches (a tree counted by its leaves), whether
    it sits on a loop, the step it belongs to, and how the model decides (a key of `HOW`)."""

    node: str
    branches: int
    on_loop: bool
    label: str
    how: str = "offered"


def writers(graph: nx.DiGraph, n: str) -> set[str]:
    """The model steps whose words may reach node `n`, traced back through code steps. A node's `named_by` says it
    outright ("model": it is one; "code": what it passes on is code's own value); a route's switch passes on the
    route's input, not its classifier's reply; a tool's result and the input are code's."""
    found: set[str] = set()
    seen, queue = {n}, list(graph.predecessors(n))
    while queue:
        p = queue.pop()
        if p in seen:
            continue
        seen.add(p)
        d = graph.nodes[p]
        if d.get("kind") == "llm" or d.get("named_by") == "model":
            found.add(p)
            continue
        if d.get("kind") != "code" or d.get("named_by") == "code":
            continue
        through = d.get("passes")
        queue += [q for e in through for q in graph.predecessors(e)] if through is not None else \
            list(graph.predecessors(p))
    return found


def model_wrote(graph: nx.DiGraph, n: str) -> bool:
    """Whether the text reaching node `n` may be a model's words (`writers`)."""
    named = graph.nodes[n].get("named_by")
    return named == "model" if named else bool(writers(graph, n))


def _deciders(graph: nx.DiGraph, n: str, how: str) -> set[str]:
    """The model steps that decide at `n`: the step offering the tools, the classifier, or whoever wrote the name."""
    if how == "learned":
        return {n}
    if graph.nodes[n].get("named_by") == "model":  # the writers it names, when the graph holds them
        return {w for w in graph.nodes[n].get("written_by", ()) if w in graph} or {n}
    if how == "offered":
        return {p for p in graph.predecessors(n) if graph.nodes[p].get("kind") == "llm"}
    return writers(graph, n)


def _how(graph: nx.DiGraph, n: str) -> str | None:
    """How the model decides at node `n` (a key of `HOW`), or None when code decides (or nothing branches). A node
    marked `survey` (code calls every one of its tools) or `fixed` (a tool step code calls) decides nothing."""
    d = graph.nodes[n]
    if d.get("survey") or d.get("fixed"):
        return None
    if d.get("dispatch"):
        return "named" if model_wrote(graph, n) else None
    by_llm = any(graph.nodes[p].get("kind") == "llm" for p in graph.predecessors(n))
    if d.get("kind") == "tool" and d.get("tools"):
        return "offered" if by_llm else None
    if d.get("switch"):
        return "routed" if by_llm or model_wrote(graph, n) else None
    return None


def _leaves(graph: nx.DiGraph, n: str, seen: frozenset[str] = frozenset()) -> int:
    """The branches of the choice at `n`, a tree of model choices below it counted by its leaves."""
    d = graph.nodes[n]
    if d.get("kind") == "tool":
        return len(d["tools"])
    return sum(_below(graph, s, seen | {n}) for s in graph.successors(n))


def _below(graph: nx.DiGraph, start: str, seen: frozenset[str]) -> int:
    """A branch's leaves: the widest model choice reached from `start` before any tool answers, else 1."""
    widest, queue, visited = 1, [start], set(seen)
    while queue:
        n = queue.pop()
        if n in visited:
            continue
        visited.add(n)
        if _how(graph, n):
            widest = max(widest, _leaves(graph, n, frozenset(visited)))
            continue
        if graph.nodes[n].get("kind") != "tool":
            queue += list(graph.successors(n))
    return widest


def _inner(graph: nx.DiGraph, root: str) -> set[str]:
    """The choices a router's branches reach before any tool answers (counted in the router's leaves)."""
    out, queue, visited = set(), list(graph.successors(root)), {root}
    while queue:
        n = queue.pop()
        if n in visited:
            continue
        visited.add(n)
        if _how(graph, n):
            out.add(n)
        if graph.nodes[n].get("kind") != "tool":
            queue += list(graph.successors(n))
    return out


def on_loop(graph: nx.DiGraph, n: str, how: str = "learned") -> bool:
    """Whether the model picks again at `n` after its pick has answered: `n` and a model step deciding there lie on
    one cycle (a label the model gave once, before a loop that code then replays, is routing)."""
    if not any(s == n or nx.has_path(graph, s, n) for s in graph.successors(n)):
        return False
    return any(w == n or (nx.has_path(graph, n, w) and nx.has_path(graph, w, n)) for w in _deciders(graph, n, how))


def step_of(node_id: str) -> str:
    """The step a node belongs to: its id without the suffix a step gives its inner nodes."""
    for suffix in (".tools", ".call", ".switch"):
        if node_id.endswith(suffix):
            return node_id[: -len(suffix)]
    return node_id


def _learned(graph: nx.DiGraph) -> list[Choice]:
    """A learned graph's model choices: the edges marked `model=True` out of each step."""
    out = []
    for n in graph:
        picks = [v for _, v, m in graph.out_edges(n, data="model") if m]
        if picks:
            out.append(Choice(n, len(picks), on_loop(graph, n), str(graph.nodes[n].get("label", n)), "learned"))
    return out


def model_choices(graph: nx.DiGraph) -> list[Choice]:
    """Every model decision of a workflow's graph (`spec.graph`) or a learned one, a tree of routers as its root."""
    how = {n: h for n in graph if (h := _how(graph, n))}
    inner = {c for n in how if graph.nodes[n].get("switch") for c in _inner(graph, n)}
    drawn = [Choice(n, _leaves(graph, n), on_loop(graph, n, h), step_of(n), h)
             for n, h in how.items() if n not in inner]
    return drawn + _learned(graph)


def agent_like(spec: Any, k: int = K) -> str | None:
    """Why `spec` (a workflow spec, or its graph) is an agent in disguise, in one line, or None for a workflow."""
    if getattr(spec, "pattern", None) == "agent":
        return None
    graph = spec if isinstance(spec, nx.DiGraph) else graph_of(spec)
    wide = [c for c in model_choices(graph) if c.on_loop and c.branches > k]
    if not wide:
        return None
    c = max(wide, key=lambda c: c.branches)
    return (f"agent-like: at step {c.label!r} the model picks 1 of {c.branches} next steps ({HOW[c.how]}) on a loop, "
            f"so it picks again after its pick has answered; a workflow's model may pick among at most {k} there: let "
            "code pick from a field a tool computed, or run the agent pattern")


def check_drawn(spec: Any, k: int = K) -> None:
    """Raise `AgentLike` (one line, naming the step) if `spec` lets the model pick among more than `k` next steps
    on a loop."""
    reason = agent_like(spec, k)
    if reason is not None:
        name = getattr(spec, "name", None) or (spec.graph.get("title") if isinstance(spec, nx.DiGraph) else None)
        raise AgentLike(f"{name or type(spec).__name__}: {reason}")
