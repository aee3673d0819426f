"""`Chain`: prompt chaining — steps in a fixed order, each fed the previous output; gates may stop it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from ..run import Run
from .graph import connect, graph_of
from .steps import Step


@dataclass(frozen=True)
class Chain:
    steps: Sequence[Step]
    name: str = "chain"
    pattern: str = "chain"

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("a Chain needs at least one step")

    async def __call__(self, run: Run, text: str) -> str:
        for step in self.steps:
            text = await step(run, text)
        return text

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        first, exits = self.steps[0].add_to(graph, prefix)
        for step in self.steps[1:]:
            entries, next_exits = step.add_to(graph, prefix)
            connect(graph, exits, entries)
            exits = next_exits
        return first, exits

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "prompt chain")
