"""`Dispatch`: a code dispatch onto tools fixed in advance — code reads a code-readable value of the text (a
field of the input or of a tool's JSON result, such as `{"next": {"tool": "registry", "key": "K-4411"}}`) and
calls the tool it names, with the arguments it gives, among the tools the workflow was drawn with.

This is a drawn step, not a model's choice, however many tools it may call: code decides (see `choices.py`).
`pick(text)` returns `(tool name, arguments)`, or None when the text names no next step; a name outside the
fixed tools is a typed failure (`UnknownTool`), never a call. As with `ToolStep`, a failed call ends the run
with a `ToolError` unless `keep(text, result, is_error)` says what to pass on instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from ..run import Failure, Run
from ..tools import ToolSet
from .graph import node

Pick = Callable[[str], tuple[str, dict[str, Any]] | None]


@dataclass(frozen=True)
class Dispatch:
    name: str
    tools: ToolSet
    pick: Pick
    keep: Callable[[str, str, bool], str] | None = None
    field: str = "the result"  # what the dispatch reads, for its drawing ("next.tool")
    kind: str = "code"

    async def __call__(self, run: Run, text: str) -> str:
        picked = self.pick(text)
        if picked is None:
            raise Failure("NoDispatch", f"{self.name}: the text names no next step in {self.field}", self.name)
        tool, args = picked
        if tool not in self.tools.tools:
            valid = ", ".join(self.tools.tools)
            raise Failure("UnknownTool", f"{self.name}: {self.field} names {tool!r}; the drawn tools are {valid}",
                          self.name)
        result = await run.call_tool(self.tools, {"name": tool, "id": f"fixed_{self.name}", "input": args},
                                     name=self.name)
        failed = bool(result.get("is_error"))
        if self.keep is not None:
            return self.keep(text, str(result["content"]), failed)
        if failed:
            raise Failure("ToolError", str(result["content"]), self.name)
        return str(result["content"])

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        read = node(graph, prefix + self.name, "code", f"dispatch on {self.field}")
        names = tuple(self.tools.tools)
        call = node(graph, prefix + self.name + ".call", "tool", ", ".join(names), tools=names, dispatch=True)
        graph.add_edge(read, call)
        return [read], [call]
