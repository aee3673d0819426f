"""Prompt caching: where a request's `cache_control` breakpoints go, and what the same tokens cost uncached.

`with_breakpoints(params)` is applied by `Run.sample` to every model call of every pattern (the
agent loop and each workflow step alike) when `Limits.prompt_cache` is on (the default). It
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
_NOT_CACHEABLE = ("thinking", "redacted_thinking")  # the API refuses cache_control on these blocks


def with_breakpoints(params: Mapping[str, Any], *, counter: MarkCounter | None = None) -> dict[str, Any]:
    """A copy of the request's params with up to three breakpoints added (never more than 4 in all).

    `counter` (one per run, as `Run` keeps) counts the caller's own breakpoints in a growing
    conversation incrementally; without it every message is scanned."""
    out = dict(params)
    if "cache_control" in out:  # automatic caching: the caller's choice
        return out
    messages = out.get("messages")
    in_messages = counter.count(messages) if counter is not None else _marks_in(messages)
    room = MAX_BREAKPOINTS - _marks_outside_messages(out) - in_messages
    for key, mark in (("messages", _mark_messages), ("system", _mark_system), ("tools", _mark_tools)):
        if room <= 0:
            break
        marked = mark(out.get(key))
        if marked is not None:
            out[key] = marked
            room -= 1
    return out


def count_breakpoints(params: Mapping[str, Any]) -> int:
    """Blocks of the request (tools, system, messages) that carry `cache_control`."""
    return _marks_outside_messages(params) + _marks_in(params.get("messages"))


class MarkCounter:
    """The breakpoints already in a conversation that grows by appending, counted without rescanning it.

    A run sends its history on every call; scanning all of it each time would make a long run
    quadratic. When the first message and the previous call's last message are the same objects
    at the same places, only the messages after it are scanned; anything else is scanned whole.
    Like SimModel's token cache, this relies on a sent message never being mutated in place (and a
    message replaced in the middle of a history never gaining a breakpoint the old one lacked)."""

    __slots__ = ("_first", "_last", "_marks", "_n")

    def __init__(self) -> None:
        self._first: Any = None
        self._last: Any = None
        self._n = 0
        self._marks = 0

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


def _marks_outside_messages(params: Mapping[str, Any]) -> int:
    n = 0
    for key in ("tools", "system"):
        blocks = params.get(key)
        if isinstance(blocks, list | tuple):
            n += sum(map(_has_mark, blocks))
    return n


def _marks_in(messages: Any) -> int:
    n = 0
    for message in messages or ():  # plain dict checks: this can run over a whole history
        content = message.get("content") if type(message) is dict else None
        if type(content) is list:
            n += sum(map(_has_mark, content))
    return n


def uncached_cost_usd(model_id: str | None, usage: Usage) -> float | None:
    """What the same tokens cost with no caching: cache writes and reads billed as plain input."""
    return cost_usd(model_id, Usage(usage.prompt_tokens, usage.output_tokens))


def _has_mark(block: Any) -> bool:
    return type(block) is dict and block.get("cache_control") is not None


def _text_block(text: str) -> list[dict[str, Any]] | None:
    """A string (system prompt, message content) as one marked text block; None if empty (the API refuses)."""
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}] if text else None


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
    return {**block, "cache_control": {"type": "ephemeral"}}


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
    out[-1] = {**tools[-1], "cache_control": {"type": "ephemeral"}}
    return out
