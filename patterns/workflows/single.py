"""`Single`: one model call (with tools offered, at most one round of them) — the baseline."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ..run import Run
from ..tools import ToolSet
from .graph import graph_of
from .steps import LLM, Prompt


@dataclass(frozen=True)
class Single:
    prompt: Prompt = "{task}"
    system: str | None = None
    tools: ToolSet | None = None
    name: str = "answer"
    pattern: str = "single"

    @property
    def step(self) -> LLM:
        return LLM(self.name, self.prompt, self.system, self.tools)

    async def __call__(self, run: Run, text: str) -> str:
        return await self.step(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.step.add_to(graph, prefix)

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "single call")
