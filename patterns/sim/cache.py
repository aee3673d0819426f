"""SimModel's prompt cache: which prompt tokens a request reads from the cache, writes to it, or pays in full.

The law, as the Messages API documents prompt caching:
- A **breakpoint** is a block carrying `cache_control` (`{"type": "ephemeral"}`, optional `ttl`
  `"5m"` or `"1h"`); at most 4 per request, else 400. A top-level `cache_control` (automatic
  caching) is a breakpoint on the last block of the last message. The blocks are the tool
  definitions, the system prompt's blocks, and each message's content blocks, in that order (the
  API's: tools, system, messages); a prefix is everything up to and including one block.
- **Prefix identity** is a sha256 chain over the canonical serialisation of the request's parts
  in that order (`tokens.canonical_json` of each tool and message without its `cache_control`,
  each system block's text), seeded with the `model` param; `tool_choice` is hashed in between
  system and messages, so changing it invalidates the cached messages but not tools or system.
- **Read**: the longest prefix already in the cache, looked up at each breakpoint and at the part
  boundaries (ends of a tool, a system block, a message) up to `LOOKBACK_BLOCKS` blocks before it.
  A read refreshes the entry's lifetime.
- **Write**: each breakpoint's prefix that is at least the model's minimum cacheable length
  (`min_cacheable_tokens`; 1,024 for Sonnet-class models) and longer than what was read is
  stored; `cache_creation_input_tokens` = the furthest such prefix minus what was read.
  `input_tokens` = the rest of the prompt (never less than the request's fixed overhead, which
  belongs to no prefix), so input + write + read is the same prompt total as without caching.
- **Lifetime**: an entry expires `TTL_S` (5 minutes; 1 hour for `ttl: "1h"`) after its last
  write or read, on the model's clock. It becomes readable only when its writer's response has
  begun (its start + time to first token + prefill): requests sent at the same moment (parallel
  branches, votes) all miss and all pay the write, as on the API.
- **Scope**: one `PromptCache` per SimModel, and `fork` makes a fresh one, so a benchmark trial
  reads only what that trial wrote. A prefix shorter than the minimum is neither read nor written.

**Reading the request.** `cache_control` is not content: `split` removes it before anything else,
so the policy, the seed and the token count see the same request with caching on or off, and a
run's decisions do not depend on it. One case needs a rule: a client must wrap a user message's
string content in a text block to mark it, so a user message whose only block is a marked text
block is read as that string (the API treats the two forms alike; the estimate differs by a few
tokens between them).

Token counts are the deterministic estimate of `tokens.py`: a tool costs `TOOL_OVERHEAD` + its
JSON, a message `MESSAGE_OVERHEAD` + its JSON (a prefix ending inside a message: the message with
its content cut after that block), the system prompt its text up to that block.
Not modelled: the 1-hour cache's higher write price (`prices.json` has the 5-minute one), the
faster prefill of cached tokens (latency counts the whole prompt), and lookback at block
boundaries inside a message other than a breakpoint's own.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..clock import REAL_CLOCK, Clock
from . import faults
from .tokens import MESSAGE_OVERHEAD, TokenCounter, canonical_json, text_tokens

TTL_S = {"5m": 300.0, "1h": 3600.0}
MAX_BREAKPOINTS = 4
LOOKBACK_BLOCKS = 20
MAX_ENTRIES = 100_000
DEFAULT_MIN_TOKENS = 1024  # Sonnet 4.5, Sonnet 4, Sonnet 3.7, Opus 4.1, Opus 4
MIN_TOKENS = {"claude-opus-4-5": 4096, "claude-haiku-4-5": 4096, "claude-3-5-haiku": 2048, "claude-3-haiku": 2048}
TOOLS, SYSTEM, MESSAGES = 0, 1, 2


def min_cacheable_tokens(model_id: str | None) -> int:
    """The API's minimum cacheable prompt length for a model id (by its longest known prefix)."""
    wanted = (model_id or "").lower()
    for name in sorted(MIN_TOKENS, key=len, reverse=True):
        if wanted.startswith(name):
            return MIN_TOKENS[name]
    return DEFAULT_MIN_TOKENS


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a request's breakpoints were: (TOOLS, i) / (SYSTEM, j) / (MESSAGES, i, j) -> lifetime in s."""

    marks: Mapping[tuple[int, ...], float]
    system_blocks: tuple[str, ...] = ()


NO_MARKS = Layout({})


