"""SimModel's behaviour on `multihop` prompts: it reads the question and the documents it has been shown
(prompt text and tool results, never the ground truth) and decides the next step as a model would.

Decision points (each one `decide.correct()` unless crowded, see below), and the mistake made when
one goes wrong (the kind chosen uniformly among those that apply):
- copying a document id into read_document (start of every tool-using step): misreads the id
  (one digit changed or two adjacent digits swapped; the generator keeps real ids apart from
  such misreadings, so a misread id is always a "no such document" error);
- on a document that refers onward (the project page or a hand-over): follows a distractor
  reference, misreads the right id, or (on a hand-over) answers too early with that person's value;
- on the document that answers: reports the wrong attribute's value, or follows a distractor
  reference instead of answering;
- the route classifier's label (flipped); the synthesizer's report (a digit off); the reviewer's
  verdict (a good answer rejected, or a bad one passed);
- the planner lists every reference of the starting document (k ids) and formats the JSON: k + 1
  decisions in one call (a misread id; a malformed array).
Feedback (the same rule for every pattern, `patterns.sim.policy.doubts`): seeing that a document
is not about the question's project is a judgement at `checker_error_rate`, made by whoever reads
it: noticed, the agent backtracks to the deepest fitting document it has read, a fixed step
reports a DEAD END, the generator goes back; missed, each takes it for the owner's page and
answers with its value. The reviewer's verdict is the same judgement of the reply it is shown
(a wrong one passes a bad answer or fails a good one). After an error tool result the agent
re-copies the id (another decision); the evaluator-optimizer's generator retries in its next round.

Crowding: a call that makes k decisions at once gets each wrong with probability
min(1, e * (1 + crowding * (k - 1))) (`crowded`); with crowding 0 that is k plain `correct()` draws.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

from ..base import marked
from .prompts import AGENT, CLASSIFY, DIRECT, FOLLOW, GENERATE, MARK, ONE_ROUND, PLAN, REVIEW, SYNTHESIZE
from .skills import digit_off as _digit_off
from .skills import misread

ATTRIBUTES = ("office", "desk phone")
DOC_ID = re.compile(r"\bdoc-\d+\b")
QUESTION = re.compile(r"What is the (office|desk phone) of the current owner of the (\w+) project\? "
                      r"Start from (doc-\d+)")
_HEADER = re.compile(r"^(doc-\d+): (.*)$", re.M)
_FIRST_OWNER = re.compile(r"Its first owner was [^()]+ \(see (doc-\d+)\)")
_HANDOFF = re.compile(r"owned the (\w+) project until \d+, when ownership passed to [^()]+ \(see (doc-\d+)\)")
_CURRENT = re.compile(r"is the current owner of the (\w+) project")
_VALUES = re.compile(r"office is ([A-Z]-\d{3}) and desk phone is (555-\d{4})")
_FROM = re.compile(r"\(from (doc-\d+)")



@dataclass(frozen=True)
class Question:
    attribute: str
    project: str
    start: str


@dataclass(frozen=True)
class Doc:
    id: str
    kind: str  # "project", "handoff" (refers onward), "answer", or "other" (not about the question)
    next: str | None = None  # the reference that continues the walk
    refs: tuple[str, ...] = ()  # every reference in it, in reading order (next included)
    values: dict[str, str] = field(default_factory=dict)
    quote: str = ""  # its first two sentences: the evidence for an answer


def parse_question(text: str) -> Question | None:
    m = QUESTION.search(text)
    return Question(m.group(1), m.group(2), m.group(3)) if m else None


def parse_doc(text: str, q: Question) -> Doc | None:
    """What a careful reader takes from a document's text, relative to the question."""
    head = _HEADER.search(text)
    if head is None:
        return None
    body = text[head.end():].strip()
    values = dict(zip(ATTRIBUTES, m.groups(), strict=True)) if (m := _VALUES.search(body)) else {}
    nxt = None
    if head.group(2) == f"The {q.project} project" and (m := _FIRST_OWNER.search(body)):
        kind, nxt = "project", m.group(1)
    elif (m := _HANDOFF.search(body)) and m.group(1) == q.project:
        kind, nxt = "handoff", m.group(2)
    elif (m := _CURRENT.search(body)) and m.group(1) == q.project:
        kind = "answer"
    else:
        kind = "other"
    refs = tuple(dict.fromkeys(r for r in DOC_ID.findall(body) if r != head.group(1)))
    quote = " ".join(re.split(r"(?<=\.) ", body)[:2])
    return Doc(head.group(1), kind, nxt, refs, values, quote)


