"""`Drawn`: the graph drawn from the agent's walks, compiled into a workflow and run.

It is a fixed graph with model-chosen branches at fixed points — a workflow in the chapter's sense,
not an agent: the steps, their order, the branch points and every bound are written down before any
input is seen (learned from the agent's walks on a few instances, `graph.learn_graph`); the model only
chooses, at a branch point, which of the drawn branches to take.

- **A node is a model step offered only that node's tools.** After node X the step is offered the union
  of the tools of X's drawn successors that still have budget ("after B, either C or D": C's and D's
  tools). `tool_choice` forces the call where there is one successor with one tool
  (`{"type": "tool", "name": ...}`), asks for some call (`{"type": "any"}`) where every successor is a
  tool node, and leaves it to the model (`{"type": "auto"}`) where the drawing may also end there.
- **Which branch was taken** is read from the tools the model called: the successor whose tools are
  exactly those, else the one sharing the most of them (then the one with fewer tools it did not call,
  then the one more drawing walks took), recorded as a `decision` event.
- **Every loop is bounded** by the learned bound: a node is offered again in a row at most `bound`
  times and visited at most `max_visits` times in all (so a cycle through several nodes is bounded too).
  A node whose budget is spent is no longer offered: that is the exit code takes; answering where the
  drawing may end is the exit the model takes.
- **The final answer step is the agent's**: the agent's system prompt and instructions, in the same
  conversation; when no tool node is left to offer, one more call with `tool_choice` `none` (the agent's
  tools still listed, as a conversation holding tool calls needs) asks for the answer.

**One conversation, as the agent's turns share one.** Every step appends to the same `messages`
(the agent's first user turn, then each reply and its tool results), because what the next step must
do depends on what the previous ones found (the document a reference points to, the line a validator
rejected); a fresh prompt per step would have to re-render all of it, and would send the model a
request the agent never sent, so that the comparison with the agent would measure the framing as well
as the drawing. Only the tools offered and `tool_choice` differ from the agent's requests.

A model that ignores `tool_choice` and answers where the drawing calls a tool ends the run with that
answer (a `decision` event says so): a compliant model never does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from benchmarks.criterion.drawability.graph import END, START
from patterns.blocks import sendable
from patterns.events import Kind
from patterns.result import Terminal
from patterns.run import Run, StopRun
from patterns.tools import ToolSet
from patterns.workflows.graph import graph_of, node
from patterns.workflows.steps import Prompt, render, text_of


@dataclass
class _Walk:
    """Where a run is in the drawing: the node, how many times in a row, how many visits per node."""

    at: str = START
    stretch: int = 0
    visits: Counter[str] = field(default_factory=Counter)

    def move(self, to: str) -> None:
        if to == self.at:
            self.stretch += 1
        else:
            self.at, self.stretch = to, 1
            self.visits[to] += 1


@dataclass(frozen=True)
class Drawn:
    drawing: nx.DiGraph  # a learned graph (`graph.learn_graph` or `graph.from_json`)
    tools: ToolSet  # the agent's tools: each step is offered its nodes' share of them
    system: str | None = None  # the agent's system prompt
    prompt: Prompt = "{task}"  # the agent's first user turn
    name: str = "drawn"
    pattern: str = "drawn"

    def options(self, walk: _Walk) -> list[str]:
        """The successors of the current node that still have budget, most-walked first (END included)."""
        g = self.drawing
        succ = sorted(g.successors(walk.at), key=lambda s: (-g.edges[walk.at, s]["walks"], s))
        return [s for s in succ if s == END
                or (s == walk.at and walk.stretch < g.nodes[s]["bound"])
                or (s != walk.at and walk.visits[s] < g.nodes[s]["max_visits"])]

    def offered(self, steps: list[str]) -> ToolSet:
        wanted = {t for s in steps for t in self.drawing.nodes[s]["tools"]}
        return ToolSet([t for name, t in self.tools.tools.items() if name in wanted])

    @staticmethod
    def tool_choice(steps: list[str], offered: ToolSet, may_end: bool) -> dict[str, Any]:
        if may_end:
            return {"type": "auto"}
        if len(steps) == 1 and len(offered) == 1:
            return {"type": "tool", "name": next(iter(offered.tools))}
        return {"type": "any"}

    def choose(self, walk: _Walk, steps: list[str], called: set[str]) -> str:
        """The branch the model took: the step whose tools it called (see the module docstring)."""
        g = self.drawing

        def score(s: str) -> tuple[int, int, int]:
            tools = set(g.nodes[s]["tools"])
            return len(tools & called), -len(tools - called), g.edges[walk.at, s]["walks"]

        return max(steps, key=score)

    def most_rounds(self) -> int:
        """No walk of the drawing has more rounds: every round spends a node's loop or visit budget."""
        g = self.drawing
        return sum(g.nodes[n]["bound"] * g.nodes[n]["max_visits"] for n in g if n not in (START, END))

    async def __call__(self, run: Run, text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": render(self.prompt, text, run.task)}]
        run.extra["messages"] = messages  # the conversation stays visible in the Result however it ends
        walk = _Walk()
        for _ in range(self.most_rounds() + 1):  # `options` runs dry first; the range only makes that plain
            options = self.options(walk)
            steps = [s for s in options if s != END]
            if not steps:
                break
            answer = await self._round(run, messages, walk, steps, END in options)
            if answer is not None:
                return answer
        return await self._answer(run, messages)

    def _request(self, messages: list[dict[str, Any]], tools: ToolSet, choice: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"messages": messages}
        if self.system:
            params["system"] = self.system
        if len(tools):
            params["tools"], params["tool_choice"] = tools.params, choice
        return params

    async def _round(self, run: Run, messages: list[dict[str, Any]], walk: _Walk, steps: list[str],
                     may_end: bool) -> str | None:
        """One step: offer the successors' tools; run the calls and move on (None), or return the answer."""
        offered = self.offered(steps)
        choice = self.tool_choice(steps, offered, may_end)
        reply = await run.sample(name=f"{self.name}:{'|'.join(steps)}", **self._request(messages, offered, choice))
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
        if set(self.drawing.nodes[to]["tools"]) != called:
            run.record(Kind.DECISION, run.elapsed(), name=self.name,
                       detail=f"called {', '.join(sorted(called))}: taken as {to}")
        walk.move(to)
        return None

    async def _answer(self, run: Run, messages: list[dict[str, Any]]) -> str:
        """The agent's answer step, when the drawing has no tool node left to offer."""
        reply = await run.sample(name=f"{self.name}:answer", **self._request(messages, self.tools, {"type": "none"}))
        if reply.stop_reason == "refusal":
            raise StopRun(Terminal.REFUSAL, "the model refused (stop_reason refusal)")
        content, _ = sendable(reply.content)
        if content:
            messages.append({"role": "assistant", "content": content})
        return text_of(reply.content)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        """Each node a tool box (its tools and bounds), the agent's answer last; edges back are loops."""
        g = self.drawing
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
                graph.add_edge(ids[u], ids[v], walks=d["walks"], **({"loop": True, "label": "again"}
                                                                     if (u, v) in back else {}))
        return [ids[v] for v in g.successors(START)], [ids[END]]

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "drawn from the agent's walks")


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


def compile_drawing(drawing: nx.DiGraph, agent: Any) -> Drawn:
    """The workflow that runs `drawing` with the agent's tools, system prompt and instructions (an
    `patterns.workflows.Agent` spec, or anything with `tools`, `system` and `prompt`)."""
    return Drawn(drawing, getattr(agent, "tools", None) or ToolSet(), getattr(agent, "system", None),
                 getattr(agent, "prompt", "{task}"))
