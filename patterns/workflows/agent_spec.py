"""`Agent`: the dynamic loop as a spec, so it runs through `execute` like any workflow and can be a
step (an orchestrator's worker, a route's handler) inside one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from ..agent import agent_loop
from ..run import Run
from ..tools import ToolSet
from .graph import graph_of, node
from .steps import Prompt, render


@dataclass(frozen=True)
class Agent:
    prompt: Prompt = "{task}"
    system: str | None = None
    tools: ToolSet | None = None
    name: str = "agent"
    pattern: str = "agent"

    async def __call__(self, run: Run, text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": render(self.prompt, text, run.task)}]
        run.extra["messages"] = messages  # the conversation stays visible in the Result however it ends
        return await agent_loop(run, messages, [], system=self.system, tools=self.tools)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        llm = node(graph, prefix + self.name, "llm", "model decides")
        names = tuple(self.tools.tools) if self.tools else ()
        if names:
            tools = node(graph, prefix + self.name + ".tools", "tool", ", ".join(names), tools=names)
            graph.add_edge(llm, tools)
            graph.add_edge(tools, llm, loop=True)
        return [llm], [llm]

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "agent loop")
