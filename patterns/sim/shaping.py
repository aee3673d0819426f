"""What the API does to a generated reply before returning it: stop sequences and token limits.

- **stop_sequences**: the first text block containing one is cut just before the earliest
  match (the sequence itself is not returned, as in the API); later blocks are dropped;
  `stop_reason` is "stop_sequence" and `stop_sequence` the one matched. A text block cut to
  nothing is dropped, so the content may be empty (the API does that too).
- **max_tokens** (and the context window): blocks are kept while their output tokens fit. A
  text or thinking block that does not fit is cut to the tokens left (4 characters a token);
  later blocks are dropped; `stop_reason` is "max_tokens" ("model_context_window_exceeded" when
  the window, not max_tokens, was the tighter limit) and output_tokens equal the limit.
- **a tool_use that does not fit** is cut inside its input JSON: it is returned as the API
  returns an unfinished one, after whatever content preceded it, with its id and name and an
  empty `input`, under stop_reason "max_tokens". The caller must not run it: the right
  recovery is to retry with a higher max_tokens.
Stop sequences are applied first: generation ends at whichever limit comes first in the output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .tokens import CHARS_PER_TOKEN, block_output_tokens, output_tokens

_CUTTABLE = {"text": "text", "thinking": "thinking"}


@dataclass(frozen=True, slots=True)
class Shaped:
    content: list[dict[str, Any]]
    stop_reason: str | None  # None: not cut; the policy's or the derived stop_reason applies
    stop_sequence: str | None
    output_tokens: int


def apply_stop_sequences(blocks: list[dict[str, Any]], stop_sequences: Sequence[str]
                         ) -> tuple[list[dict[str, Any]], str | None]:
    if not stop_sequences:
        return blocks, None
    for i, block in enumerate(blocks):
        if block.get("type") != "text":
            continue
        text = str(block.get("text", ""))
        hits = [(text.find(s), s) for s in stop_sequences if s and s in text]
        if hits:
            at, seq = min(hits)
            kept = blocks[:i] + ([{**block, "text": text[:at]}] if at > 0 else [])
            return kept, seq
    return blocks, None


def apply_limit(blocks: list[dict[str, Any]], limit: int) -> tuple[list[dict[str, Any]], bool]:
    """(blocks that fit in `limit` output tokens, whether anything was cut)."""
    kept: list[dict[str, Any]] = []
    budget = limit
    for block in blocks:
        cost = block_output_tokens(block)
        if cost <= budget:
            kept.append(block)
            budget -= cost
            continue
        field = _CUTTABLE.get(str(block.get("type")))
        if field is not None:
            text = str(block.get(field, ""))[: budget * CHARS_PER_TOKEN]
            if text:
                kept.append({**block, field: text})
        elif block.get("type") == "tool_use":
            kept.append({**block, "input": {}})  # unfinished: its input JSON never closed
        return kept, True
    return kept, False


def shape(blocks: list[dict[str, Any]], *, stop_sequences: Sequence[str], max_tokens: int,
          window_left: int) -> Shaped:
    """Apply stop sequences, then the tighter of max_tokens and the context window left."""
    content, seq = apply_stop_sequences(blocks, stop_sequences)
    limit = max(0, min(max_tokens, window_left))
    content, cut = apply_limit(content, limit)
    if cut:
        reason = "max_tokens" if limit >= max_tokens else "model_context_window_exceeded"
        return Shaped(content, reason, None, limit)
    return Shaped(content, "stop_sequence" if seq is not None else None, seq, output_tokens(content))
