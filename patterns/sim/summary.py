"""How SimModel answers a compaction request, and how it reads the summary back on later calls.

A request whose last user turn ends with `SUMMARY_INSTRUCTION` (the agent loop's stage 2, see
`patterns/compaction_summary.py`) is answered here, not by the task family's policy. The summary
is written from the request alone: the task's opening, the tool calls made so far, then every tool
result still in the conversation, **verbatim**, as a `<fact>` (id, tool, input, error flag,
content), then the last thing the assistant said. Results that stage 1 already cleared are gone
and cannot be summarised, as with a real model. The summary makes no decision: it is exact, so a
compaction's measured effect is its cost and what stage 1 or a truncated middle dropped, never a
summariser's slip (an assumption, stated here; a lossy summary would be a knob).

On every later call `with_recalled` turns the facts of a summary in the first user message back
into the tool calls and results they record, placed right after that message, so
that a family policy (which reads tool results) goes on from where the walk was. That is how a
model reads a summary; it needs nothing but the request.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from ..compaction import CLEARED
from ..compaction_summary import SUMMARY_INSTRUCTION, is_summary_block, task_blocks
from ..conversation import blocks_of
from .policy import Decider, Policy, Reply, Request

_FACT = re.compile(r'<fact id="([^"]*)" tool="([^"]*)" error="(true|false)">\n<input>(.*?)</input>\n(.*?)\n</fact>',
                   re.S)
TASK_CHARS = 300  # of the task the summary quotes (the loop puts the task itself back beside it)


def asks_for_summary(request: Request) -> bool:
    last = request.messages[-1] if request.messages else {}
    blocks = blocks_of(last.get("content")) if last.get("role") == "user" else []
    return bool(blocks) and blocks[-1].get("type") == "text" and blocks[-1].get("text") == SUMMARY_INSTRUCTION


def _fact(use: dict[str, Any] | None, result: dict[str, Any]) -> str:
    name = str((use or {}).get("name", "?"))
    tool_input = json.dumps((use or {}).get("input", {}), sort_keys=True)
    flag = "true" if result["is_error"] else "false"
    return f'<fact id="{result["tool_use_id"]}" tool="{name}" error="{flag}">\n<input>{tool_input}</input>\n' \
           f'{result["content"]}\n</fact>'


def _last_said(request: Request) -> str:
    for m in reversed(request.messages):
        if m.get("role") == "assistant":
            text = " ".join(b.get("text", "") for b in blocks_of(m.get("content")) if b.get("type") == "text")
            if text.strip():
                return text.strip()
    return "(nothing yet)"


def summarise(request: Request) -> Reply:
    """The summary of the conversation in `request` (already `with_recalled`), as the instruction asks."""
    task = " ".join(b.get("text", "") for b in task_blocks(request.messages[0]) if b.get("type") == "text")
    uses = {u.get("id"): u for u in request.tool_uses()}
    results = {r["tool_use_id"]: r for r in request.tool_results() if r["content"] != CLEARED}
    done = Counter(str(u.get("name", "?")) for u in uses.values())
    calls = ", ".join(f"{name} x{n}" for name, n in done.items()) or "none"
    lines = [f"Task: {task[:TASK_CHARS]}{' ...' if len(task) > TASK_CHARS else ''}",
             f"Done so far: {sum(done.values())} tool calls ({calls}).",
             "Facts found (tool results, verbatim):",
             *(_fact(uses.get(i), r) for i, r in results.items()),
             f"Open threads and next step: {_last_said(request)}"]
    return Reply([{"type": "text", "text": "\n".join(lines)}], "end_turn")


def with_recalled(request: Request) -> Request:
    """`request` with the facts of a summary in its first message recalled as tool calls and results."""
    if not request.messages:
        return request
    summary = next((b for b in blocks_of(request.messages[0].get("content")) if is_summary_block(b)), None)
    if summary is None:
        return request
    known = {u.get("id") for u in request.tool_uses()}
    facts = [f for f in _FACT.findall(summary["text"]) if f[0] not in known]
    if not facts:
        return request
    uses = [{"type": "tool_use", "id": i, "name": name, "input": _input(raw)} for i, name, _, raw, _ in facts]
    results = [{"type": "tool_result", "tool_use_id": i, "content": content, "is_error": flag == "true"}
               for i, _, flag, _, content in facts]
    messages = [request.messages[0], {"role": "assistant", "content": uses}, {"role": "user", "content": results},
                *request.messages[1:]]
    return replace(request, messages=messages)


def _input(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return {}


def answer(policy: Policy, request: Request, decide: Decider) -> Reply:
    """SimModel's reply: a summary for a compaction request, else the policy's, both after recalling facts."""
    request = with_recalled(request)
    return summarise(request) if asks_for_summary(request) else policy.respond(request, decide)
