"""`CallEach`: code makes every tool call it computes from the text, at once, and folds the results back in.

A survey — call every place with a key, read every file of a project — decides nothing: code lists the calls, so
no model picks among them (`choices` reads the node as a survey). The model may read the results in a later step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from ..run import Run
from ..tools import ToolSet
from .graph import node

Use = dict[str, Any]  # a tool call: {"name", "id", "input"}


@dataclass(frozen=True)
class CallEach:
    """`uses(text)` lists the calls (none: no call); `keep(text, uses, results)` is the output, the results' text
    in the order of the calls. `label` names the node in the drawn graph."""

    name: str
    tools: ToolSet
    uses: Callable[[str], list[Use]]
    keep: Callable[[str, list[Use], list[str]], str]
    label: str = "every tool"
    kind: str = "tool"

    async def __call__(self, run: Run, text: str) -> str:
        uses = self.uses(text)
        results = await run.call_tools(self.tools, uses, name=self.name) if uses else []
        return self.keep(text, uses, [str(r["content"]) for r in results])

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        n = node(graph, prefix + self.name, "tool", self.label, tools=tuple(self.tools.tools), dispatch=True,
                 survey=True)  # code makes every call: no choice (`patterns.workflows.choices`)
        return [n], [n]
