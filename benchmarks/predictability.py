"""How predictable a task measured, from the agent's own traces.

The agent's walk in one run is the sequence of its tool-call *rounds*: the tool calls of one model
reply (read from events.jsonl: a `model_call` event opens a round, each following `tool_call`
event's `gen_ai.tool.name` joins it). Rounds, not single calls, because one model reply may issue
several calls at once (five lookups in one turn) and a workflow's tool node is one such round.

Three measures, each in [0, 1], over the agent's runs of one task:

- `steps_cv`: coefficient of variation (population std / mean) of the runs' step counts (model calls);
- `path_entropy`: Shannon entropy of the distribution of run *shapes* (a shape is the tuple of rounds,
  each round the sorted set of distinct tool names in it), divided by log(number of runs), its largest
  possible value: 0 when every run walked the same shape, 1 when no two runs did;
- `fit_share`: the share of runs whose rounds fit the best workflow's fixed graph (`fits`).

    predictability = mean(1 - min(1, steps_cv), 1 - path_entropy, fit_share)

(the mean of those that could be measured: `fit_share` is missing when the task family cannot be
rebuilt). 1 means the agent walked one fixed path every time, a path a workflow had drawn in advance.
"""

from __future__ import annotations

import math
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

Round = tuple[str, ...]


def rounds_by_run(events: Iterable[dict[str, Any]]) -> dict[str, list[Round]]:
    """Every run's tool-call rounds, in the order the events were recorded; empty rounds dropped."""
    rounds: dict[str, list[list[str]]] = {}
    for e in events:
        rid = str(e.get("run_id"))
        runs = rounds.setdefault(rid, [])
        if e.get("kind") == "model_call":
            runs.append([])
        elif e.get("kind") == "tool_call" and isinstance(e.get("gen_ai.tool.name"), str):
            if not runs:  # a tool call fixed in code before any model call (a workflow's ToolStep)
                runs.append([])
            runs[-1].append(e["gen_ai.tool.name"])
    return {rid: [tuple(r) for r in rs if r] for rid, rs in rounds.items()}


def shape(rounds: Sequence[Round]) -> tuple[Round, ...]:
    """A run's path shape: per round, which tools (not how many calls of each, nor their arguments)."""
    return tuple(tuple(sorted(set(r))) for r in rounds)


def steps_cv(steps: Sequence[float]) -> float:
    """Population coefficient of variation; 0 for no variation (or a mean of 0), NaN for no runs."""
    if not steps:
        return math.nan
    mean = sum(steps) / len(steps)
    if mean == 0:
        return 0.0
    var = sum((s - mean) ** 2 for s in steps) / len(steps)
    return math.sqrt(var) / mean


def path_entropy(paths: Sequence[Any]) -> float:
    """Entropy of the distinct paths' frequencies / log(len(paths)): in [0, 1]; 0 for one run or none."""
    n = len(paths)
    if n <= 1:
        return 0.0
    h = -sum(c / n * math.log(c / n) for c in Counter(paths).values())
    return min(1.0, max(0.0, h / math.log(n)))


def fits(graph: nx.DiGraph, rounds: Sequence[str | Sequence[str]], start: str = "input", end: str = "output") -> bool:
    """Does a walk from `start` to `end` of `graph` consume exactly these rounds, in order?

    Walking onto a `tool` node consumes the next round, which must be non-empty and name only tools in
    the node's `tools`; a node marked `dynamic` (an orchestrator's ×N worker) may consume several
    rounds in a row. Other nodes (llm, code, io) consume none. Cycles (an evaluator's loop) are
    allowed: the search is over (node, rounds consumed) states, so it ends. A bare string is a round
    of one call.
    """
    seq = [frozenset([r]) if isinstance(r, str) else frozenset(r) for r in rounds]
    n = len(seq)
    if start not in graph or end not in graph:
        return False
    stack, seen = [(start, 0)], set()
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        node, i = state
        if node == end and i == n:
            return True
        for succ in graph.successors(node):
            attrs = graph.nodes[succ]
            if attrs.get("kind") != "tool":
                stack.append((succ, i))
                continue
            allowed, j = set(attrs.get("tools") or ()), i
            while j < n and seq[j] and seq[j] <= allowed:
                j += 1
                stack.append((succ, j))
                if not attrs.get("dynamic"):
                    break
    return False


def score(cv: float, entropy: float, fit_share: float) -> float:
    """The documented predictability score: the mean of the available parts (NaN if none)."""
    parts = [1 - min(1.0, cv) if not math.isnan(cv) else math.nan, 1 - entropy, fit_share]
    known = [p for p in parts if not math.isnan(p)]
    return sum(known) / len(known) if known else math.nan


def task_specs(manifest: dict[str, Any]) -> dict[str, str]:
    """task label (the runs' `task`) -> the spec that builds it, from a results folder's manifest."""
    from .tasks.base import task_label
    from .tasks.registry import load_task

    specs: dict[str, str] = {}
    for spec in manifest.get("tasks") or []:
        try:
            specs[task_label(load_task(spec))] = spec
        except Exception:  # a family that no longer imports: its graph fit stays unknown
            continue
    return specs


def workflow_graph(spec: str, pattern: str, seed: int = 0) -> nx.DiGraph | None:
    """A pattern's fixed graph for a task, rebuilt from its spec (None if the family cannot be built)."""
    from .tasks.registry import load_task

    try:
        family = load_task(spec)
        with tempfile.TemporaryDirectory(prefix="wva-graph-") as tmp:
            env = family.environment(family.instances(1, seed)[0], Path(tmp))
            return family.design(pattern, env).graph
    except Exception:  # a user's family that no longer imports: the fit is unknown, not a crash
        return None


def walked_graph(runs: Iterable[Sequence[Round]]) -> nx.DiGraph:
    """The union of the agent's walks: nodes = tools called (plus input/output), edges = consecutive
    calls, each edge's `count` = how many times it was taken, each node's `calls` = how often called."""
    g = nx.DiGraph(title="agent: walked")
    g.add_node("input", kind="io", label="start", calls=0)
    g.add_node("output", kind="io", label="answer", calls=0)
    for rounds in runs:
        prev = "input"
        for name in (call for r in rounds for call in r):
            if name not in g:
                g.add_node(name, kind="tool", label=name, tools=(name,), calls=0)
            g.nodes[name]["calls"] += 1
            count = g.edges[prev, name]["count"] + 1 if g.has_edge(prev, name) else 1
            g.add_edge(prev, name, count=count)
            prev = name
        count = g.edges[prev, "output"]["count"] + 1 if g.has_edge(prev, "output") else 1
        g.add_edge(prev, "output", count=count)
    return g
