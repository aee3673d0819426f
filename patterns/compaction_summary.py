"""Stage 2 of compaction, as pure functions: the summary request and the conversation that replaces the old one.

The loop (`agent.py`) makes the one model call; these build what it sends and what it keeps:
- `summary_request`: the conversation so far, with `SUMMARY_INSTRUCTION` appended to its last
  user message (the same system prompt and tools go with it, so a prompt cache still matches);
- `truncated_middle`: when that request is itself too long, the first message and as many of the
  latest messages as fit, with a visible marker where the middle was;
- `replacement`: one user message holding the original task (verbatim when it fits, else its
  head and tail around a visible marker) and the summary, then the latest assistant turn and the
  user message after it (its tool results) when they fit. Always a valid conversation.
Sizes are in characters of the JSON conversation; the loop turns token counts into a budget.
"""

from __future__ import annotations

from typing import Any

from .compaction import size

SUMMARY_INSTRUCTION = (
    "[compaction request] The conversation above is too long for the context window and will be replaced by "
    "your summary. Write the summary now, with no tool calls. Include: the task; what has been done so far; "
    "the facts found (ids, values, names, results, quoted exactly); the open threads; the next step.")
SUMMARY_HEADER = "[Summary of the conversation so far, which was compacted to fit the context window]"
OMITTED = "[Omitted to fit the context window: {n} messages from the middle of the conversation]"
CLIPPED = "\n[... {n} characters omitted to fit the context window ...]\n"
MIN_TASK_CHARS = 200  # the least of the task kept however small the window: its head and its tail


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _blocks(content: Any) -> list[Any]:
    return [_text(content)] if isinstance(content, str) else list(content)


def _joined(blocks: list[Any]) -> str:
    return "\n".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def is_summary_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and str(block.get("text", "")).startswith(
        SUMMARY_HEADER)


def _is_note(block: Any) -> bool:
    """A block compaction added to the first message: a summary, the omitted-middle marker, the instruction."""
    text = str(block.get("text", "")) if isinstance(block, dict) and block.get("type") == "text" else ""
    return text.startswith((SUMMARY_HEADER, OMITTED.split("{")[0], SUMMARY_INSTRUCTION))


def clip(text: str, keep: int) -> str:
    """`text` if it has at most `keep` characters, else its head and tail around a visible marker."""
    if len(text) <= keep:
        return text
    head = keep // 2
    return text[:head] + CLIPPED.format(n=len(text) - keep) + text[len(text) - (keep - head):]


def task_blocks(first: dict[str, Any]) -> list[Any]:
    """The original task: the first user message's blocks, without the summary an earlier compaction added."""
    blocks = _blocks(first["content"])
    return blocks[:next((i for i, b in enumerate(blocks) if _is_note(b)), len(blocks))]


def summary_request(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with the instruction added as the last user turn's final block."""
    ask = _text(SUMMARY_INSTRUCTION)
    last = messages[-1]
    if last["role"] != "user":
        return [*messages, {"role": "user", "content": [ask]}]
    return [*messages[:-1], {"role": "user", "content": [*_blocks(last["content"]), ask]}]


def _first_within(first: dict[str, Any], room: int, note: list[dict[str, Any]]) -> dict[str, Any]:
    """The first message with `note` blocks added; if that exceeds `room` characters, the task's text is
    clipped (an earlier summary in it is kept whole: it holds the facts found so far)."""
    task, rest = task_blocks(first), _blocks(first["content"])
    kept = [*rest[len(task):], *note]
    whole = {"role": "user", "content": [*task, *kept]}
    if size([whole]) <= room:
        return whole
    fixed = size([{"role": "user", "content": kept or [_text("")]}])
    text = clip(_joined(task), max(room - fixed, MIN_TASK_CHARS))
    return {"role": "user", "content": [b for b in (_text(text), *kept) if b.get("type") != "text" or b.get("text")]}


def truncated_middle(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The first message and the latest messages that fit `budget` (starting at an assistant turn, so that
    every tool_result keeps its tool_use), with a marker saying how many were left out between them."""
    keep_from = len(messages)
    for i in range(2, len(messages)):  # dropping at least one message: the whole request did not fit
        if messages[i]["role"] == "assistant" and size(messages[i:]) + size(messages[:1]) <= budget:
            keep_from = i
            break
    tail = messages[keep_from:]
    note = [_text(OMITTED.format(n=keep_from - 1))] if keep_from > 1 else []
    return [_first_within(messages[0], budget - size(tail), note), *tail]


def latest_round(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The latest assistant turn and the user message after it (its tool results, or a nudge), if any."""
    if len(messages) < 3 or messages[-1]["role"] != "user" or messages[-2]["role"] != "assistant":
        return []
    return messages[-2:]


def replacement(messages: list[dict[str, Any]], summary: str, budget: int) -> list[dict[str, Any]]:
    """What the conversation becomes after stage 2 (see the module docstring); `budget` in characters."""
    note = [_text(f"{SUMMARY_HEADER}\n{summary}")]
    task = {"role": "user", "content": task_blocks(messages[0]) or [_text("(no text)")]}
    tail = latest_round(messages)
    if tail and size([task, *tail]) + size([{"role": "user", "content": note}]) > budget:
        tail = []
    return [_first_within(task, budget - size(tail), note), *tail]
