"""SimModel's token estimate: deterministic, documented, and linear over a growing conversation.

The estimate (about four characters per token, as for English text):
- a JSON part (a message, a tool definition) costs `ceil(len(canonical_json(part)) / 4)` plus an
  overhead: `MESSAGE_OVERHEAD` per message (role markers), `TOOL_OVERHEAD` per tool
  (the tool-use preamble each definition adds);
- the system prompt costs `ceil(len(text) / 4)`; every request adds `REQUEST_OVERHEAD`;
- input tokens are counted over the WHOLE request, system + tools + messages, as the API bills;
- output tokens: text and thinking `ceil(len(text) / 4)`; a tool_use block
  `TOOL_USE_OVERHEAD + ceil(len(name + canonical_json(input)) / 4)`; a reply costs at least 1.
`canonical_json` sorts keys, uses no spaces and keeps non-ASCII characters as they are.

Caching: an agent re-sends the whole conversation on every call, so counting it afresh each
time would be quadratic. `TokenCounter` serialises each message (and tool) dict once and keys
the result by the object's `id()`; the entry holds a reference to the object, so its id cannot be
reused while cached, and checks identity on lookup. Consequence, documented in SimModel too:
**a message dict must not be mutated in place after it has been sent** (build a new dict, as
the compaction code does). The cache is bounded (oldest entries evicted first).
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4
REQUEST_OVERHEAD = 3
MESSAGE_OVERHEAD = 4
TOOL_OVERHEAD = 8
TOOL_USE_OVERHEAD = 6


def _plain_default(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)
    if callable(dump):  # an SDK content block appended as it came back
        return dump(mode="json", exclude_none=True)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain_default)


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def block_output_tokens(block: dict[str, Any]) -> int:
    """Tokens the model spends generating one content block."""
    kind = block.get("type")
    if kind == "text":
        return text_tokens(str(block.get("text", "")))
    if kind == "thinking":
        return text_tokens(str(block.get("thinking", "")))
    if kind == "tool_use":
        return TOOL_USE_OVERHEAD + text_tokens(str(block.get("name", "")) + canonical_json(block.get("input", {})))
    return text_tokens(canonical_json(block))


def output_tokens(blocks: Iterable[dict[str, Any]]) -> int:
    return max(1, sum(block_output_tokens(b) for b in blocks))


def _is_plain(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    content = obj.get("content")
    return not isinstance(content, list) or all(isinstance(b, dict) for b in content)


@dataclass(frozen=True, slots=True)
class Entry:
    """What is computed once per message or tool dict."""

    ref: Any  # the object itself: keeps its id() from being reused while cached
    tokens: int  # its JSON part's tokens, without the per-part overhead
    digest: bytes  # sha256 of its canonical JSON (SimModel's seeding hashes these)
    plain: Any  # the same object if it is plain dicts, else a plain-dict copy


class TokenCounter:
    """Counts request tokens with a bounded identity-keyed cache. Safe to share between threads."""

    def __init__(self, max_entries: int = 4096) -> None:  # the live conversations' messages, not a sweep's history
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self._cache: dict[int, Entry] = {}
        self._lock = threading.Lock()
        self.misses = 0  # serialisations done: the test of the cache counts these

    def entry(self, obj: Any) -> Entry:
        hit = self._cache.get(id(obj))
        if hit is not None and hit.ref is obj:
            return hit
        text = canonical_json(obj)
        plain = obj if _is_plain(obj) else json.loads(text)
        new = Entry(obj, text_tokens(text), hashlib.sha256(text.encode()).digest(), plain)
        with self._lock:
            self.misses += 1
            self._cache[id(obj)] = new
            while len(self._cache) > self.max_entries:
                del self._cache[next(iter(self._cache))]
        return new

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def message_tokens(self, message: Any) -> int:
        return MESSAGE_OVERHEAD + self.entry(message).tokens

    def tool_tokens(self, tool: Any) -> int:
        return TOOL_OVERHEAD + self.entry(tool).tokens

    def count_request(self, *, system: str, tools: Iterable[Any], messages: Iterable[Any]) -> int:
        """Input tokens of a whole request: system + tools + messages."""
        total = REQUEST_OVERHEAD + text_tokens(system) + sum(self.tool_tokens(t) for t in tools)
        cache = self._cache
        for message in messages:  # the hot path of a long conversation: inlined cache hit
            hit = cache.get(id(message))
            if hit is None or hit.ref is not message:
                hit = self.entry(message)
            total += MESSAGE_OVERHEAD + hit.tokens
        return total
