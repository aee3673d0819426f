"""The agent's walks: what a run did, as the sequence of its tool-call rounds, grouped by instance.

A *round* is the tool calls of one model reply (`rounds_by_run` reads them from events.jsonl: a
`model_call` event opens a round, each following `tool_call` event's `gen_ai.tool.name` joins it; one
reply may issue several calls at once, and a workflow's tool node is one such round). A round's *label*
is the set of tool names called in it: how many calls of each and their arguments do not matter (five
`get_item` calls in one reply and one are the same step of a drawing). A *walk* is a run's rounds in
order; its final answer ends it (a reply with no tool call, which is not a round). The same label
several rounds in a row is a *run* of that label: a loop.

Every agent run counts, whatever its terminal: a run stopped by a limit or an error walked too, and a
drawing that leaves such walks out would look more drawable than the agent's behaviour is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

Round = tuple[str, ...]  # the tool names one model reply called, in order
Label = frozenset[str]
Walk = tuple[Label, ...]
Runs = tuple[tuple[Label, int], ...]  # a walk with repeated labels collapsed: (label, how many in a row)


def label_of(round_: Iterable[str]) -> Label:
    """A round's label: the set of tool names it called."""
    return frozenset(round_)


def walk_of(rounds: Sequence[Round | Iterable[str]]) -> Walk:
    """A run's walk: its rounds' labels, empty rounds left out (a reply that called nothing is no round)."""
    return tuple(label for label in (label_of(r) for r in rounds) if label)


def runs_of(walk: Sequence[Label]) -> Runs:
    """The walk with each stretch of one label repeated collapsed into (label, count)."""
    out: list[tuple[Label, int]] = []
    for label in walk:
        if out and out[-1][0] == label:
            out[-1] = (label, out[-1][1] + 1)
        else:
            out.append((label, 1))
    return tuple(out)


def name_of(label: Label) -> str:
    """A label's node name: its tool names sorted and joined by `+` (no tool name may contain `+`)."""
    return "+".join(sorted(label))


def walks_by_instance(runs: Any, events: Iterable[Mapping[str, Any]], *, task: str | None = None,
                      pattern: str = "agent") -> dict[str, list[Walk]]:
    """instance -> the walks of `pattern`'s runs on it (trial order), from a runs table and its events.

    `runs` is runs.csv as a DataFrame (columns run_id, pattern, task, instance; `trial` orders them
    when present); `task` keeps one task's rows. A run with no events walked no round (an empty walk)."""
    rows = runs[runs["pattern"] == pattern]
    if task is not None:
        rows = rows[rows["task"] == task]
    if "trial" in rows:
        rows = rows.sort_values(["instance", "trial"], kind="stable")
    wanted = set(rows["run_id"].astype(str))
    return walks_of_runs(rows, rounds_by_run(e for e in events if str(e.get("run_id")) in wanted))


def walks_of_runs(rows: Any, rounds: Mapping[str, Sequence[Round]]) -> dict[str, list[Walk]]:
    """instance -> the walks of these runs (`rows`: run_id and instance columns, in the order wanted), from
    their rounds (`rounds_by_run`); a run with no rounds walked none (an empty walk)."""
    out: dict[str, list[Walk]] = {}
    for rid, instance in zip(rows["run_id"].astype(str), rows["instance"].astype(str), strict=True):
        out.setdefault(instance, []).append(walk_of(rounds.get(rid, [])))
    return out


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
