"""Prompt caching: where a request's `cache_control` breakpoints go, and what the same tokens cost uncached.

`with_breakpoints(params)` is applied by `Run.sample` to every model call of every pattern (the
agent loop and each workflow step alike) when `RequestOptions.prompt_cache` is on (the default). It
places the breakpoints as the Messages API documents them and as production agents do:
1. on the last cacheable block of the **last message**, so that the next turn of a growing
   conversation reads everything up to here from the cache (the API looks back about 20 blocks
   from a breakpoint for an earlier cached prefix, so last turn's breakpoint is found);
2. on the **system prompt** (a string becomes one text block carrying the breakpoint);
3. on the **last tool** definition (tools come first in the cached prefix: tools, system, messages).
`{"type": "ephemeral"}` is the 5-minute cache, the one `prices.json` prices (write 1.25x, read
0.1x of input). The API refuses more than 4 breakpoints in one request: breakpoints the caller
already placed are counted, and ours are added in the order above only while fewer than 4 are
present. A request that asks for automatic caching (a top-level `cache_control`) is left as it is.

Nothing is mutated: the params, the message list and the message dicts a pattern passes in stay
as they were (copies carry the breakpoints), so the conversation a `Result` keeps has none, and
SimModel's identity-keyed token cache stays valid. The breakpoints are added after the
`before_model` hook, which sees the request as the pattern built it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .pricing import cost_usd
from .usage import Usage

MAX_BREAKPOINTS = 4
_EPHEMERAL = {"type": "ephemeral"}  # shared by every marked block: nothing downstream mutates it
_NOT_CACHEABLE = ("thinking", "redacted_thinking")  # the API refuses cache_control on these blocks


def with_breakpoints(params: Mapping[str, Any], *, counter: MarkCounter | None = None) -> dict[str, Any]:
    """A copy of the request's params with up to three breakpoints added (never more than 4 in all).

    `counter` (one per run, as `Run` keeps) counts the caller's own breakpoints in a growing
    conversation incrementally and reuses the marked tools and system prompt while they are the
    same objects; without it every message is scanned and every copy made afresh."""
    out = dict(params)
    if "cache_control" in out:  # automatic caching: the caller's choice
        return out
    messages = out.get("messages")
    part = _marked_part if counter is None else counter.part
    t_marks, tools = part("tools", out.get("tools"))
    s_marks, system = part("system", out.get("system"))
    room = MAX_BREAKPOINTS - t_marks - s_marks - (_marks_in(messages) if counter is None else counter.count(messages))
    if room > 0:
        marked = _mark_messages(messages)
        if marked is not None:
            out["messages"] = marked
            room -= 1
    for key, marked in (("system", system), ("tools", tools)):
        if room > 0 and marked is not None:
            out[key] = marked
            room -= 1
    return out


def count_breakpoints(params: Mapping[str, Any]) -> int:
    """Blocks of the request (tools, system, messages) that carry `cache_control`."""
    return _marked_part("tools", params.get("tools"))[0] + _marked_part("system", params.get("system"))[0] \
        + _marks_in(params.get("messages"))


class MarkCounter:
    """One run's memory of what it sent, so that adding breakpoints costs the same at turn 1000 as at turn 1.

    A run sends its history on every call; scanning all of it each time would make a long run
    quadratic. When the first message and the previous call's last message are the same objects
    at the same places, only the messages after it are scanned for the caller's own breakpoints;
    anything else is scanned whole. The marked copies of the tools and the system prompt are
    reused while the run passes the same objects. Like SimModel's token cache, this relies on a
    sent message (and a tool list) never being mutated in place, and on a message replaced in the
    middle of a history never gaining a breakpoint the old one lacked."""

    __slots__ = ("_first", "_last", "_marks", "_n", "_parts")

    def __init__(self) -> None:
        self._first: Any = None
        self._last: Any = None
        self._n = 0
        self._marks = 0
        self._parts: dict[str, tuple[Any, int, list[Any] | None]] = {}

    def count(self, messages: Any) -> int:
        if not isinstance(messages, list | tuple) or not messages:
            return 0
        k, n = self._n, len(messages)
        if 0 < k <= n and messages[0] is self._first and messages[k - 1] is self._last:
            marks = self._marks + _marks_in(messages[k:])
        else:
            marks = _marks_in(messages)
        self._first, self._last, self._n, self._marks = messages[0], messages[-1], n, marks
        return marks

    def part(self, key: str, value: Any) -> tuple[int, list[Any] | None]:
        hit = self._parts.get(key)
        if hit is not None and hit[0] is value:
            return hit[1], hit[2]
        marks, marked = _marked_part(key, value)
        self._parts[key] = (value, marks, marked)
        return marks, marked


def _marked_part(key: str, value: Any) -> tuple[int, list[Any] | None]:
    """The caller's own breakpoints in the tools or system prompt, and its copy with ours added."""
    marks = sum(map(_has_mark, value)) if isinstance(value, list | tuple) else 0
    return marks, (_mark_tools(value) if key == "tools" else _mark_system(value))


