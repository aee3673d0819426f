"""Asked to continue a reply that max_tokens cut, the simulator continues it instead of starting over.

A request that ends with an assistant turn of text only followed by a short user text asking to
continue (it contains "continue", as the agent loop's nudge does) is answered as the request
before that pair was — the same decisions, from the same random draw — minus the text already
given. A real model asked to continue does the same. If the new reply does not start with the
text already given, it is not a continuation and is returned whole.
"""

from __future__ import annotations

from typing import Any

_MAX_NUDGE_CHARS = 300


def _text_only(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(isinstance(b, dict) and b.get("type") == "text"
                                                     for b in content):
        return "".join(str(b.get("text", "")) for b in content)
    return None


def _said_in_pair(messages: list[dict[str, Any]], end: int) -> str | None:
    """The assistant text of the continuation pair ending at messages[end - 1], if it is one."""
    if end < 3 or messages[end - 1].get("role") != "user" or messages[end - 2].get("role") != "assistant":
        return None
    nudge, said = _text_only(messages[end - 1].get("content")), _text_only(messages[end - 2].get("content"))
    if nudge is None or not said or len(nudge) > _MAX_NUDGE_CHARS or "continue" not in nudge.lower():
        return None
    return said


def split(messages: list[dict[str, Any]]) -> tuple[int, str] | None:
    """(length of the request that was cut, all the text given since), if the request asks to continue.

    Several continuations in a row fold into one: the text of every cut part, in order."""
    end, parts = len(messages), []
    while (said := _said_in_pair(messages, end)) is not None:
        parts.append(said)
        end -= 2
    return (end, "".join(reversed(parts))) if parts else None


def remainder(blocks: list[dict[str, Any]], said: str) -> list[dict[str, Any]] | None:
    """`blocks` without the leading `said` text; None if they do not start with it."""
    rest = said
    for i, block in enumerate(blocks):
        if not rest:
            return blocks[i:]
        if block.get("type") != "text":
            return None
        text = str(block.get("text", ""))
        if rest.startswith(text):
            rest = rest[len(text):]
        elif text.startswith(rest):
            tail = text[len(rest):]
            return ([{**block, "text": tail}] if tail else []) + blocks[i + 1:]
        else:
            return None
    return [] if not rest else None
