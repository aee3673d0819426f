"""Each question's lookups so far, read from what a request shows: an agent's tool conversation, or a
workflow's transcript quoted in its prompt (`n category: tool {arguments} -> result` lines).

Both readings give the same `History` for the same lookups, so a retry or a self-check decides the same
way whichever design shows them (`wva audit` probes it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.support.skills import CATEGORY_OF_TOOL, call_key
from patterns.conversation import blocks_of
from patterns.sim.policy import Request


@dataclass(frozen=True)
class Lookup:
    tool: str
    args: dict[str, Any]
    content: str
    is_error: bool

    @property
    def key(self) -> str:
        return call_key(self.tool, self.args)


History = list[list[Lookup]]  # per question of the ticket, in the ticket's order: its lookups, oldest first

RECHECK = "Checking my answer again: question"  # how an agent's re-check turn names the questions it re-asks
_LINE = re.compile(r"^(\d+) (\w+): (\w+) (\{[^{}]*\}) -> (.*)$", re.M)


def pending(history: History, max_retries: int) -> list[int]:
    """The questions whose last lookup failed and that may still be looked up again."""
    return [i for i, h in enumerate(history) if h and h[-1].is_error and len(h) <= max_retries]


def tried(lookups: list[Lookup]) -> frozenset[str]:
    return frozenset(x.key for x in lookups)


def from_conversation(request: Request, n: int, max_retries: int) -> History:
    """An agent's lookups per question: the first turn asks one per question, each later turn one per
    question whose last lookup failed (or the questions a re-check turn names), in order."""
    results = {r["tool_use_id"]: r for r in request.tool_results()}
    history: History = [[] for _ in range(n)]
    asked = list(range(n))
    for message in request.messages:
        if message.get("role") != "assistant":
            continue
        uses = [b for b in blocks_of(message.get("content")) if b.get("type") == "tool_use"]
        if not uses:
            continue
        said = " ".join(b.get("text", "") for b in blocks_of(message.get("content")) if b.get("type") == "text")
        if m := re.search(re.escape(RECHECK) + r" ([\d ]+)\.", said):
            asked = [int(k) - 1 for k in m.group(1).split()]
        for i, use in zip(asked, uses, strict=False):
            result = results.get(use.get("id"), {"is_error": True, "content": ""})
            if 0 <= i < n:
                history[i].append(Lookup(use["name"], use.get("input") or {}, result["content"], result["is_error"]))
        asked = pending(history, max_retries)
    return history


def from_transcript(text: str, n: int) -> History:
    """A workflow's lookups per question, from the transcript lines its prompt quotes."""
    history: History = [[] for _ in range(n)]
    for number, _category, tool, args, result in _LINE.findall(text):
        i = int(number) - 1
        try:
            parsed = json.loads(args)
        except json.JSONDecodeError:
            continue
        if 0 <= i < n and isinstance(parsed, dict):
            history[i].append(Lookup(tool, parsed, result, result.startswith("Error")))
    return history


def transcript_line(number: int, tool: str, args: dict[str, Any], result: str) -> str:
    """One lookup as the transcript writes it (a failed one's result starts with `Error`)."""
    return f"{number} {CATEGORY_OF_TOOL.get(tool, 'unknown')}: {tool} {json.dumps(args)} -> {result}"


def transcript(text: str) -> list[str]:
    """The transcript lines (`n category: tool {arguments} -> result`) in `text`, in order."""
    return [m.group(0) for m in _LINE.finditer(text)]
