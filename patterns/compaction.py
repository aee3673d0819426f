"""Shrinking a conversation that no longer fits the context window: stage 1, and what both stages share.

Stage 1, a *collapse* (no model call, so it cannot itself overflow or fail): replace the content
of old `tool_result` blocks with a short marker, oldest first, keeping the latest round intact.
Tool results are usually the bulk of an agent's context, and the structure (every tool_use still
has its tool_result) stays valid for the API. When it clears nothing, or is not enough, the loop
goes on to stage 2, the summarising compaction (`compaction_summary.py`).
New message dicts are built: the ones already sent are never mutated (SimModel caches their
token counts by identity).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

CLEARED = "[tool result cleared to fit the context window]"
_TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum", re.I)
# The Messages API's words when the prompt fits but the prompt plus `max_tokens` does not, and when
# `max_tokens` is over the model's output limit: neither is a prompt too long (see `output_room`).
_EXCEEDS = re.compile(r"input length and `max_tokens` exceed context limit: (\d+) \+ (\d+) > (\d+)", re.I)
_OUTPUT_CAP = re.compile(r"max_tokens: (\d+) > (\d+), which is the maximum allowed number of output tokens", re.I)


def size(messages: list[dict[str, Any]]) -> int:
    return len(json.dumps(messages, ensure_ascii=False, default=str))


@dataclass(frozen=True, slots=True)
class Pressure:
    """How far a conversation of `chars` characters (measured as `tokens` tokens) is over `limit` tokens.

    Token counts come from the API (the 400's "N tokens > M maximum", or a reply's usage); the
    size of a smaller conversation is estimated in proportion to its characters. That estimate
    counts the system prompt and tools as if they shrank too, so it errs on the side of trying
    the cheap stage first: a wrong guess costs one more 400, which then goes to stage 2.
    """

    tokens: int
    limit: int
    chars: int
    cause: str = "prompt is too long"

    def estimate(self, messages: list[dict[str, Any]]) -> int:
        return self.tokens * size(messages) // max(1, self.chars)

    def chars_for(self, share: float) -> int:
        """Characters a conversation may hold to use `share` of the limit."""
        return int(self.chars * share * self.limit / max(1, self.tokens))


def pressure_of(exc: BaseException, messages: list[dict[str, Any]]) -> Pressure:
    """The pressure a "prompt is too long" 400 reports (twice the window when it does not say how much)."""
    m = _TOO_LONG.search(str(exc))
    tokens, limit = (int(m.group(1)), int(m.group(2))) if m else (2, 1)
    return Pressure(tokens, limit, size(messages))


def _clear(block: Any) -> Any:
    if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("content") != CLEARED:
        return {**block, "content": CLEARED}
    return block


def compact(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Stage 1: (smaller conversation, tool results cleared). The latest round is never cleared."""
    rounds = [i for i, m in enumerate(messages)
              if m["role"] == "user" and isinstance(m["content"], list)
              and any(_clear(b) is not b for b in m["content"])]
    latest = max((i for i, m in enumerate(messages) if m["role"] == "user" and isinstance(m["content"], list)
                  and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])), default=-1)
    targets = {i for i in rounds if i != latest}
    if not targets:
        return messages, 0
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


def output_room(exc: BaseException) -> int | None:
    """The `max_tokens` that fits, for a 400 saying the output budget is too large (the prompt fits); else None.

    Compacting cannot help such a request (its prompt already fits), lowering `max_tokens` does."""
    if getattr(exc, "status_code", None) != 400:
        return None
    text = str(exc)
    exceeds = _EXCEEDS.search(text)
    if exceeds:
        room = int(exceeds.group(3)) - int(exceeds.group(1))
        return room if room >= 1 else None
    cap = _OUTPUT_CAP.search(text)
    return int(cap.group(2)) if cap and int(cap.group(2)) >= 1 else None
