"""`Drawn`: the graph drawn from the agent's walks, compiled into a workflow and run.

It is a workflow in the one sense the patterns use (`patterns.workflows.choices`): the steps, the dispatches,
the branch points and every bound are written down before any input is seen (learned from the agent's walks
on a few instances, `learn.learn`); the model chooses only at a branch point, among at most `cap` drawn ways on
(any number at the start: a routing table).

- **Code decides where the drawing's rules do** (a fixed edge, a retry after an error, a dispatch on a field of
  the last result or of the input, a pipeline's switched-on step). When code also finds every argument of the
  step's tool (`Drawing.args`: the fields the agent copied them from), code makes the call and no model is
  asked; otherwise one model step is offered only that tool, with `tool_choice` forcing it (the model fills in
  the arguments).
- **Elsewhere the model chooses among the drawn ways on**: a step offered the tools of the current node's kept
  successors that still have budget; `tool_choice` forces the call where one way with one tool is left, asks
  for some call (`any`) where every way is a tool step, and leaves it to the model (`auto`) where the drawing
  may also end there. Which way was taken is read from the tools called: the successor whose tools are exactly
  those, else the one sharing the most of them (then the one with fewer tools it did not call, then the one
  more drawing walks took), recorded as a `decision` event.
- **Every loop is bounded**: a node repeats in a row at most its `bound`, is visited at most `max_visits` times
  (a node only a dispatch reaches: as often as the drawing's most visited one), and the whole run takes at most
  `1.5 ×` the longest drawing walk's steps (plus one), the margin an engineer leaves on a loop whose length
  the examples showed. A node whose budget is spent is no longer offered: that is the exit code takes.
- **The final answer step is the agent's**: the agent's system prompt and instructions, in the same
  conversation; where code says the walk ends, or nothing is left to offer, one call with `tool_choice` `none`.

**One conversation, as the agent's turns share one**: the agent's first user turn, then each step's reply and
tool results. A call code makes is recorded in it as the workflow's own tool call (an assistant `tool_use` with
its `tool_result`), so that a later model step reads every result the way the agent reads its own. Only the
tools offered, `tool_choice` and the calls code makes differ from the agent's requests.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from benchmarks.criterion.drawability.graph import to_graph
from benchmarks.criterion.drawability.learn import END, START, Drawing
from benchmarks.criterion.drawability.moves import plain
from benchmarks.criterion.drawability.walks import name_of, round_fields
from patterns.blocks import sendable
from patterns.events import Kind
from patterns.fields import fields
from patterns.result import Terminal
from patterns.run import Run, StopRun
from patterns.tools import ToolSet
from patterns.workflows.graph import graph_of, node
from patterns.workflows.steps import Prompt, render, text_of


@dataclass
class _Walk:
    """Where a run is in the drawing: the node, how many times in a row, visits per node, what code can read."""

    inputs: dict[str, str]
    at: str = START
    stretch: int = 0
    visits: Counter[str] = field(default_factory=Counter)
    feats: dict[str, str] = field(default_factory=dict)

    def move(self, to: str, results: list[tuple[str, dict[str, Any]]]) -> None:
        self.at, self.stretch = (to, self.stretch + 1) if to == self.at else (to, 1)
        self.visits[to] += self.stretch == 1
        found = round_fields((tool, str(block.get("content", "")), bool(block.get("is_error")))
                             for tool, block in results)
        self.feats = {**self.inputs, **plain(to, found)}


@dataclass(frozen=True)
class Drawn:
    drawing: Drawing  # a learned drawing (`learn.learn` or `graph.from_json`)
    tools: ToolSet  # the agent's tools: each step is offered its nodes' share of them
    system: str | None = None  # the agent's system prompt
    prompt: Prompt = "{task}"  # the agent's first user turn
    name: str = "drawn"
    pattern: str = "drawn"

    def budget(self, walk: _Walk, to: str) -> bool:
        d, most = self.drawing, max(self.drawing.visits.values(), default=1)
        if to == END:
            return True
        if to == walk.at:
            return walk.stretch < d.bound.get(to, 1)
        return walk.visits[to] < d.visits.get(to, most)

    def options(self, walk: _Walk) -> list[str]:
        """The model's kept ways on from the current node that still have budget (END included)."""
        return [s for s in self.drawing.edges.get(walk.at, ()) if self.budget(walk, s)]

    def offered(self, steps: list[str]) -> ToolSet:
        wanted = {t for s in steps for t in s.split("+")}
        return ToolSet([t for name, t in self.tools.tools.items() if name in wanted])

    def most_rounds(self) -> int:
        return math.ceil(1.5 * self.drawing.longest) + 1

    async def __call__(self, run: Run, text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": render(self.prompt, text, run.task)}]
        run.extra["messages"] = messages  # the conversation stays visible in the Result however it ends
        inputs = {f"input.{k}": v for k, v in fields(text).items()}
        walk = _Walk(inputs, feats=dict(inputs))
        for _ in range(self.most_rounds()):
            coded = self.drawing.predict(walk.at, walk.feats)
            usable = coded is not None and (coded == END or (self.budget(walk, coded)
                                                              and set(coded.split("+")) <= set(self.tools.tools)))
            again = self._repeat(walk, coded)
            if usable and not again:  # code decides wherever a rule of the drawing applies
                if coded == END:
                    break
                answer = await self._coded(run, messages, walk, str(coded))
            else:  # the model chooses: among the kept ways on, or between repeating a step and code's way on
                ways = [walk.at, str(coded)] if usable else self.options(walk)
                steps = [s for s in ways if s != END]
                if not steps:
                    break
                answer = await self._round(run, messages, walk, steps, END in ways)
            if answer is not None:
                return answer
        return await self._answer(run, messages)

    def _repeat(self, walk: _Walk, coded: str | None) -> bool:
        """Whether the model may repeat the current step before the pipeline's next one: a pipeline is learned
        from the moves between different steps, so how often a step repeats stays the model's (bounded) choice
        where the drawing walks repeated it."""
        d = self.drawing
        return (coded is not None and coded != walk.at and d.in_sequence(walk.at, walk.feats) == coded
                and walk.at in d.edges.get(walk.at, ()) and self.budget(walk, walk.at))

    def _request(self, messages: list[dict[str, Any]], tools: ToolSet, choice: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"messages": messages}
        if self.system:
            params["system"] = self.system
        if len(tools):
            params["tools"], params["tool_choice"] = tools.params, choice
        return params

    async def _coded(self, run: Run, messages: list[dict[str, Any]], walk: _Walk, to: str) -> str | None:
        """A step code decides: code calls its tools when it has every argument, else the model is forced to (an
        answer instead of the call ends the run with it, as `_after` says)."""
        names = to.split("+")
        args = {t: {a: _field(walk.feats, f) for a, f in self.drawing.args.get(t, ())} for t in names}
        if all(t in self.drawing.args and None not in args[t].values() for t in names):
            uses = [{"type": "tool_use", "id": f"drawn_{run.tool_calls + i}", "name": t, "input": args[t]}
                    for i, t in enumerate(names)]
            run.record(Kind.DECISION, run.elapsed(), name=self.name, detail=f"code dispatch: {to}")
            results = await run.call_tools(self.tools, uses, name=f"{self.name}.code")
            messages += [{"role": "assistant", "content": uses}, {"role": "user", "content": results}]
            walk.move(to, [(u["name"], r) for u, r in zip(uses, results, strict=True)])
            return None
        offered = self.offered([to])
        choice = {"type": "tool", "name": names[0]} if len(names) == 1 else {"type": "any"}
        reply = await run.sample(name=f"{self.name}:{to}", **self._request(messages, offered, choice))
        return await self._after(run, messages, walk, reply, [to], offered)

    async def _round(self, run: Run, messages: list[dict[str, Any]], walk: _Walk, steps: list[str],
                     may_end: bool) -> str | None:
        """A model's choice: offer the ways' tools; run the calls and move on (None), or return the answer."""
        offered = self.offered(steps)
        choice: dict[str, Any] = {"type": "auto"} if may_end else \
            {"type": "tool", "name": next(iter(offered.tools))} if len(steps) == 1 and len(offered) == 1 \
            else {"type": "any"}
        reply = await run.sample(name=f"{self.name}:{'|'.join(steps)}", **self._request(messages, offered, choice))
        return await self._after(run, messages, walk, reply, steps, offered, may_end)

    async def _after(self, run: Run, messages: list[dict[str, Any]], walk: _Walk, reply: Any, steps: list[str],
                     offered: ToolSet, may_end: bool = False) -> str | None:
        content, uses = sendable(reply.content)
        if reply.stop_reason == "refusal":
            raise StopRun(Terminal.REFUSAL, "the model refused (stop_reason refusal)")
        if not uses or reply.stop_reason != "tool_use":
            if content:
                messages.append({"role": "assistant", "content": content})
            if not may_end:
                run.record(Kind.DECISION, run.elapsed(), name=self.name,
                           detail=f"answered after {walk.at} where the drawing calls {', '.join(steps)}")
            return text_of(reply.content)
        results = await run.call_tools(offered, uses, name=f"{self.name}.tools")
        messages += [{"role": "assistant", "content": content}, {"role": "user", "content": results}]
        called = {u.name for u in uses}
        to = self.choose(walk, steps, called)
        if to != name_of(frozenset(called)):
            run.record(Kind.DECISION, run.elapsed(), name=self.name,
                       detail=f"called {', '.join(sorted(called))}: taken as {to}")
        walk.move(to, [(u.name, r) for u, r in zip(uses, results, strict=True)])
        return None

    def choose(self, walk: _Walk, steps: list[str], called: set[str]) -> str:
        """The way the model took: the step whose tools it called (see the module docstring)."""
        def score(s: str) -> tuple[int, int, int]:
            tools = set(s.split("+"))
            return len(tools & called), -len(tools - called), self.drawing.taken.get((walk.at, s), 0)

        return max(steps, key=score)

    async def _answer(self, run: Run, messages: list[dict[str, Any]]) -> str:
        """The agent's answer step, where the drawing ends or has no way left to offer."""
        reply = await run.sample(name=f"{self.name}:answer", **self._request(messages, self.tools, {"type": "none"}))
        if reply.stop_reason == "refusal":
            raise StopRun(Terminal.REFUSAL, "the model refused (stop_reason refusal)")
        content, _ = sendable(reply.content)
        if content:
            messages.append({"role": "assistant", "content": content})
        return text_of(reply.content)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        """Each node a tool box (its tools and bounds); code's edges labelled by their rule; the agent's answer
        last; edges back are loops."""
        g = to_graph(self.drawing)
        ids = {n: prefix + self.name + "." + n for n in g if n not in (START, END)}
        ids[END] = node(graph, prefix + self.name + ".answer", "llm", "answer (the agent's)")
        for n, d in g.nodes(data=True):
            if n in (START, END):
                continue
            bounds = [f"≤{d['bound']} in a row"] if d["bound"] > 1 else []
            bounds += [f"≤{d['max_visits']} visits"] if d["max_visits"] > 1 else []
            label = ", ".join(d["tools"]) + (f" ({', '.join(bounds)})" if bounds else "")
            node(graph, ids[n], "tool", label, tools=tuple(d["tools"]), bound=d["bound"], max_visits=d["max_visits"])
        back = _back_edges(g)
        for u, v, d in g.edges(data=True):
            if u != START:
                extra = {"loop": True, "label": "again"} if (u, v) in back else {}
                if d.get("code"):
                    extra = {**extra, "label": f"code: {d['label']}"[:40]}
                graph.add_edge(ids[u], ids[v], walks=d["walks"], **extra)
        return [ids[v] for v in g.successors(START)], [ids[END]]

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "drawn from the agent's walks")


def _field(feats: dict[str, str], name: str) -> str | None:
    """An argument's field, read after a step or from the input (`rules.arguments_of` names it without `input.`)."""
    return feats.get(name, feats.get(f"input.{name}"))


def _back_edges(g: nx.DiGraph) -> set[tuple[str, str]]:
    """The edges that go back (a self-loop, or fix ← check): to a node met no later on a breadth-first walk
    from start along the most-walked edges first. Drawn as loops, so the main path reads left to right."""
    order, queue = {START: 0}, [START]
    for u in queue:
        for v in sorted(g.successors(u), key=lambda s: (-g.edges[u, s]["walks"], s)):
            if v not in order:
                order[v] = len(order)
                queue.append(v)
    return {(u, v) for u, v in g.edges if v != END and order.get(v, 0) <= order.get(u, 0)}


def compile_drawing(drawing: Drawing, agent: Any) -> Drawn:
    """The workflow that runs `drawing` with the agent's tools, system prompt and instructions (an
    `patterns.workflows.Agent` spec, or anything with `tools`, `system` and `prompt`)."""
    return Drawn(drawing, getattr(agent, "tools", None) or ToolSet(), getattr(agent, "system", None),
                 getattr(agent, "prompt", "{task}"))
