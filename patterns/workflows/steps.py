"""The building blocks of a workflow: a step takes the previous output (text) and returns text.

Every step is a frozen dataclass with a `kind` (`llm`, `tool`, `code`), a `name` (the node
in the workflow's graph, and the `name` of its events), `async __call__(run, text)`, and
`add_to(graph, prefix)` so a workflow can draw itself. Any pattern is a step too, so a route's
handler or an orchestrator's worker can be a chain, a vote or an agent.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import networkx as nx

from ..blocks import block_params
from ..result import Terminal
from ..run import Failure, Run, StopRun
from ..tools import ToolSet
from .graph import node

Prompt = str | Callable[[str, str], str]  # a template with {input} and {task}, or fn(input, task)


class Step(Protocol):
    name: str

    async def __call__(self, run: Run, text: str) -> str: ...

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]: ...


def render(prompt: Prompt, text: str, task: str) -> str:
    """Fill a prompt: plain replacement, so braces in the filled-in text need no escaping."""
    if callable(prompt):
        return prompt(text, task)
    return prompt.replace("{input}", text).replace("{task}", task)


def text_of(content: list[Any]) -> str:
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


@dataclass(frozen=True)
class LLM:
    """One model call; with tools, at most one round of them and a second call to answer."""

    name: str
    prompt: Prompt = "{input}"
    system: str | None = None
    tools: ToolSet | None = None
    max_tokens: int | None = None
    kind: str = "llm"

    async def __call__(self, run: Run, text: str) -> str:
        params: dict[str, Any] = {"messages": [{"role": "user", "content": render(self.prompt, text, run.task)}]}
        if self.system:
            params["system"] = self.system
        if self.tools:
            params["tools"] = self.tools.params
        if self.max_tokens:
            params["max_tokens"] = self.max_tokens
        reply = await run.sample(name=self.name, **params)
        _check_refusal(reply)
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses or not self.tools or reply.stop_reason != "tool_use":
            return text_of(reply.content)
        results = await run.call_tools(self.tools, uses, name=f"{self.name}.tools")
        assistant = {"role": "assistant", "content": [block_params(b) for b in reply.content]}
        params["messages"] = [*params["messages"], assistant, {"role": "user", "content": results}]
        answer = await run.sample(name=f"{self.name}.answer", **params)
        _check_refusal(answer)
        return text_of(answer.content)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        first = node(graph, prefix + self.name, "llm", self.name)
        if not self.tools:
            return [first], [first]
        names = tuple(self.tools.tools)
        tools = node(graph, prefix + self.name + ".tools", "tool", ", ".join(names), tools=names)
        answer = node(graph, prefix + self.name + ".answer", "llm", self.name + " (answer)")
        graph.add_edge(first, tools)
        graph.add_edge(tools, answer)
        graph.add_edge(first, answer, optional=True)  # if the model calls no tool, there is no second call
        return [first], [answer]


def _check_refusal(reply: Any) -> None:
    if reply.stop_reason == "refusal":
        raise StopRun(Terminal.REFUSAL, "the model refused (stop_reason refusal)")


@dataclass(frozen=True)
class Code:
    """A deterministic step in code: fn(text) -> text (sync or async).

    `named_by="code"` declares that what it returns is code's own value, not words copied from a model's reply
    (a fixed order of next steps), so `choices` stops tracing there; say it only when it is true."""

    name: str
    fn: Callable[[str], str | Awaitable[str]]
    kind: str = "code"
    named_by: str | None = None

    async def __call__(self, run: Run, text: str) -> str:
        value = self.fn(text)
        return await value if inspect.isawaitable(value) else value

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        n = node(graph, prefix + self.name, "code", self.name, **({"named_by": self.named_by} if self.named_by else {}))
        return [n], [n]


@dataclass(frozen=True)
class ToolStep:
    """A tool call fixed in advance: code computes its input from the text; the result is the output.

    By default a failed call (an `is_error` result) ends the run with a `ToolError`. With `keep`, the
    output is `keep(text, result, is_error)` instead, whatever the result: the step can keep its input
    beside the result (a line and the validator's report on it) and let the next step handle an error,
    as a workflow author writes it."""

    name: str
    tools: ToolSet
    tool: str
    args: Callable[[str], dict[str, Any]]
    keep: Callable[[str, str, bool], str] | None = None
    kind: str = "tool"

    async def __call__(self, run: Run, text: str) -> str:
        result = await run.call_tool(self.tools, {"name": self.tool, "id": f"fixed_{self.name}",
                                                  "input": self.args(text)}, name=self.name)
        failed = bool(result.get("is_error"))
        if self.keep is not None:
            return self.keep(text, str(result["content"]), failed)
        if failed:
            raise Failure("ToolError", str(result["content"]), self.name)
        return str(result["content"])

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        n = node(graph, prefix + self.name, "tool", self.tool, tools=(self.tool,), fixed=True)  # code calls it
        return [n], [n]


@dataclass(frozen=True)
class Gate:
    """A programmatic check between steps: `check(text)` returns True (pass), False or a reason (fail).

    A failing gate ends the run with `terminal=error` and a `GateFailed` error naming the gate.
    The text passes through unchanged.
    """

    name: str
    check: Callable[[str], bool | str | None]
    kind: str = "code"

    async def __call__(self, run: Run, text: str) -> str:
        verdict = self.check(text)
        if verdict is True or verdict is None:
            return text
        reason = verdict if isinstance(verdict, str) else "check returned False"
        raise Failure("GateFailed", f"gate {self.name!r} failed: {reason}", self.name)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        n = node(graph, prefix + self.name, "code", f"gate: {self.name}", gate=True)
        return [n], [n]
