"""`Loop`: a bounded loop drawn in advance — `body` again and again until `until(text)` says it is done,
at most `max_rounds` times (a `for`, never `while True`).

A validate-and-fix loop, a bounded walk or a retry steered by a reviewer's feedback is still a graph
drawn before any input is seen: the body is fixed, the exit is code, the bound is written down. The
body carries whatever state the next round needs in the text it returns (the candidate and the
latest report or feedback), so every round sees exactly what the previous one left. When the bound
is reached the last text is returned with `extra["loop_exhausted"]` naming the loop: the caller's
grader decides whether it is good enough.

A body in which the model picks among more than `choices.K` next steps (offered tools, a model route, or a name it
writes for code to call) is refused (`AgentLike`): the model would pick again after its pick has answered, which
is the agent pattern, not a drawn graph. Let code pick from a field a tool computed (`Dispatch`, or a `Route`
with a `Code` classifier reading it), or run the agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from ..events import Kind
from ..run import Run
from .choices import check_drawn
from .graph import graph_of, node
from .steps import Step


@dataclass(frozen=True)
class Loop:
    body: Step
    until: Callable[[str], bool]
    max_rounds: int
    name: str = "loop"
    pattern: str = "loop"

    def __post_init__(self) -> None:
        if self.max_rounds < 1:
            raise ValueError("max_rounds must be >= 1")
        check_drawn(self)  # a loop whose model picks among more than K next steps is an agent (choices.py)

    async def __call__(self, run: Run, text: str) -> str:
        for round_no in range(1, self.max_rounds + 1):
            text = await self.body(run, text)
            finished = self.until(text)
            run.record(Kind.DECISION, run.elapsed(), name=self.name,
                       detail=f"round {round_no}: {'done' if finished else 'again'}")
            if finished:
                return text
        run.extra.setdefault("loop_exhausted", []).append(self.name)
        return text

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        entries, exits = self.body.add_to(graph, prefix)
        check = node(graph, prefix + self.name + ".until", "code", f"done? (≤{self.max_rounds} rounds)")
        for x in exits:
            graph.add_edge(x, check)
        for e in entries:
            graph.add_edge(check, e, label="again", loop=True)
        return entries, [check]

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "bounded loop")
