"""What `multihop`'s simulated reader takes from a text (the question, a document), and the one decision a
walk makes at a document (`choose`), with the keys every decision is drawn under.

The keys name what is decided, in terms any design's request contains, so the same decision made again
(an agent re-deciding after a failed read, the declared walk's follow step sent back with the error
quoted, a vote's second walk) is correlated at `error_correlation` whoever makes it:
- `multihop|copy|<doc id>`: copying that id into read_document;
- `multihop|choose|<doc id>`: the next step from that document (answer, or which reference to follow);
- `multihop|fits|<doc id>`: the judgement that the document is (not) about the question's project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchmarks.tasks.multihop.skills import misread
from patterns.sim.policy import Decider

ATTRIBUTES = ("office", "desk phone")
DOC_ID = re.compile(r"\bdoc-\d+\b")
QUESTION = re.compile(r"What is the (office|desk phone) of the current owner of the (\w+) project\? "
                      r"Start from (doc-\d+)")
_HEADER = re.compile(r"^(doc-\d+): (.*)$", re.M)
_FIRST_OWNER = re.compile(r"Its first owner was [^()]+ \(see (doc-\d+)\)")
HANDOFF = re.compile(r"owned the (\w+) project until \d+, when ownership passed to [^()]+ \(see (doc-\d+)\)")
CURRENT = re.compile(r"is the current owner of the (\w+) project")
VALUES = re.compile(r"office is ([A-Z]-\d{3}) and desk phone is (555-\d{4})")


def key(kind: str, *what: str) -> str:
    """What a decision is about: `multihop|<kind>|<what>...` (see the module docstring)."""
    return "|".join(("multihop", kind, *what))


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
    values = dict(zip(ATTRIBUTES, m.groups(), strict=True)) if (m := VALUES.search(body)) else {}
    nxt = None
    if head.group(2) == f"The {q.project} project" and (m := _FIRST_OWNER.search(body)):
        kind, nxt = "project", m.group(1)
    elif (m := HANDOFF.search(body)) and m.group(1) == q.project:
        kind, nxt = "handoff", m.group(2)
    elif (m := CURRENT.search(body)) and m.group(1) == q.project:
        kind = "answer"
    else:
        kind = "other"
    refs = tuple(dict.fromkeys(r for r in DOC_ID.findall(body) if r != head.group(1)))
    quote = " ".join(re.split(r"(?<=\.) ", body)[:2])
    return Doc(head.group(1), kind, nxt, refs, values, quote)


Action = tuple[str, str]  # ("read", doc id) | ("answer", value) | ("dead_end", why)


def choose(doc: Doc, q: Question, decide: Decider, seen: frozenset[str] = frozenset()) -> Action:
    """The next step from a document: the one decision a walk makes at each document, whoever walks.

    On a document off the question it is the judgement `fits|<doc>` instead: noticed, a dead end; missed,
    the document is taken for the owner's page and its value answered. `seen`: references already read
    from here that did not fit; a wrong decision follows a reference not yet tried when there is one."""
    if doc.kind == "other":
        if decide.judge(key("fits", doc.id)):
            return ("dead_end", f"{doc.id} is not about the {q.project} project")
        return ("answer", doc.values.get(q.attribute, "unknown"))
    ok = decide.correct(key("choose", doc.id))
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


def copy_id(doc_id: str, decide: Decider) -> str:
    """The id as copied into read_document (decision `copy|<id>`): right, or misread."""
    return doc_id if decide.correct(key("copy", doc_id)) else misread(doc_id, decide.rng)
