"""`Parallel`: sectioning (different subtasks side by side) or voting (the same step N times),
branches run concurrently, an aggregator combines.

- sectioning: `Parallel(branches=[a, b, c], aggregate=...)`; any branch failing fails the run.
- voting: `Parallel(vote=step, n=5, aggregate=majority)`; a branch lost to an API error is
  dropped and the vote goes on with the rest (recorded as an error event) — only if every
  branch fails does the run fail.
The aggregator is code (`fn(list_of_outputs) -> str`) or an LLM step given the outputs, one per line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anthropic
import networkx as nx

from ..events import Kind
from ..run import Failure, Run, error_info
from .graph import connect, graph_of, node
from .steps import LLM, Step


def majority(outputs: list[str]) -> str:
    """The most common answer (after trimming); ties go to the answer seen first."""
    counts = Counter(o.strip() for o in outputs)
    return max(counts, key=lambda o: (counts[o], -[x.strip() for x in outputs].index(o)))


@dataclass(frozen=True)
class Parallel:
    branches: Sequence[Step] = ()
    vote: Step | None = None
    n: int = 3
    aggregate: Callable[[list[str]], str] | LLM = majority
    name: str = "parallel"
    pattern: str = "parallel"

    def __post_init__(self) -> None:
        if bool(self.branches) == (self.vote is not None):
            raise ValueError("Parallel takes either branches (sectioning) or vote (voting), not both")
        if self.vote is not None and self.n < 1:
            raise ValueError("voting needs n >= 1")

    async def __call__(self, run: Run, text: str) -> str:
        if self.vote is not None:
            outputs = await self._vote(run, text, self.vote)
        else:
            outputs = await run.gather([branch(run, text) for branch in self.branches])
        if isinstance(self.aggregate, LLM):
            return await self.aggregate(run, "\n".join(f"{i}. {o}" for i, o in enumerate(outputs, 1)))
        return self.aggregate(outputs)

    async def _vote(self, run: Run, text: str, step: Step) -> list[str]:
        async def ballot(i: int) -> str | None:
            try:
                return await step(run, text)
            except (anthropic.APIError, Failure) as exc:
                info = error_info(exc, f"{self.name}[{i}]")
                # a failed API call is already an error event (from run.sample); the drop itself is a decision
                kind = Kind.DECISION if isinstance(exc, anthropic.APIError) else Kind.ERROR
                run.record(kind, run.elapsed(), name=info.where, error_type=info.kind, error=info.message,
                           detail="vote branch dropped")
                return None

        ballots = await run.gather([ballot(i) for i in range(self.n)])
        kept = [b for b in ballots if b is not None]
        if not kept:
            raise Failure("AllBranchesFailed", f"all {self.n} voting branches failed", self.name)
        run.extra["votes"] = kept
        return kept

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        entries: list[str] = []
        exits: list[str] = []
        steps = list(self.branches) or [self.vote] * self.n
        for i, step in enumerate(steps):
            assert step is not None
            e, x = step.add_to(graph, f"{prefix}{i}:")
            entries += e
            exits += x
        if isinstance(self.aggregate, LLM):
            agg_entries, agg_exits = self.aggregate.add_to(graph, prefix)
        else:
            label = "majority vote" if self.aggregate is majority else getattr(self.aggregate, "__name__", "aggregate")
            agg_entries = agg_exits = [node(graph, prefix + self.name + ".aggregate", "code", label)]
        connect(graph, exits, agg_entries)
        return entries, agg_exits

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "parallel (voting)" if self.vote is not None else "parallel (sectioning)")