def _marks_in(messages: Any) -> int:
    n = 0
    for message in messages or ():  # plain dict checks: this can run over a whole history
        content = message.get("content") if type(message) is dict else None
        if type(content) is list:
            n += sum(map(_has_mark, content))
    return n


def uncached_cost_usd(model_id: str | None, usage: Usage) -> float | None:
    """What the same tokens cost with no caching: cache writes and reads billed as plain input."""
    return cost_usd(model_id, Usage(input_tokens=usage.prompt_tokens, output_tokens=usage.output_tokens))


def _has_mark(block: Any) -> bool:
    return type(block) is dict and block.get("cache_control") is not None


def _text_block(text: str) -> list[dict[str, Any]] | None:
    """A string (system prompt, message content) as one marked text block; None if empty (the API refuses)."""
    return [{"type": "text", "text": text, "cache_control": _EPHEMERAL}] if text else None


def _marked(block: Any) -> dict[str, Any] | None:
    """A copy of `block` carrying the breakpoint; None if the API would refuse one there."""
    if not isinstance(block, dict):  # plain dicts first: this runs on every call
        dump = getattr(block, "model_dump", None)  # an SDK content block appended as it came back
        if not callable(dump):
            return None
        block = dump(mode="json", exclude_none=True)
    kind = block.get("type")
    if kind in _NOT_CACHEABLE or (kind == "text" and not block.get("text")):
        return None
    return {**block, "cache_control": _EPHEMERAL}


def _mark_last(blocks: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """`blocks` with the last cacheable one marked; None if there is none, or it is marked already."""
    for i in range(len(blocks) - 1, -1, -1):
        if _has_mark(blocks[i]):
            return None
        marked = _marked(blocks[i])
        if marked is not None:
            out = list(blocks)
            out[i] = marked
            return out
    return None


def _mark_messages(messages: Any) -> list[Any] | None:
    if not isinstance(messages, list | tuple) or not messages or not isinstance(messages[-1], dict):
        return None
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        blocks = _text_block(content)
    else:
        blocks = _mark_last(content) if isinstance(content, list | tuple) else None
    if blocks is None:
        return None
    out = list(messages)  # one C-level copy: a history can be long
    out[-1] = {**last, "content": blocks}
    return out


def _mark_system(system: Any) -> list[Any] | None:
    if isinstance(system, str):
        return _text_block(system)
    return _mark_last(system) if isinstance(system, list | tuple) else None


def _mark_tools(tools: Any) -> list[Any] | None:
    if not isinstance(tools, list | tuple) or not tools or not isinstance(tools[-1], dict) or _has_mark(tools[-1]):
        return None
    out = list(tools)
    out[-1] = {**tools[-1], "cache_control": _EPHEMERAL}
    return out
