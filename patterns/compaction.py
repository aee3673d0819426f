"""Shrinking a conversation that no longer fits the context window.

Strategy (no model call, so it cannot itself overflow or fail): replace the content of old
`tool_result` blocks with a short marker, oldest first, keeping the most recent round intact.
Tool results are usually the bulk of an agent's context, and the structure (every tool_use
still has its tool_result) stays valid for the API. If every result is already cleared, the
conversation cannot be made smaller this way and the run ends with an error.
New message dicts are built: the ones already sent are never mutated (SimModel caches their
token counts by identity).
"""

from __future__ import annotations

import json
from typing import Any

CLEARED = "[tool result cleared to fit the context window]"


def size(messages: list[dict[str, Any]]) -> int:
    return len(json.dumps(messages, ensure_ascii=False, default=str))


def _clear(block: Any) -> Any:
    if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("content") != CLEARED:
        return {**block, "content": CLEARED}
    return block


def compact(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """(smaller conversation, tool results cleared). Clears all but the last round first, then that too."""
    rounds = [i for i, m in enumerate(messages)
              if m["role"] == "user" and isinstance(m["content"], list)
              and any(_clear(b) is not b for b in m["content"])]
    if not rounds:
        return messages, 0
    targets = set(rounds[:-1]) or set(rounds)
    out: list[dict[str, Any]] = []
    cleared = 0
    for i, m in enumerate(messages):
        if i in targets:
            content = [_clear(b) for b in m["content"]]
            cleared += sum(1 for a, b in zip(content, m["content"], strict=True) if a is not b)
            out.append({**m, "content": content})
        else:
            out.append(m)
    return out, cleared


def is_prompt_too_long(exc: BaseException) -> bool:
    return getattr(exc, "status_code", None) == 400 and "prompt is too long" in str(exc).lower()