def _ttl(mark: Any) -> float:
    if not isinstance(mark, Mapping) or mark.get("type") != "ephemeral":
        raise faults.invalid_request("cache_control.type: Input should be 'ephemeral'")
    ttl = mark.get("ttl", "5m")
    if ttl not in TTL_S:
        raise faults.invalid_request("cache_control.ttl: Input should be '5m' or '1h'")
    return TTL_S[ttl]


def _has(block: Any) -> bool:
    return isinstance(block, dict) and "cache_control" in block


def _strip(blocks: Any, marks: dict[tuple[int, ...], float], *where: int) -> list[Any]:
    out = []
    for j, block in enumerate(blocks):
        if _has(block):
            marks[(*where, j)] = _ttl(block["cache_control"])
            block = {k: v for k, v in block.items() if k != "cache_control"}
        out.append(block)
    return out


def _message(i: int, message: Any, marks: dict[tuple[int, ...], float]) -> Any:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not any(map(_has, content)):
        return message
    blocks = _strip(content, marks, MESSAGES, i)
    if (message.get("role") == "user" and len(blocks) == 1 and isinstance(blocks[0], dict)
            and blocks[0].get("type") == "text" and set(blocks[0]) == {"type", "text"}):
        return {**message, "content": blocks[0]["text"]}  # the string prompt a client had to wrap to mark it
    return {**message, "content": blocks}


def split(params: Mapping[str, Any]) -> tuple[Mapping[str, Any], Layout]:
    """The request without `cache_control` anywhere (as the model reads it), and where the breakpoints were.

    Raises the API's 400 for a malformed `cache_control` or more than `MAX_BREAKPOINTS`."""
    marks: dict[tuple[int, ...], float] = {}
    out = dict(params)
    tools, system, messages = out.get("tools"), out.get("system"), out.get("messages")
    if isinstance(tools, list | tuple) and any(map(_has, tools)):
        out["tools"] = _strip(tools, marks, TOOLS)
    texts: tuple[str, ...] = (system,) if isinstance(system, str) and system else ()
    if isinstance(system, list | tuple):
        texts = tuple(str(b.get("text", "")) if isinstance(b, Mapping) else "" for b in system)
        if any(map(_has, system)):
            out["system"] = _strip(system, marks, SYSTEM)
    if isinstance(messages, list | tuple):
        out["messages"] = [_message(i, m, marks) for i, m in enumerate(messages)]
        automatic = out.pop("cache_control", None)
        if automatic is not None and messages:
            content = out["messages"][-1].get("content") if isinstance(out["messages"][-1], dict) else None
            last = len(content) - 1 if isinstance(content, list) and content else 0
            marks[(MESSAGES, len(messages) - 1, last)] = _ttl(automatic)
    if len(marks) > MAX_BREAKPOINTS:
        raise faults.invalid_request(f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                                     f"Found {len(marks)}.")
    return (out, Layout(marks, texts)) if marks else (params, NO_MARKS)


@dataclass(frozen=True, slots=True)
class Boundary:
    end: int  # index of the prefix's last block in the request
    tokens: int  # the prefix's tokens
    digest: bytes  # the prefix's identity


def _reach(call: Any, layout: Layout, entries: list[Any], texts: tuple[str, ...]) -> set[int]:
    """The block indices a lookup can reach: each breakpoint's and the `LOOKBACK_BLOCKS` before it."""
    starts = [len(call.tools), len(call.tools) + len(texts)]  # first block of the system, of the messages
    for entry in entries:
        content = entry.plain.get("content")
        starts.append(starts[-1] + (len(content) if isinstance(content, list) else 1))
    first = {TOOLS: 0, SYSTEM: starts[0]}
    reach: set[int] = set()
    for where in layout.marks:
        end = starts[where[1] + 1] + where[2] if where[0] == MESSAGES else first[where[0]] + where[1]
        reach.update(range(end - LOOKBACK_BLOCKS, end + 1))
    return reach