Action = tuple[str, str]  # ("read", doc id) | ("answer", value) | ("dead_end", why)
_LABELS = {"answer": "ANSWER", "read": "NEXT", "dead_end": "DEAD END"}  # how a fixed step words an action


def choose(doc: Doc, q: Question, decide: Decider, seen: frozenset[str] = frozenset()) -> Action:
    """The next step from a document: the one decision a walk makes at each document."""
    if doc.kind == "other":  # noticing it is off the question is a judgement (`doubts`), never free
        if decide.judge():
            return ("dead_end", f"{doc.id} is not about the {q.project} project")
        return ("answer", doc.values.get(q.attribute, "unknown"))  # taken for the owner's page
    ok = decide.correct()
    if ok and doc.kind == "answer":
        return ("answer", doc.values.get(q.attribute, "unknown"))
    if ok:
        assert doc.next is not None
        return ("read", doc.next)
    others = [r for r in doc.refs if r != doc.next]
    fresh = [r for r in others if r not in seen] or others
    options: list[Action] = [("read", decide.rng.choice(fresh))] if fresh else []
    if doc.kind == "answer":
        other = next(a for a in ATTRIBUTES if a != q.attribute)
        options.append(("answer", doc.values.get(other, "unknown")))
    else:
        assert doc.next is not None
        options.append(("read", misread(doc.next, decide.rng)))
        if doc.kind == "handoff":
            options.append(("answer", doc.values.get(q.attribute, "unknown")))  # stopped one owner too early
    return decide.rng.choice(options)


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _read(doc_id: str, why: str = "") -> Reply:
    use = {"type": "tool_use", "name": "read_document", "input": {"doc_id": doc_id}}
    return Reply([{"type": "text", "text": why or f"Reading {doc_id}."}, use])


def _copy(doc_id: str, decide: Decider) -> str:
    return doc_id if decide.correct() else misread(doc_id, decide.rng)


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
            return _read(_copy(q.start, decide))
        return step(policy, _last_doc(request, q), q, decide)

    return respond


