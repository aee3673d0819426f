"""How SimModel behaves on `support` prompts: it reads the ticket, the instructions and the lookups, never the truth.

It decides from what the request says (`Request.instructions()`: the system prompt and the first user
turn, wherever a design puts its instructions), never from which design sent it. Every decision is
keyed by what it decides (`recovery.key`), so a decision made again is correlated the same way
whichever design makes it. Decisions (one draw each; see `skills` for what a wrong one does):
- per question, in the call that plans its lookup: its category (wrong: another category's tool) and
  its argument (wrong: another identifier of that kind in the ticket, else a typo), keys
  `category|<sentence>` and `argument|<sentence>`; a route handler or parallel section knows its
  category, so it decides the argument only (a section first decides whether the ticket asks about
  its category at all, `relevant|<category>|<ticket>`);
- per lookup, in the call that writes the reply: quoting its facts (wrong: a vague line with no fact),
  `quote|<call>`. An error result is always answered with an apology;
- classifier 1 (the first question's category; wrong: another category, or the invented label
  `general`); planner 1 (drops a question, or a malformed JSON plan, which gets one repair call);
  synthesizer 1 per answer (wrong: that answer lost); evaluator 1 judgement (wrong verdict); the
  chain's lookup step copies the triage's calls and their results (no decision).
Instructions any design can send, each with the same cost wherever it is sent:
- `RETRY` ("If a lookup fails, read the error and try again"): a question whose last lookup failed
  is planned again (category and argument, never repeating a call tried for it), at most
  `max_retries` times — in an agent's next turn, or in a workflow's planning step shown the failed
  lookups (`history`);
- `CHECK` ("Before you answer, check that your reply answers every question"): the reply is judged
  once as the evaluator judges one (`patterns.sim.policy.doubts`, at `checker_error_rate`); a doubt
  points at the first unanswered question (a random one, doubting a good reply). With a lookup left
  for it, a model with tools looks it up again at once; a step without tools ends its reply with the
  FAIL note an evaluator would write;
- a FAIL note in view (a reviewer's, or a step's own check): a planning step plans the question it
  names again, like a retry (its two decisions, avoiding the calls tried).
- `ARGUMENTS` ("Each question keeps its category; write the arguments of its next lookup", with
  `Question n: category (tool)` lines): the same questions as a planning step, the argument only decided
  for each (`argument|<sentence>`), in the category given; like a route handler, it knows the category.
The one-round designs (single, route handler, section, worker, generator) are sent neither, and answer
whatever their one round returned.

Crowding: a call making k decisions errs on each with probability
`min(1, e * (1 + crowding * (k - 1)))` (`patterns.sim.policy.crowded`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from benchmarks.tasks.base import marked
from benchmarks.tasks.support import prompts as st
from benchmarks.tasks.support.history import RECHECK, Lookup, from_conversation, from_transcript, pending
from benchmarks.tasks.support.recovery import compose, doubted, key, named, note, quote, reargue, replan
from benchmarks.tasks.support.skills import (
    CATEGORY_OF_TOOL,
    Ticket,
    addressed,
    answer_line,
    call_key,
    plan_call,
    read,
    ticket_of,
)
from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

_HANDLER = re.compile(st.HANDLER.replace("{category}", r"(\w+)"))
_SECTION = re.compile(st.SECTION.replace("{category}", r"(\w+)"))


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text.strip() or "(no answer)"}])


def _calls(calls: list[tuple[str, dict[str, str]]], said: str = "Looking this up.") -> Reply:
    return Reply([{"type": "text", "text": said}, *({"type": "tool_use", "name": t, "input": a} for t, a in calls)])


@dataclass(frozen=True)
class SupportPolicy:
    """See the module docstring."""

    crowding: float = CROWDING
    max_retries: int = st.MAX_RETRIES

    def accepts(self, request: Request) -> bool:
        return marked(request, st.MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        text = request.instructions()
        if st.EVALUATE in text:
            return _text(self._evaluate(text, decide))
        if st.PLAN in text:
            return _text(self._plan(text, decide))
        if st.SYNTH in text:
            answers = re.findall(r"^\s*-> (.*)$", text, re.M)
            kept = [a for a, ok in zip(answers, crowded(decide, [key("keep", a) for a in answers], self.crowding),
                                       strict=True) if ok]
            return _text("\n".join(kept) or f"Sorry, I {st.SORRY} any answers.")
        if st.ARGUMENTS in text:
            return _text(self._arguments(text, decide))
        if st.CLASSIFY_EACH in text:
            return _text(self._classify_each(text, decide))
        if st.CLASSIFY in text:
            return _text(self._classify(ticket_of(text), decide))
        if st.TRIAGE in text:
            return _text(self._triage(read(ticket_of(text)), decide))
        if st.WRITE in text:
            return _text(self._write(text, decide))
        if st.REPLY in text:
            return _text(self._reply(text, decide))
        if st.LOOKUP in text:
            return self._lookup(request, text)
        if request.tool_uses():
            return self._answer(request, text, decide)
        if m := _HANDLER.search(text):
            return self._handle(read(ticket_of(text)), m.group(1), decide)
        if m := _SECTION.search(text):
            return self._section(ticket_of(text), m.group(1), decide)
        if st.WORKER in text:
            question = re.search(r"^Question: ?(.*)$", text, re.M)
            return self._first_round(read(question.group(1) if question else ticket_of(text)), decide)
        return self._first_round(read(ticket_of(text)), decide)

    def _first_round(self, ticket: Ticket, decide: Decider) -> Reply:
        if not ticket.issues:
            return _text("Could you tell me which invoice, order, account or product this is about?")
        return _calls(replan(ticket, [], list(range(len(ticket.issues))), decide, self.crowding))

    def _answer(self, request: Request, text: str, decide: Decider) -> Reply:
        """A turn after lookups. Told to retry or to check, it works per question (`recovery`); else it
        answers whatever its one round returned. Told to answer now (`none`, no tools offered: a drawn
        workflow's answer step) it answers what its lookups found: no retry or re-check it could not make
        (their lead-in, "Checking my answer again…", was the drawn workflow's answer 17 times in 50)."""
        if st.RETRY not in text and st.CHECK not in text:
            results = {r["tool_use_id"]: r for r in request.tool_results()}
            uses = request.tool_uses()
            oks = crowded(decide, [key("quote", call_key(u["name"], u.get("input") or {})) for u in uses],
                          self.crowding)
            return _text("\n".join(answer_line(u["name"], u.get("input") or {},
                                               results.get(u["id"], {}).get("content", ""),
                                               results.get(u["id"], {}).get("is_error", True), ok)
                                   for u, ok in zip(uses, oks, strict=True)))
        ticket_text = ticket_of(request.first_user_text())
        ticket = read(ticket_text)
        history = from_conversation(request, len(ticket.issues), self.max_retries)
        if not request.may_call():  # told to answer now (`none`): no retry or re-check, whatever it has
            return _text(compose(history, decide, self.crowding))
        if st.RETRY in text and (again := pending(history, self.max_retries)):
            return _calls(replan(ticket, history, again, decide, self.crowding), "That lookup failed; trying again.")
        reply = compose(history, decide, self.crowding)
        if st.CHECK in text and (again := doubted(ticket, ticket_text, history, reply, decide, self.max_retries)):
            return _calls(replan(ticket, history, again, decide, self.crowding),
                          f"{RECHECK} {' '.join(str(i + 1) for i in again)}.")
        return _text(reply)

    def _classify_each(self, text: str, decide: Decider) -> str:
        """The declared route's planning step: every question not looked up yet; then (told to retry) the
        ones whose last lookup failed; else the one a FAIL note names — each within `max_retries`."""
        ticket = read(ticket_of(text))
        history = from_transcript(text, len(ticket.issues))
        questions = self._to_look_up(ticket, history, text)
        calls = replan(ticket, history, questions, decide, self.crowding)
        lines = [f"{i + 1} {CATEGORY_OF_TOOL[t]}: {t} {json.dumps(a)}" for i, (t, a) in zip(questions, calls,
                                                                                          strict=True)]
        return "\n".join(lines) or "none"

    def _to_look_up(self, ticket: Ticket, history: list, text: str) -> list[int]:
        """A planning step's questions: those not looked up yet; then (told to retry) those whose last lookup
        failed; else the one a FAIL note names, each within `max_retries`."""
        questions = [i for i, h in enumerate(history) if not h]
        if not questions and st.RETRY in text:
            questions = pending(history, self.max_retries)
        if not questions:
            questions = [i for i in named(ticket, text) if len(history[i]) <= self.max_retries][:1]
        return questions

    def _arguments(self, text: str, decide: Decider) -> str:
        """A step told each question's category (`Question n: category (tool)`): the same questions as a planning
        step, the argument only decided for each, in the category given."""
        ticket = read(ticket_of(text))
        history = from_transcript(text, len(ticket.issues))
        given = {int(n) - 1: c for n, c in re.findall(rf"^{st.QUESTION} (\d+): (\w+) \(\w+\)$", text, re.M)}
        questions = [i for i in self._to_look_up(ticket, history, text) if given.get(i) in st.CATEGORIES]
        calls = reargue(ticket, history, questions, given, decide, self.crowding)
        lines = [f"{i + 1} {json.dumps(a)}" for i, (_, a) in zip(questions, calls, strict=True)]
        return "\n".join(lines) or "none"

    def _write(self, text: str, decide: Decider) -> str:
        """The declared route's reply step: each question's last lookup quoted; told to check, one judgement,
        and a doubt it can act on ends the reply with the FAIL note."""
        ticket_text = ticket_of(text)
        ticket = read(ticket_text)
        history = from_transcript(text, len(ticket.issues))
        reply = compose(history, decide, self.crowding)
        if st.CHECK in text and (again := doubted(ticket, ticket_text, history, reply, decide, self.max_retries)):
            reply += "\n" + note(ticket.issues[again[0]], not addressed(ticket.issues[again[0]], reply))
        return reply

    def _reply(self, text: str, decide: Decider) -> str:
        """The chain's reply step: one line per lookup its prompt lists."""
        found = re.findall(r"^(\w+) (\{.*?\}) -> (.*)$", text, re.M)
        lookups = [Lookup(t, json.loads(a), c, c.startswith("Error")) for t, a, c in found]
        return "\n".join(quote(lookups, decide, self.crowding)) or f"Sorry, I {st.SORRY} anything to answer."

    def _handle(self, ticket: Ticket, category: str, decide: Decider) -> Reply:
        issue = next((i for i in ticket.issues if i.category == category), None)
        if issue is not None:
            return _calls([plan_call(issue, ticket, True, decide.correct(key("argument", issue.sentence)),
                                     decide.rng)])
        if ticket.mentions.get(category):
            return _calls([(st.TOOL_OF[category], ticket.mentions[category][0])])
        return _text(f"Could you send me your {st.ID_KIND.get(category, 'details')}? I need it to look into this.")

    def _section(self, ticket_text: str, category: str, decide: Decider) -> Reply:
        ticket = read(ticket_text)
        issue = next((i for i in ticket.issues if i.category == category), None)
        argument = key("argument", issue.sentence if issue else f"{category}|{ticket_text}")
        relevant_ok, argument_ok = crowded(decide, [key("relevant", f"{category}|{ticket_text}"), argument],
                                           self.crowding)
        if (issue is not None) != relevant_ok:
            return _text(st.NONE)
        if issue is not None:
            return _calls([plan_call(issue, ticket, True, argument_ok, decide.rng)])
        if ticket.mentions.get(category):  # a false alarm with something to look up
            return _calls([(st.TOOL_OF[category], ticket.mentions[category][0])])
        return _text(st.NONE)

    def _lookup(self, request: Request, text: str) -> Reply:
        uses = request.tool_uses()
        if not uses:
            calls = []
            for tool, args in re.findall(r"^\w+: (\w+) (\{.*\})\s*$", text, re.M):
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
        calls = replan(ticket, [], list(range(len(ticket.issues))), decide, self.crowding)
        return "\n".join(f"{CATEGORY_OF_TOOL[t]}: {t} {json.dumps(a)}" for t, a in calls)

    def _classify(self, ticket_text: str, decide: Decider) -> str:
        ticket = read(ticket_text)
        label = ticket.issues[0].category if ticket.issues else "billing"
        if decide.correct(key("category", ticket.issues[0].sentence if ticket.issues else ticket_text)):
            return label
        if decide.rng.random() < 0.2:
            return "general"  # a label that is not a route
        return decide.rng.choice([c for c in st.CATEGORIES if c != label])

    def _plan(self, text: str, decide: Decider) -> str:
        ticket_text = ticket_of(text)
        ticket = read(ticket_text)
        questions = [i.sentence for i in ticket.issues] or [ticket_text]
        if not decide.correct(key("plan", ticket_text)):
            if len(questions) > 1 and decide.rng.random() < 0.5:
                questions.pop(decide.rng.randrange(len(questions)))  # a question overlooked
            else:
                plan = json.dumps(questions)
                return plan[: len(plan) // 2]  # cut off: malformed
        return json.dumps(questions)

    def _evaluate(self, text: str, decide: Decider) -> str:
        ticket_text = ticket_of(text)
        ticket = read(ticket_text)
        m = re.search(r"^Reply to review:\n(.*)\Z", text, re.M | re.S)
        reply = m.group(1) if m else ""
        missing = [i for i in ticket.issues if not addressed(i, reply)]
        if not doubts(decide, not missing, key("judge", f"{ticket_text}|{reply}")):
            return "PASS"
        if missing:
            return note(missing[0], True)
        return note(decide.rng.choice(ticket.issues) if ticket.issues else None, False)
