"""Checking a request's parameters as the Messages API does, before any generation.

A bad request is the API's 400 `invalid_request_error`, raised as `anthropic.BadRequestError`
with the first problem found; the conversation rules are `patterns.conversation`'s.
Parameters the simulator does not model (temperature, top_p, thinking, ...) are accepted and,
apart from a range check on temperature, ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..conversation import GrowingConversations, field, validate_conversation
from . import faults

TOOL_CHOICES = ("auto", "any", "tool", "none")


@dataclass(frozen=True, slots=True)
class Prepared:
    model: str | None  # the `model` param, echoed in the reply when given (the sim server passes it)
    system: str  # flattened to text
    tools: list[Any]  # every tool definition (all are billed as input)
    offered_tools: list[Any]  # the ones tool_choice lets the model call
    messages: list[Any]
    max_tokens: int
    stop_sequences: tuple[str, ...]
    tool_choice: Any
    metadata: Any


def _bad(message: str) -> Exception:
    return faults.invalid_request(message)


def _system_text(system: Any) -> str:
    if system is None:
        return ""
    if isinstance(system, str):
        return system
    if isinstance(system, list | tuple) and all(field(b, "type") == "text" for b in system):
        return "\n".join(str(field(b, "text", "")) for b in system)
    raise _bad("system: Input should be a valid string or a list of text blocks")


def _tools(tools: Any) -> list[Any]:
    if tools is None:
        return []
    if not isinstance(tools, list | tuple):
        raise _bad("tools: Input should be a valid list")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        name = field(tool, "name")
        if not isinstance(name, str) or not name:
            raise _bad(f"tools.{i}.name: Field required")
        if field(tool, "type") in (None, "custom") and field(tool, "input_schema") is None:
            raise _bad(f"tools.{i}.custom.input_schema: Field required")
        if name in names:
            raise _bad("tools: Tool names must be unique.")
        names.add(name)
    return list(tools)


def _offered(tools: list[Any], choice: Any) -> list[Any]:
    if choice is None:
        return tools
    kind = field(choice, "type")
    if kind not in TOOL_CHOICES:
        raise _bad(f"tool_choice.type: Input should be one of {', '.join(TOOL_CHOICES)}")
    if not tools and kind != "none":
        raise _bad("tool_choice: tool_choice may only be specified while providing tools")
    if kind == "none":
        return []
    if kind == "tool":
        named = [t for t in tools if field(t, "name") == field(choice, "name")]
        if not named:
            raise _bad(f"tool_choice.name: tool {field(choice, 'name')!r} not found in tools")
        return named
    return tools


def _stop_sequences(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(s, str) for s in value):
        raise _bad("stop_sequences: Input should be a valid list of strings")
    if any(not s.strip() for s in value):
        raise _bad("stop_sequences: each stop sequence must contain non-whitespace")
    return tuple(value)


def prepare(params: Mapping[str, Any], conversations: GrowingConversations | None = None) -> Prepared:
    """The request's parameters, checked; raises `anthropic.BadRequestError` as the API would.

    `conversations` (SimModel's) checks a conversation that grows by appending in linear time."""
    if params.get("stream"):
        raise _bad("stream: streaming is not supported by the simulator; call without stream")
    model = params.get("model")
    if model is not None and not isinstance(model, str):
        raise _bad("model: Input should be a valid string")
    max_tokens = params.get("max_tokens")
    if max_tokens is None:
        raise _bad("max_tokens: Field required")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise _bad("max_tokens: Input should be a valid integer")
    if max_tokens < 1:
        raise _bad("max_tokens: Input should be greater than or equal to 1")
    if "messages" not in params:
        raise _bad("messages: Field required")
    messages = params["messages"]
    problems = conversations.problems(messages) if conversations is not None else validate_conversation(messages)
    if problems:
        raise _bad(problems[0])
    temperature = params.get("temperature")
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, int | float)
                                    or not 0.0 <= temperature <= 1.0):
        raise _bad("temperature: Input should be a number between 0 and 1")
    tools = _tools(params.get("tools"))
    choice = params.get("tool_choice")
    return Prepared(
        model=model, system=_system_text(params.get("system")), tools=tools, offered_tools=_offered(tools, choice),
        messages=list(messages), max_tokens=max_tokens, stop_sequences=_stop_sequences(params.get("stop_sequences")),
        tool_choice=choice, metadata=params.get("metadata"),
    )
