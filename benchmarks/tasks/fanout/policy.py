"""How `SimModel` behaves on the `fanout` family's prompts (every one carries the `[fanout]` marker).

The policy reads what a model would read: the product ids in the question line of the prompt,
records (JSON objects with an "id") in the prompt text and in tool results, and the step tag
(`[fanout:<step>]`) with the instructions next to it. It never sees the catalog itself.

Decision points (each one independent; a wrong one is a plausible mistake):
- a lookup, one per product a call looks up: wrong means, with equal odds, a misspelt id (the
  tool answers "no product has id ..."; the agent notices and retries on its next turn) or a
  product skipped (the agent notices it has no record for it on its next turn; if *every*
  lookup of a turn is skipped it stops early and answers with what it has);
- an aggregation (sum of stock, highest price, name of the cheapest), one per answer: wrong is
  an arithmetic slip (the total off by 1-10 or 100, another product's price, another name);
- the classifier's label (wrong: another label); the planner's JSON format (wrong: a bulleted
  list, which the orchestrator's repair call asks again for) and one decision per planned item
  (wrong: misspelt or left out); the evaluator's verdict (wrong: PASS for a bad candidate, or
  FAIL for a good one).
Answers over incomplete records are given anyway, over the records at hand, with a note.

Feedback (the same rule for every pattern, `patterns.sim.policy.doubts`): noticing that a result
is wrong is a judgement at `checker_error_rate`, never free. The evaluator's verdict is one; the
agent makes the same judgement of its own answer (up to `rechecks` times, the evaluator-optimizer's
rounds after the first, recomputing when it doubts it) and, after a turn of lookups, of whether a
product still lacks a record (it looks again only if it notices).

Crowding: a call that makes k lookup (or planned-item) decisions at once makes each of them with
error rate `min(1, e * (1 + crowding * (k - 1)))`, e = SimModel's error_rate; `crowding=0` is
plain independent decisions. Aggregation, label, format and verdict are one decision each.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

from ..base import marked
from .prompts import KINDS, MARK, QUESTION_PHRASES, SUBTASK
from .skills import (
    aggregate,
    answer_of,
    kind_for,
    misspell,
    normalise_answer,
    question_ids,
    question_line,
    records_in,
    slip,
)

_STEP = re.compile(r"\[fanout:(\w+)\]")


def text(body: str) -> Reply:
    return Reply([{"type": "text", "text": body}])


@dataclass(frozen=True)
class FanoutPolicy:
    """See the module docstring."""

    crowding: float = CROWDING
    rechecks: int = 2  # the evaluator-optimizer's rounds after the first: the same chances

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        prompt = request.first_user_text()
        tag = _STEP.search(prompt) or _STEP.search(request.system)
        step = tag.group(1) if tag else ("agent" if request.tools else "aggregate")
        if step == "classify":
            return self._classify(prompt, decide)
        if step == "plan":
            return self._plan(prompt, decide)
        if step == "evaluate":
            return self._evaluate(prompt, decide)
        if step == "aggregate" or not request.tools:
            return text(self._answer(prompt, records_in(prompt), decide))
        return self._tool_step(step, request, decide)

    def _classify(self, prompt: str, decide: Decider) -> Reply:
        question = question_line(prompt).lower()
        label = next((k for k, phrase in QUESTION_PHRASES.items() if phrase in question), KINDS[0])
        if not decide.correct():
            label = decide.rng.choice([k for k in KINDS if k != label])
        return text(label)

    def _plan(self, prompt: str, decide: Decider) -> Reply:
        ids = question_ids(prompt)
        if not decide.correct():  # the plan as prose, which the orchestrator cannot parse
            return text("Plan:\n" + "\n".join(f"- {SUBTASK.format(id=i)}" for i in ids))
        subtasks = []
        for item_id, ok in zip(ids, crowded(decide, len(ids), self.crowding), strict=True):
            if ok:
                subtasks.append(SUBTASK.format(id=item_id))
            elif decide.rng.random() >= 0.5:  # else left out
                subtasks.append(SUBTASK.format(id=misspell(item_id, ids, decide)))
        return text(json.dumps(subtasks))

    def _evaluate(self, prompt: str, decide: Decider) -> Reply:
        kind, ids, records = kind_for(prompt), question_ids(prompt), records_in(prompt)
        missing = [i for i in ids if i not in records]
        candidate = answer_of(prompt.split("Candidate:", 1)[-1])
        right = bool(kind and records and not missing
                     and normalise_answer(kind, candidate) == normalise_answer(kind, aggregate(kind, records)))
        if missing:
            verdict = f"FAIL: no record for {', '.join(missing)}; look it up."
        else:
            verdict = "PASS" if right else "FAIL: the ANSWER does not follow from the records; recompute it."
        if decide.judge() is False:  # the judgement itself wrong (`doubts`: the same rule as the agent's)
            verdict = "FAIL: the ANSWER looks wrong; recompute it from the records." if right else "PASS"
        return text(verdict)

    def _tool_step(self, step: str, request: Request, decide: Decider) -> Reply:
        prompt = request.first_user_text()
        wanted = question_ids(prompt)
        have = records_in(prompt)  # a previous attempt's records (evaluate-optimize)
        for result in request.tool_results():
            if not result["is_error"]:
                have.update(records_in(result["content"]))
        missing = [i for i in wanted if i not in have]
        if missing and (not request.tool_uses() or (step == "agent" and doubts(decide, False))):
            uses = []
            for item_id, ok in zip(missing, crowded(decide, len(missing), self.crowding), strict=True):
                if not ok and decide.rng.random() < 0.5:
                    continue  # skipped: forgotten in this call
                called = item_id if ok else misspell(item_id, wanted, decide)
                uses.append({"type": "tool_use", "name": "get_item", "input": {"item_id": called}})
            if uses:
                ids = ", ".join(u["input"]["item_id"] for u in uses)
                return Reply([{"type": "text", "text": f"Looking up {ids}."}, *uses])
        if step in ("lookup", "worker"):
            return text(self._transcript(request) or "(no records)")
        if step == "generate":
            lines = [f"{i}: {json.dumps(have[i]) if i in have else 'not found'}" for i in wanted]
            return text("\n".join([*lines, self._answer(prompt, have, decide)]))
        return text(self._answer(prompt, have, decide, self.rechecks if step == "agent" else 0))

    def _transcript(self, request: Request) -> str:
        """One line per lookup made: the record as returned, or "not found"."""
        called = {u.get("id"): str((u.get("input") or {}).get("item_id", "?")) for u in request.tool_uses()}
        lines = []
        for result in request.tool_results():
            item_id = called.get(result["tool_use_id"], "?")
            lines.append(f"{item_id}: {'not found' if result['is_error'] else result['content']}")
        return "\n".join(lines)

    def _answer(self, prompt: str, records: dict[str, dict[str, Any]], decide: Decider, rechecks: int = 0) -> str:
        kind, ids = kind_for(prompt), question_ids(prompt)
        if ids:  # records of products the question does not name play no part
            records = {i: r for i, r in records.items() if i in ids}
        missing = [i for i in ids if i not in records]
        note = f"No record for {', '.join(missing)}.\n" if missing else ""
        if kind is None or not records:
            return f"{note}ANSWER: unknown"
        right = aggregate(kind, records)
        value = right if decide.correct() else slip(kind, records, right, decide)
        for _ in range(rechecks):  # the agent's own look at its answer, judged as an evaluator would
            if not doubts(decide, value == right):
                break
            value = right if decide.correct() else slip(kind, records, right, decide)
        return f"{note}ANSWER: {value}"