@dataclass(frozen=True)
class MultihopPolicy:
    """See the module docstring."""

    crowding: float = CROWDING

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        prompt = request.first_user_text()
        q = parse_question(prompt)
        if q is None:
            return _text("UNKNOWN: I cannot find the question.")
        if AGENT in request.system:
            return self._agent(request, q, decide)
        if ONE_ROUND in request.system:
            return self._one_round(request, q, decide)
        for phrase, handler in ((FOLLOW, self._follow), (CLASSIFY, self._classify), (PLAN, self._plan),
                                (SYNTHESIZE, self._synthesize), (GENERATE, self._generate), (REVIEW, self._review),
                                (DIRECT, self._one_round)):
            if phrase in prompt:
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
        last = request.tool_results()[-1] if request.tool_results() else None
        doc = None if last is None or last["is_error"] else parse_doc(last["content"], q)
        if doc is not None and doc.kind == "other" and not decide.judge():
            return _text(doc.values.get(q.attribute, "unknown"))  # did not notice: taken for the owner's page
        if frontier is None:
            return _read(_copy(q.start, decide))
        kind, value = choose(frontier, q, decide, frozenset(seen))
        if kind != "read":
            return _text(value)
        last = request.tool_results()[-1]
        if last["is_error"] or not last["content"].startswith(frontier.id):
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
        doc = parse_doc(_section(request.first_user_text(), "document"), q)
        if doc is None:
            return _text("DEAD END: that is not a document.")
        kind, value = choose(doc, q, decide)
        return _text(f"{_LABELS[kind]}: {value}")

    @_reads_start
    def _classify(self, doc: Doc | None, q: Question, decide: Decider) -> Reply:
        right = "direct" if doc is not None and doc.kind == "answer" else "follow"
        return _text(right if decide.correct() else {"direct": "follow", "follow": "direct"}[right])

    @_reads_start
    def _plan(self, doc: Doc | None, q: Question, decide: Decider) -> Reply:
        if doc is None:
            return _text("I could not read the starting document.")
        oks = crowded(decide, len(doc.refs) + 1, self.crowding)
        ids = [r if ok else misread(r, decide.rng) for r, ok in zip(doc.refs, oks, strict=False)]
        plan = json.dumps([f"Follow {i} and report where it leads." for i in ids])
        return _text(plan if oks[-1] else plan[:-1])  # a malformed plan: the closing bracket forgotten

    def _synthesize(self, request: Request, q: Question, decide: Decider) -> Reply:
        answers = re.findall(r"-> ANSWER: (\S+)", request.first_user_text())
        if not answers:
            return _text("UNKNOWN: no worker found the answer.")
        return _text(f"ANSWER: {answers[0] if decide.correct() else _digit_off(answers[0], decide.rng)}")

    def _generate(self, request: Request, q: Question, decide: Decider) -> Reply:
        prompt = request.first_user_text()
        previous, feedback = _section(prompt, "reply"), _section(prompt, "feedback")
        target = next(iter(DOC_ID.findall(feedback) + DOC_ID.findall(previous)), q.start)
        if not request.tool_results():
            return _read(_copy(target, decide))
        doc = _last_doc(request, q)
        back = m.group(1) if (m := _FROM.search(previous)) else q.start
        if doc is None:  # a miscopied id is retried; an id that was wrong where it came from sends it back
            used = str(request.tool_uses()[-1].get("input", {}).get("doc_id", ""))
            retry = target if used != target or target == back else back
            return _text(f"NEXT: {retry} ({used} was not found)")
        if doc.kind == "other" and decide.judge():
            return _text(f"NEXT: {back} ({doc.id} is not about the {q.project} project)")
        kind, value = choose(doc, q, decide)
        if kind == "answer":
            return _text(f'ANSWER: {value} (from {doc.id}: "{doc.quote}")')
        return _text(f"NEXT: {value} (from {doc.id})")

    def _review(self, request: Request, q: Question, decide: Decider) -> Reply:
        reply = _section(request.first_user_text(), "reply").strip()
        if reply.startswith("NEXT:"):
            ids = DOC_ID.findall(reply)
            return _text(f"FAIL: not answered yet; read {ids[0]} next." if ids else "FAIL: name the next document.")
        m = re.match(r'ANSWER: (\S+) \(from (doc-\d+): "(.*)"\)', reply, re.S)
        if m is None:
            return _text("FAIL: reply with ANSWER: <answer> (from <doc id>: ...) or NEXT: <doc id>.")
        value, source, quote = m.groups()
        values = dict(zip(ATTRIBUTES, v.groups(), strict=True)) if (v := _VALUES.search(quote)) else {}
        handoff, current = _HANDOFF.search(quote), _CURRENT.search(quote)
        if handoff and handoff.group(1) == q.project:
            verdict = f"FAIL: follow {handoff.group(2)}; {source} says ownership passed on."
        elif not current or current.group(1) != q.project:
            verdict = f"FAIL: {source} does not name the current owner of the {q.project} project."
        elif values.get(q.attribute) != value:
            verdict = f"FAIL: the {q.attribute} in {source} is {values.get(q.attribute)}, not {value}."
        else:
            verdict = "PASS"
        if not doubts(decide, verdict == "PASS"):
            return _text("PASS")
        return _text(verdict if verdict != "PASS" else f"FAIL: I am not convinced; read {source} again and check.")
