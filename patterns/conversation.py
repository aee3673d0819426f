"""The rules the Messages API enforces on a conversation, as one pure function.

`validate_conversation(messages)` returns the problems it finds (empty when the conversation
is valid); SimModel and the sim server reject a request with the first one as a 400
`invalid_request_error`, and the agent loop's property tests check that every conversation it
builds passes. Blocks may be dicts or SDK objects (e.g. `Message.content` appended as it is).

The rules (the API's, worded after its messages):
- at least one message; each has role "user" or "assistant"; the first is "user";
- roles alternate (this validator is stricter than the API, which merges consecutive turns
  of the same role: a loop that builds such turns has a bug worth seeing);
- no empty content, except an optional final assistant message (a prefill); no empty text block;
- every `tool_use` id is unique and has exactly one `tool_result` with the same id in the very
  next message, which is a user message whose `tool_result` blocks come before anything else;
- no `tool_result` without a matching `tool_use` in the previous message; `tool_use` only in
  assistant messages, `tool_result` only in user messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ROLES = ("user", "assistant")


def field(obj: Any, name: str, default: Any = None) -> Any:
    """`obj[name]` for a dict, `obj.name` for an SDK object."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def blocks_of(content: Any) -> list[Any]:
    """A message's content as a list of blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list | tuple):
        return list(content)
    return []


def _content_problems(i: int, message: Any, last: bool) -> list[str]:
    role = field(message, "role")
    content = field(message, "content")
    if content is None:
        return [f"messages.{i}.content: Field required"]
    if not isinstance(content, str | list | tuple):
        return [f"messages.{i}.content: Input should be a valid string or a list of content blocks"]
    empty = content == "" if isinstance(content, str) else len(content) == 0
    if empty and not (last and role == "assistant"):
        return [f"messages.{i}: all messages must have non-empty content except for the optional "
                "final assistant message"]
    problems: list[str] = []
    if isinstance(content, str):
        return problems
    for j, block in enumerate(content):
        kind = field(block, "type")
        if not isinstance(kind, str):
            problems.append(f"messages.{i}.content.{j}.type: Field required")
        elif kind == "text" and not field(block, "text"):
            problems.append(f"messages.{i}.content.{j}: text content blocks must be non-empty")
        elif kind == "tool_use" and role != "assistant":
            problems.append(f"messages.{i}.content.{j}: tool_use blocks are only allowed in assistant messages")
        elif kind == "tool_result" and role != "user":
            problems.append(f"messages.{i}.content.{j}: tool_result blocks are only allowed in user messages")
    return problems


def _pairing_problems(messages: Sequence[Any]) -> list[str]:
    problems: list[str] = []
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        blocks = blocks_of(field(message, "content"))
        uses = [field(b, "id") for b in blocks if field(b, "type") == "tool_use"]
        results = [field(b, "tool_use_id") for b in blocks if field(b, "type") == "tool_result"]
        prev = blocks_of(field(messages[i - 1], "content")) if i > 0 else []
        prev_uses = {field(b, "id") for b in prev if field(b, "type") == "tool_use"}
        if field(message, "role") == "assistant":
            for tool_id in uses:
                if tool_id in seen_ids:
                    problems.append(f"messages.{i}: `tool_use` ids must be unique: {tool_id}")
                seen_ids.add(tool_id)
        if results:
            unexpected = [r for r in results if r not in prev_uses]
            if unexpected:
                problems.append(
                    f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{', '.join(map(str, unexpected))}. Each `tool_result` block must have a corresponding "
                    "`tool_use` block in the previous message.")
            dupes = sorted({str(r) for r in results if results.count(r) > 1})
            if dupes:
                problems.append(f"messages.{i}: each `tool_use` id must have exactly one `tool_result`: "
                                f"{', '.join(dupes)}")
            kinds = [field(b, "type") for b in blocks]
            first_other = next((k for k, t in enumerate(kinds) if t != "tool_result"), len(kinds))
            if any(t == "tool_result" for t in kinds[first_other:]):
                problems.append(f"messages.{i}: `tool_result` blocks must come first in the user message, "
                                "before any other content")
        if uses:
            nxt = blocks_of(field(messages[i + 1], "content")) if i + 1 < len(messages) else []
            answered = {field(b, "tool_use_id") for b in nxt if field(b, "type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing:
                problems.append(
                    f"messages.{i + 1 if i + 1 < len(messages) else i}: `tool_use` ids were found without "
                    f"`tool_result` blocks immediately after: {', '.join(map(str, missing))}. Each `tool_use` "
                    "block must have a corresponding `tool_result` block in the next message.")
    return problems


def validate_conversation(messages: Any) -> list[str]:
    """Every problem the API would reject `messages` for, in order; `[]` when it is valid."""
    if not isinstance(messages, list | tuple):
        return ["messages: Input should be a valid list"]
    if not messages:
        return ["messages: at least one message is required"]
    problems: list[str] = []
    for i, message in enumerate(messages):
        role = field(message, "role")
        if role not in ROLES:
            problems.append(f"messages.{i}.role: Input should be 'user' or 'assistant'")
            continue
        if i == 0 and role != "user":
            problems.append('messages.0.role: first message must use the "user" role')
        if i > 0 and role == field(messages[i - 1], "role"):
            problems.append(f'messages.{i}: roles must alternate between "user" and "assistant", '
                            f'but found multiple "{role}" roles in a row')
        problems.extend(_content_problems(i, message, last=i == len(messages) - 1))
    if problems:  # pairing is only meaningful on well-formed messages
        return problems
    return _pairing_problems(messages)
