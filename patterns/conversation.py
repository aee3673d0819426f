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

import operator
import threading
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
    for i in range(len(messages)):
        problems += _id_problems(messages, i, seen_ids)
        problems += _link_problems(messages, i)
    return problems


def _uses(message: Any) -> list[Any]:
    return [field(b, "id") for b in blocks_of(field(message, "content")) if field(b, "type") == "tool_use"]


def _id_problems(messages: Sequence[Any], i: int, seen_ids: set[Any]) -> list[str]:
    """An assistant message's tool_use ids that an earlier block already used (`seen_ids` grows)."""
    if field(messages[i], "role") != "assistant":
        return []
    problems: list[str] = []
    for tool_id in _uses(messages[i]):
        if tool_id in seen_ids:
            problems.append(f"messages.{i}: `tool_use` ids must be unique: {tool_id}")
        seen_ids.add(tool_id)
    return problems


def _link_problems(messages: Sequence[Any], i: int) -> list[str]:
    """Message i's tool_results against message i-1's tool_uses, and its tool_uses against message i+1."""
    problems: list[str] = []
    message = messages[i]
    blocks = blocks_of(field(message, "content"))
    uses = [field(b, "id") for b in blocks if field(b, "type") == "tool_use"]
    results = [field(b, "tool_use_id") for b in blocks if field(b, "type") == "tool_result"]
    if results:
        prev = blocks_of(field(messages[i - 1], "content")) if i > 0 else []
        prev_uses = {field(b, "id") for b in prev if field(b, "type") == "tool_use"}
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
    for i in range(len(messages)):
        problems += _message_problems(messages, i)
    if problems:  # pairing is only meaningful on well-formed messages
        return problems
    return _pairing_problems(messages)


def _message_problems(messages: Sequence[Any], i: int) -> list[str]:
    """Message i on its own and beside message i-1: role, alternation, content."""
    message = messages[i]
    role = field(message, "role")
    if role not in ROLES:
        return [f"messages.{i}.role: Input should be 'user' or 'assistant'"]
    problems: list[str] = []
    if i == 0 and role != "user":
        problems.append('messages.0.role: first message must use the "user" role')
    if i > 0 and role == field(messages[i - 1], "role"):
        problems.append(f'messages.{i}: roles must alternate between "user" and "assistant", '
                        f'but found multiple "{role}" roles in a row')
    problems.extend(_content_problems(i, message, last=i == len(messages) - 1))
    return problems


class GrowingConversations:
    """`validate_conversation`, linear over a conversation that grows by appending (an agent's).

    Re-checking every message on every call would make a long conversation quadratic. This
    remembers the last valid version of each conversation (by the identity of its first message)
    and, when a request holds the same message objects followed by new ones, checks only what
    the new ones can change: the new messages themselves, the old last message (no longer last),
    its link to the first new one, and the new tool_use ids against the old ones. Anything else —
    another conversation, a rewritten history, or any problem at all — goes through
    `validate_conversation`, so the answer (and the wording of the first problem) is the same.
    Like SimModel's token cache it relies on sent messages never being mutated in place.
    """

    def __init__(self, max_entries: int = 4096) -> None:
        self.max_entries = max_entries
        self._last: dict[int, tuple[list[Any], frozenset[Any], frozenset[Any]]] = {}  # refs, ids, last's ids
        self._lock = threading.Lock()

    def problems(self, messages: Any) -> list[str]:
        if not isinstance(messages, list | tuple) or not messages:
            return validate_conversation(messages)
        known = self._last.get(id(messages[0]))
        if known is not None and self._extends(known[0], messages) and self._new_part_fits(known, messages):
            return []
        problems = validate_conversation(messages)
        if not problems:
            ids: set[Any] = set()
            for i in range(len(messages)):
                _id_problems(messages, i, ids)
            self._remember(messages, frozenset(ids))
        return problems

    @staticmethod
    def _extends(refs: list[Any], messages: Sequence[Any]) -> bool:
        n = len(refs) - 1  # the old last message may have been replaced (a pause_turn merges it)
        return n >= 1 and len(messages) > n and all(map(operator.is_, messages[:n], refs[:n]))

    def _new_part_fits(self, known: tuple[list[Any], frozenset[Any], frozenset[Any]], messages: Sequence[Any]) -> bool:
        refs, ids, last_ids = known
        start = len(refs) - 1
        if any(_message_problems(messages, i) for i in range(start, len(messages))):
            return False
        if _link_problems(messages, start - 1):
            return False
        seen = set(ids - last_ids)  # the ids before the old last message (valid: all distinct)
        for i in range(start, len(messages)):
            if _id_problems(messages, i, seen) or _link_problems(messages, i):
                return False
        self._remember(messages, frozenset(seen))
        return True

    def _remember(self, messages: Sequence[Any], ids: frozenset[Any]) -> None:
        last = messages[-1]
        last_ids = frozenset(_uses(last)) if field(last, "role") == "assistant" else frozenset()
        with self._lock:
            self._last.pop(id(messages[0]), None)  # re-inserted last: the oldest conversation is evicted first
            self._last[id(messages[0])] = (list(messages), ids, last_ids)
            while len(self._last) > self.max_entries:
                del self._last[next(iter(self._last))]
