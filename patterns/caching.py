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
EPHEMERAL = {"type": "ephemeral"}
_NOT_CACHEABLE = ("thinking", "redacted_thinking")  # the API refuses cache_control on these blocks


def with_breakpoints(params: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the request's params with up to three breakpoints added (never more than 4 in all)."""
    out = dict(params)
    if "cache_control" in out:  # automatic caching: the caller's choice
        return out
    room = MAX_BREAKPOINTS - count_breakpoints(out)
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
    n = 0
    tools = params.get("tools")
    if isinstance(tools, list | tuple):
        n += sum(1 for t in tools if _has_mark(t))
    system = params.get("system")
    if isinstance(system, list | tuple):
        n += sum(1 for b in system if _has_mark(b))
    for message in params.get("messages") or ():
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list | tuple):
            n += sum(1 for b in content if _has_mark(b))
    return n


def uncached_cost_usd(model_id: str | None, usage: Usage) -> float | None:
    """What the same tokens cost with no caching: cache writes and reads billed as plain input."""
    return cost_usd(model_id, Usage(usage.prompt_tokens, usage.output_tokens))


def _has_mark(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("cache_control") is not None


def _marked(block: Any) -> dict[str, Any] | None:
    """A copy of `block` carrying the breakpoint; None if the API would refuse one there."""
    if not isinstance(block, Mapping):
        dump = getattr(block, "model_dump", None)  # an SDK content block appended as it came back
        if not callable(dump):
            return None
        block = dump(mode="json", exclude_none=True)
    if block.get("type") in _NOT_CACHEABLE or (block.get("type") == "text" and not block.get("text")):
        return None
    return {**block, "cache_control": dict(EPHEMERAL)}


def _mark_last(blocks: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """`blocks` with the last cacheable one marked; None if there is none, or it is marked already."""
    for i in range(len(blocks) - 1, -1, -1):
        if _has_mark(blocks[i]):
            return None
        marked = _marked(blocks[i])
        if marked is not None:
            return [*blocks[:i], marked, *blocks[i + 1:]]
    return None


def _mark_messages(messages: Any) -> list[Any] | None:
    if not isinstance(messages, list | tuple) or not messages or not isinstance(messages[-1], Mapping):
        return None
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        blocks = _mark_last([{"type": "text", "text": content}])
    else:
        blocks = _mark_last(content) if isinstance(content, list | tuple) else None
    return None if blocks is None else [*messages[:-1], {**last, "content": blocks}]


def _mark_system(system: Any) -> list[Any] | None:
    if isinstance(system, str):
        return _mark_last([{"type": "text", "text": system}])
    return _mark_last(system) if isinstance(system, list | tuple) else None


def _mark_tools(tools: Any) -> list[Any] | None:
    if not isinstance(tools, list | tuple) or not tools or not isinstance(tools[-1], Mapping):
        return None
    if _has_mark(tools[-1]):
        return None
    return [*tools[:-1], {**tools[-1], "cache_control": dict(EPHEMERAL)}]
