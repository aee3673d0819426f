"""SimModel's behaviour on `multihop` prompts: it reads the question and the documents it has been shown
(prompt text and tool results, never the ground truth) and decides the next step as a model would.

It is blind to the pattern: what a request asks for is read from its instructions (`Request.instructions()`:
the system prompt and the first user turn, wherever a design put them), by a phrase of the family's
prompts (`prompts.py`), and the same content gets the same decisions in an agent's turn and a workflow
step. Every decision is keyed by what it is about (`reading.py`: `copy|<id>`, `choose|<doc>`,
`fits|<doc>`, ...), so making it again is correlated at `error_correlation` whoever makes it.

Decision points, what each costs, and the mistake made when one goes wrong (the kind chosen uniformly
among those that apply):
- copying a document id into read_document (`copy|<id>`, one decision; the agent's and every one-round
  step's first read of the start, the generator's read): misreads the id (one digit changed or two
  adjacent digits swapped; the generator keeps real ids apart from such misreadings, so a misread id is
  always a "no such document" error);
- the next step at a document (`choose|<doc>`, one decision, whoever walks: the agent's turn, the follow
  step, the generator, a one-round step on its document): on a document that refers onward (the project
  page or a hand-over) it follows a distractor reference (one not tried from there yet, when there is
  one), misreads the right id, or (on a hand-over) answers too early with that person's value; on the
  document that answers, it reports the wrong attribute's value or follows a distractor reference;
- noticing that a document is not about the question's project (`fits|<doc>`, one judgement at
  `checker_error_rate`, `doubts`' rule, whoever reads it): noticed, the agent goes back to the deepest
  fitting document it has read and decides there again (`choose|<that doc>`, excluding what did not
  fit: the same call), a follow step replies DEAD END (the declared walk then sends its follow step
  back to the last fitting document, the rejected reference quoted: one more `choose|<that doc>`), the
  generator goes back; missed, each takes it for the owner's page and answers with its value;
- after a failed read (an error tool_result in the agent's conversation, or the same error quoted in a
  follow step's `<tried>` list), the one re-decision at the document it was read from (`choose|<doc>`);
- the route classifier's label (`classify|<start>`, flipped); the synthesizer's report (`report|<value>`,
  a digit off); the reviewer's verdict (`review|<doc>|<value>`, a judgement: a good answer rejected, or a
  bad one passed);
- the planner lists every reference of the starting document (k ids, `copy|<id>` each) and formats the
  JSON (`plan|<start>`): k + 1 decisions in one call (a misread id; a malformed array).

Crowding: a call that makes k decisions at once gets each wrong with probability
min(1, e * (1 + crowding * (k - 1))) (`crowded`); with crowding 0 that is k plain `correct()` draws.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.tasks.base import marked
from benchmarks.tasks.multihop.prompts import (
    AGENT,
    CLASSIFY,
    DIRECT,
    FOLLOW,
    GENERATE,
    MARK,
    ONE_ROUND,
    PLAN,
    REVIEW,
    SYNTHESIZE,
)
from benchmarks.tasks.multihop.reading import (
    ATTRIBUTES,
    CURRENT,
    DOC_ID,
    HANDOFF,
    VALUES,
    Doc,
    Question,
    choose,
    copy_id,
    key,
    parse_doc,
    parse_question,
)
from benchmarks.tasks.multihop.skills import digit_off as _digit_off
from benchmarks.tasks.multihop.skills import misread
from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

__all__ = ["MultihopPolicy", "choose", "parse_doc", "parse_question"]

_FROM = re.compile(r"\(from (doc-\d+)")
_REJECTED = re.compile(r"^- (doc-\d+) did not fit", re.M)
_LABELS = {"answer": "ANSWER", "read": "NEXT", "dead_end": "DEAD END"}  # how a fixed step words an action


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _read(doc_id: str, why: str = "") -> Reply:
    use = {"type": "tool_use", "name": "read_document", "input": {"doc_id": doc_id}}
    return Reply([{"type": "text", "text": why or f"Reading {doc_id}."}, use])


def _section(text: str, tag: str) -> str:
    m = re.search(rf"<{tag}>\n?(.*?)\n?</{tag}>", text, re.S)
    return m.group(1) if m else ""


def _last_doc(request: Request, q: Question) -> Doc | None:
    """The document the last tool result shows (None after an error)."""
    results = request.last_tool_results()
    return None if not results or results[-1]["is_error"] else parse_doc(results[-1]["content"], q)


_OnDoc = Callable[["MultihopPolicy", Doc | None, Question, Decider], Reply]
_OnRequest = Callable[["MultihopPolicy", Request, Question, Decider], Reply]


def _reads_start(step: _OnDoc) -> _OnRequest:
    """A step with one round of tools on the starting document (single, the route classifier, the planner):
    its first turn reads that document (copying the id is a decision), its second is `step` on what the
    read showed (None after an error)."""

    def respond(policy: MultihopPolicy, request: Request, q: Question, decide: Decider) -> Reply:
        if not request.tool_results():
            return _read(copy_id(q.start, decide))
        return step(policy, _last_doc(request, q), q, decide)

    return respond


@dataclass(frozen=True)
class MultihopPolicy:
    """See the module docstring."""

    crowding: float = CROWDING

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        text = request.instructions()
        q = parse_question(text)
        if q is None:
            return _text("UNKNOWN: I cannot find the question.")
        # the most specific phrase first: the generator's and the direct step's prompts also say ONE_ROUND
        for phrase, handler in ((FOLLOW, self._follow), (GENERATE, self._generate), (REVIEW, self._review),
                                (SYNTHESIZE, self._synthesize), (PLAN, self._plan), (CLASSIFY, self._classify),
                                (DIRECT, self._one_round), (AGENT, self._agent), (ONE_ROUND, self._one_round)):
            if phrase in text:
                return handler(request, q, decide)
        return _text("UNKNOWN: I do not know what this step asks for.")

    def _agent(self, request: Request, q: Question, decide: Decider) -> Reply:
        frontier: Doc | None = None  # the deepest document read that fits the question
        seen: set[str] = set()
        for result in request.tool_results():
            doc = None if result["is_error"] else parse_doc(result["content"], q)
            if doc is not None:
                seen.add(doc.id)
                frontier = doc if doc.kind != "other" else frontier
        last = _last_doc(request, q)
        if last is not None and last.kind == "other" and (off := choose(last, q, decide))[0] != "dead_end":
            return _text(off[1])  # did not notice: taken for the owner's page
        if frontier is None:
            return _read(copy_id(q.start, decide))
        kind, value = choose(frontier, q, decide, frozenset(seen))
        if kind != "read":
            return _text(value)
        if last is None or last.id != frontier.id:
            return _read(value, f"That did not fit; back to {frontier.id}: reading {value}.")
        return _read(value)

    @_reads_start
    def _one_round(self, doc: Doc | None, q: Question, decide: Decider) -> Reply:
        if doc is None:
            return _text("UNKNOWN: the document could not be read.")
        if doc.kind == "answer" and (action := choose(doc, q, decide))[0] == "answer":
            return _text(action[1])
        where = f"; it refers on to {doc.next}" if doc.next else ""
        return _text(f"UNKNOWN: {doc.id} does not say{where}.")

    def _follow(self, request: Request, q: Question, decide: Decider) -> Reply:
        text = request.instructions()
        doc = parse_doc(_section(text, "document"), q)
        if doc is None:
            return _text("DEAD END: that is not a document.")
        kind, value = choose(doc, q, decide, frozenset(_REJECTED.findall(_section(text, "tried"))))
        return _text(f"{_LABELS[kind]}: {value}")

    @_reads_start
    def _classify(self, doc: Doc | None, q: Question, decide: Decider) -> Reply:
        right = "direct" if doc is not None and doc.kind == "answer" else "follow"
        ok = decide.correct(key("classify", q.start))
        return _text(right if ok else {"direct": "follow", "follow": "direct"}[right])

    @_reads_start
    def _plan(self, doc: Doc | None, q: Question, decide: Decider) -> Reply:
        if doc is None:
            return _text("I could not read the starting document.")
        oks = crowded(decide, [*(key("copy", r) for r in doc.refs), key("plan", q.start)], self.crowding)
        ids = [r if ok else misread(r, decide.rng) for r, ok in zip(doc.refs, oks, strict=False)]
        plan = json.dumps([f"Follow {i} and report where it leads." for i in ids])
        return _text(plan if oks[-1] else plan[:-1])  # a malformed plan: the closing bracket forgotten

    def _synthesize(self, request: Request, q: Question, decide: Decider) -> Reply:
        answers = re.findall(r"-> ANSWER: (\S+)", request.instructions())
        if not answers:
            return _text("UNKNOWN: no worker found the answer.")
        ok = decide.correct(key("report", answers[0]))
        return _text(f"ANSWER: {answers[0] if ok else _digit_off(answers[0], decide.rng)}")

    def _generate(self, request: Request, q: Question, decide: Decider) -> Reply:
        text = request.instructions()
        previous, feedback = _section(text, "reply"), _section(text, "feedback")
        target = next(iter(DOC_ID.findall(feedback) + DOC_ID.findall(previous)), q.start)
        if not request.tool_results():
            return _read(copy_id(target, decide))
        doc = _last_doc(request, q)
        back = m.group(1) if (m := _FROM.search(previous)) else q.start
        if doc is None:  # a miscopied id is retried; an id that was wrong where it came from sends it back
            used = str(request.tool_uses()[-1].get("input", {}).get("doc_id", ""))
            retry = target if used != target or target == back else back
            return _text(f"NEXT: {retry} ({used} was not found)")
        kind, value = choose(doc, q, decide)
        if kind == "dead_end":
            return _text(f"NEXT: {back} ({value})")
        if kind == "answer":
            return _text(f'ANSWER: {value} (from {doc.id}: "{doc.quote}")')
        return _text(f"NEXT: {value} (from {doc.id})")

    def _review(self, request: Request, q: Question, decide: Decider) -> Reply:
        reply = _section(request.instructions(), "reply").strip()
        if reply.startswith("NEXT:"):
            ids = DOC_ID.findall(reply)
            return _text(f"FAIL: not answered yet; read {ids[0]} next." if ids else "FAIL: name the next document.")
        m = re.match(r'ANSWER: (\S+) \(from (doc-\d+): "(.*)"\)', reply, re.S)
        if m is None:
            return _text("FAIL: reply with ANSWER: <answer> (from <doc id>: ...) or NEXT: <doc id>.")
        value, source, quote = m.groups()
        values = dict(zip(ATTRIBUTES, v.groups(), strict=True)) if (v := VALUES.search(quote)) else {}
        handoff, current = HANDOFF.search(quote), CURRENT.search(quote)
        if handoff and handoff.group(1) == q.project:
            verdict = f"FAIL: follow {handoff.group(2)}; {source} says ownership passed on."
        elif not current or current.group(1) != q.project:
            verdict = f"FAIL: {source} does not name the current owner of the {q.project} project."
        elif values.get(q.attribute) != value:
            verdict = f"FAIL: the {q.attribute} in {source} is {values.get(q.attribute)}, not {value}."
        else:
            verdict = "PASS"
        if not doubts(decide, verdict == "PASS", key("review", source, value)):
            return _text("PASS")
        return _text(verdict if verdict != "PASS" else f"FAIL: I am not convinced; read {source} again and check.")
