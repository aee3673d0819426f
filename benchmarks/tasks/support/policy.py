"""How SimModel behaves on `support` prompts: it reads the ticket and the tool results, never the truth.

Decisions (one draw each; see `skills` for what a wrong one does):
- per question, in the call that plans the lookups: its category (wrong: another category's
  tool) and its argument (wrong: another identifier of that kind in the ticket, else a typo);
  a route handler or parallel section knows its category, so it decides the argument only
  (a section first decides whether the ticket asks about its category at all);
- per lookup, in the call that writes the reply: quoting its facts (wrong: a vague line with no
  fact). An error result is always answered with an apology;
- classifier 1 (wrong: another category, or the invented label `general`); planner 1 (drops a
  question, or a malformed JSON plan, which gets one repair call); synthesizer 1 per answer
  (wrong: that answer lost); evaluator 1 (wrong verdict); the chain's lookup step copies the
  triage's calls and their results (no decision).
The agent retries a question whose lookup failed (a fresh category and argument decision, never
repeating a call that failed), at most `max_retries` times, then answers.
Feedback (the same rule for every pattern, `patterns.sim.policy.doubts`): before it answers, the
agent judges its own reply exactly as the evaluator judges one — one judgement at
`checker_error_rate` of whether every question is answered with a fact for its identifier; if it
doubts the reply it looks the first unanswered question (or, doubting a good reply, a random one)
up again, within the same `max_retries`. The one-round designs
(single, route handler, section, worker, generator) answer whatever their one round returned.

Crowding: a call making k decisions errs on each with probability
`min(1, e * (1 + crowding * (k - 1)))` (`patterns.sim.policy.crowded`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from patterns.conversation import blocks_of
from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

from ..base import marked
from . import prompts as st
from .skills import (
    CATEGORY_OF_TOOL,
    Issue,
    Ticket,
    addressed,
    answer_line,
    call_key,
    plan_call,
    read,
    ticket_of,
)

_HANDLER = re.compile(st.HANDLER.replace("{category}", r"(\w+)"))
_SECTION = re.compile(st.SECTION.replace("{category}", r"(\w+)"))
History = list[list[tuple[dict[str, Any], dict[str, Any]]]]


_RECHECK = "Checking my answer again: question"  # how a re-check turn names the questions it re-asks


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text.strip() or "(no answer)"}])


def _calls(calls: list[tuple[str, dict[str, str]]], note: str = "Looking this up.") -> Reply:
    return Reply([{"type": "text", "text": note}, *({"type": "tool_use", "name": t, "input": a} for t, a in calls)])


@dataclass(frozen=True)
class SupportPolicy:
    """See the module docstring."""

    crowding: float = CROWDING
    max_retries: int = 2

    def accepts(self, request: Request) -> bool:
        return marked(request, st.MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        prompt, system = request.first_user_text(), request.system
        if st.EVALUATE in prompt:
            return _text(self._evaluate(prompt, decide))
        if st.PLAN in prompt:
            return _text(self._plan(read(ticket_of(prompt)), prompt, decide))
        if st.SYNTH in prompt:
            answers = re.findall(r"^\s*-> (.*)$", prompt, re.M)
            kept = [a for a, ok in zip(answers, self._k(decide, len(answers)), strict=True) if ok]
            return _text("\n".join(kept) or f"Sorry, I {st.SORRY} any answers.")
        if st.CLASSIFY in prompt:
            return _text(self._classify(read(ticket_of(prompt)), decide))
        if st.TRIAGE in prompt:
            return _text(self._triage(read(ticket_of(prompt)), decide))
        if st.REPLY in prompt:
            found = re.findall(r"^(\w+) (\{.*?\}) -> (.*)$", prompt, re.M)
            lines = [answer_line(t, json.loads(a), c, c.startswith("Error"), ok)
                     for (t, a, c), ok in zip(found, self._k(decide, len(found)), strict=True)]
            return _text("\n".join(lines) or f"Sorry, I {st.SORRY} anything to answer.")
        if st.LOOKUP in prompt:
            return self._lookup(request, prompt)
        if request.tool_uses():
            return self._answer(request, decide)
        if m := _HANDLER.search(system):
            return self._handle(read(ticket_of(prompt)), m.group(1), decide)
        if m := _SECTION.search(system):
            return self._section(read(ticket_of(prompt)), m.group(1), decide)
        if st.WORKER in prompt:
            question = re.search(r"^Question: ?(.*)$", prompt, re.M)
            return self._first_round(read(question.group(1) if question else prompt), decide)
        return self._first_round(read(ticket_of(prompt)), decide)

    def _k(self, decide: Decider, k: int) -> list[bool]:
        return crowded(decide, k, self.crowding)

    def _first_round(self, ticket: Ticket, decide: Decider) -> Reply:
        if not ticket.issues:
            return _text("Could you tell me which invoice, order, account or product this is about?")
        outcomes = self._k(decide, 2 * len(ticket.issues))
        return _calls([plan_call(issue, ticket, outcomes[2 * i], outcomes[2 * i + 1], decide.rng)
                       for i, issue in enumerate(ticket.issues)])

    def _answer(self, request: Request, decide: Decider) -> Reply:
        if st.AGENT_HINT in request.system:
            return self._agent_turn(request, decide)
        results = {r["tool_use_id"]: r for r in request.tool_results()}
        uses = request.tool_uses()
        lines = [answer_line(u["name"], u.get("input") or {}, results.get(u["id"], {}).get("content", ""),
                             results.get(u["id"], {}).get("is_error", True), ok)
                 for u, ok in zip(uses, self._k(decide, len(uses)), strict=True)]
        return _text("\n".join(lines))

    def _agent_turn(self, request: Request, decide: Decider) -> Reply:
        ticket = read(ticket_of(request.first_user_text()))
        history = self._history(request, len(ticket.issues))
        retry = self._pending(history)
        if retry:
            outcomes = self._k(decide, 2 * len(retry))
            calls = [plan_call(ticket.issues[i], ticket, outcomes[2 * j], outcomes[2 * j + 1], decide.rng,
                               frozenset(call_key(u["name"], u.get("input") or {}) for u, _ in history[i]))
                     for j, i in enumerate(retry)]
            return _calls(calls, "That lookup failed; trying again.")
        last = [h[-1] for h in history if h]
        lines = [answer_line(u["name"], u.get("input") or {}, r.get("content", ""), r.get("is_error", True), ok)
                 for (u, r), ok in zip(last, self._k(decide, len(last)), strict=True)]
        reply = "\n".join(lines) or f"Sorry, I {st.SORRY} anything to answer."
        again = self._doubted(ticket, history, reply, decide)
        if again:
            outcomes = self._k(decide, 2 * len(again))
            calls = [plan_call(ticket.issues[i], ticket, outcomes[2 * j], outcomes[2 * j + 1], decide.rng,
                               frozenset(call_key(u["name"], u.get("input") or {}) for u, _ in history[i]))
                     for j, i in enumerate(again)]
            return _calls(calls, f"{_RECHECK} {' '.join(str(i + 1) for i in again)}.")
        return _text(reply)

    def _doubted(self, ticket: Ticket, history: History, reply: str, decide: Decider) -> list[int]:
        """The questions the agent looks up again after judging its own reply as the evaluator would:
        the first one not answered with a fact if it notices, a random one if it doubts a good reply."""
        if not ticket.issues:
            return []
        missing = [i for i, x in enumerate(ticket.issues) if not addressed(x, reply)]
        if not doubts(decide, not missing):
            return []
        suspect = missing[0] if missing else decide.rng.randrange(len(ticket.issues))
        return [suspect] if len(history[suspect]) <= self.max_retries else []

    def _pending(self, history: History) -> list[int]:
        return [i for i, h in enumerate(history) if h and h[-1][1].get("is_error") and len(h) <= self.max_retries]

    def _history(self, request: Request, n: int) -> History:
        """Each question's lookups so far: the first turn asks one per question, each later turn one
        per question whose last lookup failed, in order — the way the calls were made."""
        results = {r["tool_use_id"]: r for r in request.tool_results()}
        history: History = [[] for _ in range(n)]
        pending = list(range(n))
        for message in request.messages:
            if message.get("role") != "assistant":
                continue
            uses = [b for b in blocks_of(message.get("content")) if b.get("type") == "tool_use"]
            if not uses:
                continue
            said = " ".join(b.get("text", "") for b in blocks_of(message.get("content")) if b.get("type") == "text")
            if m := re.search(re.escape(_RECHECK) + r" ([\d ]+)\.", said):
                pending = [int(k) - 1 for k in m.group(1).split()]
            for i, use in zip(pending, uses, strict=False):
                history[i].append((use, results.get(use.get("id"), {"is_error": True, "content": ""})))
            pending = self._pending(history)
        return history

    def _handle(self, ticket: Ticket, category: str, decide: Decider) -> Reply:
        issue = next((i for i in ticket.issues if i.category == category), None)
        if issue is not None:
            return _calls([plan_call(issue, ticket, True, decide.correct(), decide.rng)])
        if ticket.mentions.get(category):
            return _calls([(st.TOOL_OF[category], ticket.mentions[category][0])])
        return _text(f"Could you send me your {st.ID_KIND.get(category, 'details')}? I need it to look into this.")

    def _section(self, ticket: Ticket, category: str, decide: Decider) -> Reply:
        relevant_ok, argument_ok = self._k(decide, 2)
        issue = next((i for i in ticket.issues if i.category == category), None)
        if (issue is not None) != relevant_ok:
            return _text(st.NONE)
        if issue is not None:
            return _calls([plan_call(issue, ticket, True, argument_ok, decide.rng)])
        if ticket.mentions.get(category):  # a false alarm with something to look up
            return _calls([(st.TOOL_OF[category], ticket.mentions[category][0])])
        return _text(st.NONE)

    def _lookup(self, request: Request, prompt: str) -> Reply:
        uses = request.tool_uses()
        if not uses:
            calls = []
            for tool, args in re.findall(r"^\w+: (\w+) (\{.*\})\s*$", prompt, re.M):
                try:
                    calls.append((tool, json.loads(args)))
                except json.JSONDecodeError:
                    continue
            return _calls(calls, "Making the listed lookups.") if calls else _text("No lookups to make.")
        results = {r["tool_use_id"]: r for r in request.tool_results()}
        return _text("\n".join(f"{u['name']} {json.dumps(u.get('input') or {})} -> "
                               f"{results.get(u['id'], {}).get('content', 'Error: no result')}" for u in uses))

    def _triage(self, ticket: Ticket, decide: Decider) -> str:
        if not ticket.issues:
            return "none"
        outcomes = self._k(decide, 2 * len(ticket.issues))
        calls = [plan_call(issue, ticket, outcomes[2 * i], outcomes[2 * i + 1], decide.rng)
                 for i, issue in enumerate(ticket.issues)]
        return "\n".join(f"{CATEGORY_OF_TOOL[t]}: {t} {json.dumps(a)}" for t, a in calls)

    def _classify(self, ticket: Ticket, decide: Decider) -> str:
        label = ticket.issues[0].category if ticket.issues else "billing"
        if decide.correct():
            return label
        if decide.rng.random() < 0.2:
            return "general"  # a label that is not a route
        return decide.rng.choice([c for c in st.CATEGORIES if c != label])

    def _plan(self, ticket: Ticket, prompt: str, decide: Decider) -> str:
        questions = [i.sentence for i in ticket.issues] or [ticket_of(prompt)]
        if not decide.correct():
            if len(questions) > 1 and decide.rng.random() < 0.5:
                questions.pop(decide.rng.randrange(len(questions)))  # a question overlooked
            else:
                text = json.dumps(questions)
                return text[: len(text) // 2]  # cut off: malformed
        return json.dumps(questions)

    def _evaluate(self, prompt: str, decide: Decider) -> str:
        ticket = read(ticket_of(prompt))
        m = re.search(r"^Reply to review:\n(.*)\Z", prompt, re.M | re.S)
        reply = m.group(1) if m else ""
        missing: list[Issue] = [i for i in ticket.issues if not addressed(i, reply)]
        if not doubts(decide, not missing):
            return "PASS"
        if missing:
            return f"FAIL: the question about {', '.join(missing[0].args.values())} is not answered with a fact."
        about = decide.rng.choice(ticket.issues) if ticket.issues else None
        return f"FAIL: the question about {', '.join(about.args.values()) if about else 'the ticket'} is not answered."
