"""One definition of "drawn", read off a workflow's own graph: who decides each next step.

**Drawn**: code fixed before the run decides the next step — a fixed edge, a bounded loop, or a dispatch on a
*code-readable* value (a field of the input or of a tool's structured result: a category, a status, an id
naming the next tool) onto targets fixed in advance (`Route` with a `Code` classifier, `Dispatch`, a `Loop`'s
exit). **The model's choice**: a model call decides it — an `LLM` step offered tools (which to call, if any),
or a `Route` whose classifier is a model call.

A workflow may hold model choices only at routers with fixed branches:
- on the task's input, before any tool has answered, any number of branches: a routing table ("an order
  question is tracked, a billing one invoiced, ...");
- after a tool has answered, at most `K` branches (the cap drawability learns graphs under). Model choices
  between two tool steps count as a whole: a tree of routers counts as its leaves (a 3-way router feeding
  3-way routers is a 9-way choice);
- so a loop whose body lets the model choose among more than `K` tools, directly or through such a tree, is
  an agent in disguise. `check_drawn` refuses it (`AgentLike`), `Loop` and `EvaluateOptimize` refuse to be
  built around one, and `arun_workflow` refuses to run one: its result would be reported as a workflow's
  while the model directed its own tool use. An `Agent` spec is the agent itself and is never checked.

A choice's branches: an `LLM` step offered n tools is an n-way choice (calling none is the step's answer, the
way on); a model-classified route is as wide as its routes. The graph's nodes say it: a `tool` node after an
`llm` node is offered by the model; a `switch` node after an `llm` node is a model's route, after `code` a
dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from .graph import graph_of

K = 3  # a model choice after a tool has answered has at most this many branches (drawability's cap)


class AgentLike(ValueError):
    """A workflow whose model picks freely among more than K next steps after a tool has answered."""


@dataclass(frozen=True)
class Choice:
    """A model choice in a workflow's graph: its node, how many branches (a tree counted by its leaves), and
    whether a tool has answered before it (so the cap applies)."""

    node: str
    branches: int
    after_tool: bool
    label: str


def _by_model(graph: nx.DiGraph, n: str) -> bool:
    return any(graph.nodes[p].get("kind") == "llm" for p in graph.predecessors(n))


def _is_choice(graph: nx.DiGraph, n: str) -> bool:
    d = graph.nodes[n]
    if d.get("dispatch"):
        return False
    if d.get("kind") == "tool" and d.get("tools"):
        return _by_model(graph, n)
    return bool(d.get("switch")) and _by_model(graph, n)


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
        if _is_choice(graph, n):
            widest = max(widest, _leaves(graph, n, frozenset(visited)))
            continue
        if graph.nodes[n].get("kind") != "tool":
            queue += list(graph.successors(n))
    return widest


def _after_tool(graph: nx.DiGraph, n: str) -> bool:
    """Has a tool answered before `n` can run: a tool node upstream, or `n` itself a tool node on a cycle."""
    if any(graph.nodes[a].get("kind") == "tool" for a in nx.ancestors(graph, n) if a != n):
        return True
    return graph.nodes[n].get("kind") == "tool" and any(nx.has_path(graph, s, n) for s in graph.successors(n))


def model_choices(graph: nx.DiGraph) -> list[Choice]:
    """Every model choice of a workflow's graph (`spec.graph`), a tree of routers as its root only."""
    roots = [n for n in graph if _is_choice(graph, n)]
    inner = {c for n in roots if graph.nodes[n].get("switch") for c in _inner(graph, n)}
    return [Choice(n, _leaves(graph, n), _after_tool(graph, n), str(graph.nodes[n].get("label", n)))
            for n in roots if n not in inner]


def _inner(graph: nx.DiGraph, root: str) -> set[str]:
    """The choices a router's branches reach before any tool answers (counted in the router's leaves)."""
    out, queue, visited = set(), list(graph.successors(root)), {root}
    while queue:
        n = queue.pop()
        if n in visited:
            continue
        visited.add(n)
        if _is_choice(graph, n):
            out.add(n)
        if graph.nodes[n].get("kind") != "tool":
            queue += list(graph.successors(n))
    return out


def agent_like(spec: Any, k: int = K) -> str | None:
    """Why `spec` (a workflow spec, or its graph) is an agent in disguise, or None if it is a workflow."""
    if getattr(spec, "pattern", None) == "agent":
        return None
    graph = spec if isinstance(spec, nx.DiGraph) else graph_of(spec)
    wide = [c for c in model_choices(graph) if c.after_tool and c.branches > k]
    if not wide:
        return None
    c = max(wide, key=lambda c: c.branches)
    return (f"agent-like: after a tool has answered, the model chooses among {c.branches} next steps at "
            f"{c.label!r} (a workflow's model choices may have at most {k}; code dispatch on a field of the "
            "result, or the agent pattern, are the drawable alternatives)")


def check_drawn(spec: Any, k: int = K) -> None:
    """Raise `AgentLike` if `spec` lets the model choose among more than `k` steps after a tool has answered."""
    reason = agent_like(spec, k)
    if reason is not None:
        name = getattr(spec, "name", type(spec).__name__)
        raise AgentLike(f"{name}: {reason}")
