"""The agent's walks: what a run did, as the sequence of its tool-call rounds and what each round's results let
code read, grouped by instance.

A *round* is the tool calls of one model reply (`rounds_by_run` reads them from events.jsonl: a `model_call`
event opens a round, and so does a `decision` event, where code decided the next calls; each following
`tool_call` event joins it with its name, its arguments
(`gen_ai.tool.call.arguments`) and its result (`gen_ai.tool.call.result`); one reply may issue several calls at
once, and a workflow's tool node is one such round). A round's *label* is the set of tool names called in it (how
many calls of each and their order do not matter). Its *fields* are the code-readable values of its results
(`patterns.fields`: the leaves of a JSON result, named `<tool>.<path>`, and `<tool>.is_error`, the flag every
tool result carries): what a code dispatch may read. Prose results have no fields but the error flag. The run's
*input fields* are those of the instance's input (an `input` event, when the input is structured).

A *walk* is a run's rounds in order (a `Step` each) with its input fields; its final answer ends it (a reply with
no tool call, which is not a round). Every agent run counts, whatever its terminal: a run stopped by a limit or
an error walked too, and a drawing that leaves such walks out would look more drawable than the agent is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from patterns.fields import fields

Label = frozenset[str]
Fields = tuple[tuple[str, str], ...]  # sorted (name, value) pairs


@dataclass(frozen=True)
class Step:
    """One round of a walk: the tools called (its label), the fields its results let code read, and its calls
    as (tool, arguments JSON) in call order."""

    label: Label
    fields: Fields = ()
    calls: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Walk:
    """A run's rounds, and its instance's input fields (what code may read before any tool answers)."""

    steps: tuple[Step, ...]
    inputs: Fields = ()

    def __len__(self) -> int:
        return len(self.steps)

    def labels(self) -> tuple[Label, ...]:
        return tuple(s.label for s in self.steps)


def as_walk(walk: Walk | Sequence[Iterable[str] | Step]) -> Walk:
    """A `Walk` from a walk or a plain sequence of rounds (tool-name sets or `Step`s, no fields)."""
    if isinstance(walk, Walk):
        return walk
    return Walk(tuple(s if isinstance(s, Step) else Step(frozenset(s)) for s in walk))


@dataclass(frozen=True)
class Round:
    """The tool calls of one model reply, as events.jsonl recorded them (iterating yields the tool names)."""

    tools: tuple[str, ...]
    fields: Fields = ()
    calls: tuple[tuple[str, str], ...] = ()

    def __iter__(self) -> Iterator[str]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)


@dataclass(frozen=True)
class Trace:
    """A run's rounds and its input fields (iterating yields the rounds)."""

    rounds: tuple[Round, ...] = ()
    inputs: Fields = ()

    def __iter__(self) -> Iterator[Round]:
        return iter(self.rounds)

    def __len__(self) -> int:
        return len(self.rounds)


def label_of(round_: Iterable[str]) -> Label:
    """A round's label: the set of tool names it called."""
    return frozenset(round_)


def name_of(label: Label) -> str:
    """A label's node name: its tool names sorted and joined by `+` (no tool name may contain `+`)."""
    return "+".join(sorted(label))


def walk_of(rounds: Trace | Sequence[Round | Iterable[str]]) -> Walk:
    """A run's walk: its rounds as steps, empty rounds left out (a reply that called nothing is no round)."""
    inputs = rounds.inputs if isinstance(rounds, Trace) else ()
    steps = []
    for r in rounds:
        label = label_of(r)
        if label:
            steps.append(Step(label, r.fields, r.calls) if isinstance(r, Round) else Step(label))
    return Walk(tuple(steps), inputs)


def round_fields(results: Iterable[tuple[str, str | None, bool]]) -> Fields:
    """The code-readable fields of one round's results, (tool, result text, is_error) each in call order:
    `<tool>.is_error` and `<tool>.<path>` per result (`patterns.fields`), `<tool>#2.` for a tool's second call;
    and the round's `round.is_error` (did any of its calls fail), what code retries on."""
    out: dict[str, str] = {}
    count: dict[str, int] = {}
    results = list(results)
    failures = sum(1 for _, _, failed in results if failed)
    out["round.is_error"] = "true" if failures else "false"
    for tool, text, failed in results:
        count[tool] = count.get(tool, 0) + 1
        prefix = tool if count[tool] == 1 else f"{tool}#{count[tool]}"
        out[f"{prefix}.is_error"] = "true" if failed else "false"
        out.update({f"{prefix}.{k}": v for k, v in fields(text).items()})
    return tuple(sorted(out.items()))


@dataclass
class _Open:
    tools: list[str] = field(default_factory=list)
    results: list[tuple[str, str | None, bool]] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def add(self, e: Mapping[str, Any]) -> None:
        tool = str(e["gen_ai.tool.name"])
        self.tools.append(tool)
        self.calls.append((tool, str(e.get("gen_ai.tool.call.arguments") or "{}")))
        self.results.append((tool, e.get("gen_ai.tool.call.result"), bool(e.get("is_error"))))

    def close(self) -> Round:
        return Round(tuple(self.tools), round_fields(self.results), tuple(self.calls))


def rounds_by_run(events: Iterable[Mapping[str, Any]]) -> dict[str, Trace]:
    """Every run's tool-call rounds (empty ones dropped) and input fields, in the order the events were recorded."""
    rounds: dict[str, list[_Open]] = {}
    inputs: dict[str, Fields] = {}
    for e in events:
        rid = str(e.get("run_id"))
        runs = rounds.setdefault(rid, [])
        kind = e.get("kind")
        if kind in ("model_call", "decision"):  # a code decision (a drawn workflow's dispatch) opens a round too
            runs.append(_Open())
        elif kind == "tool_call" and isinstance(e.get("gen_ai.tool.name"), str):
            if not runs:  # a tool call fixed in code before any model call (a workflow's ToolStep)
                runs.append(_Open())
            runs[-1].add(e)
        elif kind == "input" and isinstance(e.get("wva.input.fields"), dict):
            inputs[rid] = tuple(sorted((f"input.{k}", str(v)) for k, v in e["wva.input.fields"].items()))
    return {rid: Trace(tuple(r.close() for r in rs if r.tools), inputs.get(rid, ())) for rid, rs in rounds.items()}


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


def walks_of_runs(rows: Any, rounds: Mapping[str, Trace | Sequence[Round]]) -> dict[str, list[Walk]]:
    """instance -> the walks of these runs (`rows`: run_id and instance columns, in the order wanted), from
    their rounds (`rounds_by_run`); a run with no rounds walked none (an empty walk)."""
    out: dict[str, list[Walk]] = {}
    for rid, instance in zip(rows["run_id"].astype(str), rows["instance"].astype(str), strict=True):
        out.setdefault(instance, []).append(walk_of(rounds.get(rid, Trace())))
    return out


def arguments(call_json: str) -> dict[str, Any]:
    """A recorded call's arguments (an unreadable record reads as no arguments)."""
    try:
        value = json.loads(call_json)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def walked_graph(runs: Iterable[Iterable[Iterable[str]]]) -> nx.DiGraph:
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
