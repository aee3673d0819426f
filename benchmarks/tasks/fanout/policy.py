"""How `SimModel` behaves on the `fanout` family's prompts (every one carries the `[fanout]` marker).

The policy reads what a model would read: the product ids in the question line of the prompt,
records (JSON objects with an "id") in the prompt text and in tool results, and the step tag
(`[fanout:<step>]`) with the instructions next to it, wherever they sit (`Request.instructions()`:
the system prompt and the first user turn). It never sees the catalog itself, and never which design
sent the request: the agent's tag names its step, but every capability is an instruction any design
can send. Every decision is keyed by what it decides (`fanout|<what>|<about>`), so a decision made
again in a trial is correlated at `error_correlation` whichever design makes it.

Decision points (each one independent; a wrong one is a plausible mistake):
- a lookup, one per product a call looks up (`item|<id>`): wrong means, with equal odds, a misspelt
  id (the tool answers "no product has id ...") or a product skipped in that call;
- an aggregation (sum of stock, highest price, name of the cheapest), one per answer
  (`aggregate|<kind>|<ids>`): wrong is an arithmetic slip (the total off by 1-10 or 100, another
  product's price, another name);
- the classifier's label (wrong: another label); the planner's JSON format (wrong: a bulleted
  list, which the orchestrator's repair call asks again for) and one decision per planned item
  (`plan-item|<id>`; wrong: misspelt or left out); the evaluator's verdict, a judgement
  (`judge|<kind>|<ids>|<candidate>`; wrong: PASS for a bad candidate, or FAIL for a good one).
Answers over incomplete records are given anyway, over the records at hand, with a note.

Instructions any design can send, each at the same cost wherever it is sent (`patterns.sim.policy.doubts`:
noticing that a result is wrong is a judgement at `checker_error_rate`, never free):
- `RETRY` ("If a lookup fails, check the id against the question and try again"): after a round of
  lookups that left a product without a record, one judgement of whether one is still missing
  (`missing|<ids>`); noticing it, the call looks the missing ones up again (a lookup decision each).
  Without it (the one-round designs) a call answers over what its one round returned; if every
  lookup of the first round is skipped it answers at once, with what it has;
- `CHECK` ("Before you answer, check your answer against the records"): the call that computes the
  answer judges it as the evaluator would (`judge|...`), up to `rechecks` times (the
  evaluator-optimizer's rounds after the first), recomputing it (an aggregation decision) each time it
  doubts it. No extra call: the agent's answering turn, or the declared parallel's aggregator.

Crowding: a call that makes k lookup (or planned-item) decisions at once makes each of them with
error rate `min(1, e * (1 + crowding * (k - 1)))`, e = SimModel's error_rate; `crowding=0` is
plain independent decisions. Aggregation, label, format and verdict are one decision each.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.base import marked
from benchmarks.tasks.fanout.prompts import CHECK, KINDS, MARK, QUESTION_PHRASES, RETRY, SUBTASK
from benchmarks.tasks.fanout.skills import (
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
from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

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
        prompt = request.instructions()
        tag = _STEP.search(prompt)
        step = tag.group(1) if tag else ("answer" if request.tools else "aggregate")
        if step == "classify":
            return self._classify(prompt, decide)
        if step == "plan":
            return self._plan(prompt, decide)
        if step == "evaluate":
            return self._evaluate(prompt, decide)
        if step == "aggregate" or not request.tools:  # the records at hand: in the prompt and in tool results
            return text(self._answer(prompt, self._records(request, prompt), decide, self._rechecks(prompt)))
        return self._tool_step(step, request, decide)

    @staticmethod
    def _records(request: Request, prompt: str) -> dict[str, Any]:
        """Every record the request shows: quoted in its prompt, or returned by a lookup earlier in the
        conversation (a model answering without tools still reads the results it was given)."""
        have = records_in(prompt)
        for result in request.tool_results():
            if not result["is_error"]:
                have.update(records_in(result["content"]))
        return have

    def _rechecks(self, instructions: str) -> int:
        """How often the call may judge (and recompute) its answer: `rechecks` when told to check it."""
        return self.rechecks if CHECK in instructions else 0

    def _classify(self, prompt: str, decide: Decider) -> Reply:
        question = question_line(prompt).lower()
        label = next((k for k, phrase in QUESTION_PHRASES.items() if phrase in question), KINDS[0])
        if not decide.correct(f"fanout|classify|{question}"):
            label = decide.rng.choice([k for k in KINDS if k != label])
        return text(label)

    def _plan(self, prompt: str, decide: Decider) -> Reply:
        ids = question_ids(prompt)
        if not decide.correct(f"fanout|plan|{question_line(prompt)}"):  # the plan as prose, which cannot be parsed
            return text("Plan:\n" + "\n".join(f"- {SUBTASK.format(id=i)}" for i in ids))
        subtasks = []
        for item_id, ok in zip(ids, crowded(decide, [f"fanout|plan-item|{i}" for i in ids], self.crowding),
                               strict=True):
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
        if decide.judge(_judged(kind, records, candidate)) is False:  # wrong itself (`doubts`, as the agent's)
            verdict = "FAIL: the ANSWER looks wrong; recompute it from the records." if right else "PASS"
        return text(verdict)

    def _tool_step(self, step: str, request: Request, decide: Decider) -> Reply:
        prompt = request.instructions()
        wanted = question_ids(prompt)
        have = records_in(prompt)  # a previous attempt's records (evaluate-optimize)
        for result in request.tool_results():
            if not result["is_error"]:
                have.update(records_in(result["content"]))
        missing = [i for i in wanted if i not in have]
        again = bool(missing) and (not request.tool_uses() or self._noticed(prompt, missing, decide))
        if again:
            uses = []
            for item_id, ok in zip(missing, crowded(decide, [f"fanout|item|{i}" for i in missing], self.crowding),
                                   strict=True):
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
            return text("\n".join([*lines, self._answer(prompt, have, decide, self._rechecks(prompt))]))
        return text(self._answer(prompt, have, decide, self._rechecks(prompt)))

    @staticmethod
    def _noticed(instructions: str, missing: list[str], decide: Decider) -> bool:
        """Told to retry, after a round of lookups: does it notice a product still lacks a record (a judgement)?"""
        return RETRY in instructions and doubts(decide, False, f"fanout|missing|{','.join(missing)}")

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
        decision = f"fanout|aggregate|{kind}|{','.join(sorted(records))}"
        value = right if decide.correct(decision) else slip(kind, records, right, decide)
        for _ in range(rechecks):  # its own look at its answer (CHECK), judged as an evaluator would
            if not doubts(decide, value == right, _judged(kind, records, value)):
                break
            value = right if decide.correct(decision) else slip(kind, records, right, decide)
        return f"{note}ANSWER: {value}"


def _judged(kind: str | None, records: dict[str, dict[str, Any]], candidate: str) -> str:
    """A judgement's key: the answer judged, and the question and records it answers."""
    return f"fanout|judge|{kind}|{','.join(sorted(records))}|{candidate}"
