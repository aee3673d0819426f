"""Tools: `@tool` turns a typed, documented function into a tool; a `ToolSet` executes tool_use blocks.

Every failure a model can cause or suffer becomes an `is_error` tool_result it can read and act
on (unknown tool, input that does not fit the schema, an exception, a timeout); the run goes on.
Nothing here evaluates model output as code.

A sync tool with a timeout runs in a worker thread of `patterns.threads` (not asyncio's default
executor): a call that overruns is reported as `ToolTimeout` and its thread, which Python cannot stop,
is abandoned and replaced, so a hung tool never takes a thread from a healthy one, and the process
still exits while the hung call runs on. Once 32 calls of one tool are stuck at once, its next calls
fail at once as `ToolTimeout` (no new thread) until one of them returns.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .redact import redact
from .schema import Check, checker, function_schema, validate
from .threads import Stuck, call_in_thread

MAX_RESULT_CHARS = 20_000  # a larger result is cut, with a marker saying how much was dropped
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., Any] = field(repr=False)
    timeout_s: float | None = DEFAULT_TIMEOUT_S
    cost_usd: float = 0.0  # what one call costs (an API's fee, a query's price): added to the run's cost

    @property
    def param(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


def tool(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, timeout_s: float | None = DEFAULT_TIMEOUT_S,
    cost_usd: float = 0.0,
) -> Any:
    """Decorator: `@tool` or `@tool(name=..., timeout_s=...)`. Sync and async functions both work.

    A sync function with a timeout runs in a worker thread so that the timeout can cut it off (a hung
    call's thread is abandoned, never reused: see the module's docstring); with `timeout_s=None` it
    runs inline (cheapest, but a hang then hangs the run). `cost_usd` is what one call costs, added to the run's
    cost with the model's (default 0: a free tool).
    """

    def build(f: Callable[..., Any]) -> Tool:
        description, schema = function_schema(f)
        if not cost_usd >= 0:
            raise ValueError(f"cost_usd must be a number >= 0, got {cost_usd!r}")
        return Tool(name or f.__name__, description, schema, f, timeout_s, float(cost_usd))

    return build(fn) if fn is not None else build


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one tool call returns: the text the model reads, and whether (and how) it failed."""

    content: str
    is_error: bool = False
    error_type: str | None = None

    def block(self, tool_use_id: str) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": self.content}
        if self.is_error:
            result["is_error"] = True
        return result


_JSON = json.JSONEncoder(ensure_ascii=False, default=str)  # json.dumps's encoder for these options, built once
_PLAIN = frozenset({str, int, float, bool, type(None), dict, list})  # results that cannot be awaitable


def result_text(value: Any) -> str:
    """A tool's return value as the tool_result's text: a string as it is, anything else as JSON, cut to size."""
    if isinstance(value, str):
        text = value
    elif type(value) is int:  # what json.dumps writes for an int (the most common result after a str)
        text = str(value)
    else:
        try:
            text = _JSON.encode(value)
        except (TypeError, ValueError):  # circular structures and the like
            text = repr(value)
    if len(text) > MAX_RESULT_CHARS:
        dropped = len(text) - MAX_RESULT_CHARS
        text = f"{text[:MAX_RESULT_CHARS]}\n[truncated: {dropped} of {len(text)} characters not shown]"
    return text or "(empty result)"


class ToolSet:
    """The tools offered to a model, by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        by_name: dict[str, Tool] = {}
        for t in tools:
            if not isinstance(t, Tool):
                raise TypeError(f"ToolSet takes Tool objects (use @tool), got {t!r}")
            if t.name in by_name:
                raise ValueError(f"two tools are named {t.name!r}")
            by_name[t.name] = t
        # Read-only, so that what is read once below can never go stale (a new ToolSet is cheap).
        self.tools: Mapping[str, Tool] = MappingProxyType(by_name)
        self.params: list[dict[str, Any]] = [t.param for t in self.tools.values()]
        # Read once, here (a tool and its schema are frozen once offered): the hot path of every tool call.
        self._fits: dict[str, Check] = {name: checker(t.input_schema) for name, t in self.tools.items()}
        self._is_async: dict[str, bool] = {name: inspect.iscoroutinefunction(t.fn) for name, t in self.tools.items()}
        self._inline: dict[str, Callable[..., Any]] = {  # sync tools without a timeout: called right here
            name: t.fn for name, t in self.tools.items() if t.timeout_s is None and not self._is_async[name]}

    def __len__(self) -> int:
        return len(self.tools)

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    async def execute(self, name: str, tool_input: Any) -> ToolOutcome:
        t = self.tools.get(name)
        if t is None:
            known = ", ".join(self.tools) or "none"
            return _failed(f"Error: unknown tool {name!r}. Available tools: {known}.", "UnknownTool")
        if not isinstance(tool_input, dict):
            return _failed(f"Error: tool input must be a JSON object, got {type(tool_input).__name__}.",
                           "InvalidInput")
        if not self._fits[name](tool_input):  # the words come from validate, which a fitting input never needs
            problems = validate(tool_input, t.input_schema)
            if problems:
                return _failed("Error: invalid input: " + "; ".join(problems[:5]), "InvalidInput")
        inline = self._inline.get(name)
        is_async = self._is_async[name]
        try:
            # no coroutine for the plain call; a sync tool that returns an awaitable is awaited
            value = inline(**tool_input) if inline is not None else await _call(t, tool_input, is_async)
            if not is_async and type(value) not in _PLAIN and inspect.isawaitable(value):
                value = await _await(value)
        except Exception as exc:  # a tool's failure is the model's information, not the run's crash
            if isinstance(exc, Stuck):
                return _failed(f"Error: tool {name!r} timed out: {exc}.", "ToolTimeout")
            if isinstance(exc, TimeoutError) and t.timeout_s is not None:
                return _failed(f"Error: tool {name!r} timed out after {t.timeout_s:g} s.", "ToolTimeout")
            # redacted: the message goes to the model, the trace and the results (a key in it must not)
            return _failed(redact(f"Error: {type(exc).__name__}: {exc}")[:2000], type(exc).__name__)
        return ToolOutcome(content=result_text(value))


def _failed(content: str, error_type: str) -> ToolOutcome:
    return ToolOutcome(content=content, is_error=True, error_type=error_type)


async def _call(t: Tool, tool_input: dict[str, Any], is_async: bool) -> Any:
    """An async tool, or a sync one with a timeout (in a worker thread); a sync tool without one runs inline."""
    if is_async:
        if t.timeout_s is None:
            return await t.fn(**tool_input)
        async with asyncio.timeout(t.timeout_s):
            return await t.fn(**tool_input)
    return await call_in_thread(functools.partial(t.fn, **tool_input), t.timeout_s,
                                key=(t.fn.__module__, t.fn.__qualname__))  # the same code, whichever trial made it


async def _await(value: Awaitable[Any]) -> Any:
    return await value