def boundaries(call: Any, layout: Layout, tokens: TokenCounter) -> tuple[list[Boundary], list[tuple[Boundary, float]]]:
    """The part boundaries a lookup can reach, and each breakpoint's boundary with its lifetime."""
    texts = layout.system_blocks or ((call.system,) if call.system else ())
    entries = [tokens.entry(m) for m in call.messages]
    reach = _reach(call, layout, entries, texts)
    h = hashlib.sha256((call.model or "").encode())
    parts: list[Boundary] = []
    marked: list[tuple[Boundary, float]] = []
    total, block = 0, -1

    def close(where: tuple[int, ...]) -> None:
        if block not in reach:  # a digest costs a hash copy: only where a lookup can land
            return
        parts.append(Boundary(block, total, h.copy().digest()))
        if where in layout.marks:
            marked.append((parts[-1], layout.marks[where]))

    for i, tool in enumerate(call.tools):
        h.update(b"t" + tokens.entry(tool).digest)
        total, block = total + tokens.tool_tokens(tool), block + 1
        close((TOOLS, i))
    base = total
    for j, text in enumerate(texts):  # the system prompt is billed as its blocks joined by newlines
        h.update(b"s" + hashlib.sha256(text.encode()).digest())
        total, block = base + text_tokens("\n".join(texts[: j + 1])), block + 1
        close((SYSTEM, j))
    h.update(b"c" + canonical_json(call.tool_choice).encode())
    for i, entry in enumerate(entries):
        content = entry.plain.get("content")
        n = len(content) if isinstance(content, list) else 1
        for j in range(n - 1):  # a breakpoint inside the message: the message cut after that block
            if (MESSAGES, i, j) in layout.marks:
                text = canonical_json({**entry.plain, "content": content[: j + 1]})
                cut = h.copy()
                cut.update(b"m" + hashlib.sha256(text.encode()).digest())
                inner = Boundary(block + j + 1, total + MESSAGE_OVERHEAD + text_tokens(text), cut.digest())
                marked.append((inner, layout.marks[(MESSAGES, i, j)]))
        h.update(b"m" + entry.digest)
        total, block = total + MESSAGE_OVERHEAD + entry.tokens, block + n
        close((MESSAGES, i, n - 1))
    return parts, marked


class PromptCache:
    """The cached prefixes of one model (one trial): digest -> [readable from, expires at, lifetime].

    `clock`: when given, times come from it and an entry is readable at once (the sim server,
    where every request runs in its own event loop at virtual time 0 and a reply is sent whole);
    otherwise each request passes its own times on the model's clock."""

    def __init__(self, min_tokens: int = DEFAULT_MIN_TOKENS, *, clock: Clock | None = None) -> None:
        self.min_tokens = min_tokens
        self.clock = clock
        self._entries: dict[bytes, list[float]] = {}
        self._lock = threading.Lock()

    def keep_wall_time(self) -> None:
        self.clock = REAL_CLOCK

    def account(self, call: Any, layout: Layout, tokens: TokenCounter, *, now: float,
                ready_at: float) -> tuple[int, int]:
        """(cache_read_input_tokens, cache_creation_input_tokens) of one prepared request."""
        if not layout.marks:
            return 0, 0
        if self.clock is not None:
            now = ready_at = self.clock.now()
        parts, marked = boundaries(call, layout, tokens)
        with self._lock:
            read, hit = self._read(parts, marked, now)
            if hit is not None:
                hit[1] = now + hit[2]
            furthest = 0
            for mark, ttl in marked:
                if mark.tokens < self.min_tokens or mark.tokens <= read:
                    continue
                entry = self._entries.get(mark.digest)
                first = entry[0] if entry is not None and now < entry[1] else ready_at  # a write in flight stays
                self._entries[mark.digest] = [min(first, ready_at), now + ttl, ttl]
                furthest = max(furthest, mark.tokens)
            while len(self._entries) > MAX_ENTRIES:
                del self._entries[next(iter(self._entries))]
        return read, (furthest - read if furthest else 0)

    def peek(self, call: Any, layout: Layout, tokens: TokenCounter) -> int:
        """The cache_read_input_tokens `account` would give this request now, nothing changed (for the sim
        server's rate limiter, which does not count cache reads toward the input-token limit)."""
        if not layout.marks or self.clock is None:
            return 0
        parts, marked = boundaries(call, layout, tokens)
        with self._lock:
            return self._read(parts, marked, self.clock.now())[0]

    def _read(self, parts: list[Boundary], marked: list[tuple[Boundary, float]],
              now: float) -> tuple[int, list[float] | None]:
        """(tokens read, the entry read) for a request's boundaries: the longest prefix readable now."""
        read, hit = 0, None
        for mark, _ in marked:
            for b in (mark, *(p for p in parts if mark.end - LOOKBACK_BLOCKS <= p.end < mark.end)):
                entry = self._entries.get(b.digest)
                if entry is not None and entry[0] <= now < entry[1] and b.tokens > read:
                    read, hit = b.tokens, entry
        return read, hit
