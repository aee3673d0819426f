"""`ScriptedModel`: replies fixed in advance, returned in order — for tests, demos and the perf scripts.

It never looks at the prompt (a fake that branches on prompt text tests nothing); it records
every request it was sent so a test can check what the loop built.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from anthropic.types import Message

_ids = itertools.count(1)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(name: str, tool_input: Any, id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or f"toolu_{next(_ids):06d}", "name": name, "input": tool_input}


def message(
    *content: dict[str, Any] | str, stop_reason: str | None = None, input_tokens: int = 10,
    output_tokens: int = 5, cache_write: int = 0, cache_read: int = 0, model: str = "scripted",
) -> Message:
    """A real `anthropic.types.Message`; stop_reason defaults to tool_use if there is a tool_use block."""
    blocks = [text_block(c) if isinstance(c, str) else c for c in content]
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return Message.model_validate({
        "id": f"msg_{next(_ids):06d}", "type": "message", "role": "assistant", "model": model,
        "content": blocks, "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cache_creation_input_tokens": cache_write, "cache_read_input_tokens": cache_read},
    })


class ScriptedModel:
    """Returns (or raises) the scripted items in order; an exhausted script is an AssertionError."""

    def __init__(self, replies: Iterable[Message | BaseException], *, price_id: str | None = None) -> None:
        self._replies = iter(replies)
        self.requests: list[dict[str, Any]] = []
        self.price_id = price_id

    async def create(self, **params: Any) -> Message:
        self.requests.append({**params, "messages": list(params.get("messages", []))})
        try:
            reply = next(self._replies)
        except StopIteration:
            raise AssertionError(f"ScriptedModel: no reply scripted for call {len(self.requests)}") from None
        if isinstance(reply, BaseException):
            raise reply
        return reply
