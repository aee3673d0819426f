"""SimModel's behaviour on a trail family's prompts: it reads notes as a model would and decides where to look.

Blind to the pattern: what a request asks is read from its instructions (`Request.instructions()`) by the phrases
below, and the same note gets the same decision in an agent's turn and a workflow's step. Two decisions, each
keyed by what is decided, so that deciding again (after a false lead, in a retry) is correlated at
`error_correlation` whichever design decides:
- **which place a note means** (`<family>|place|<key>`, one decision at error_rate): in prose, through the
  family's world knowledge (`knowledge.py`); in the readable form, by reading the note's `next.place` field —
  still a model's reading, at the same odds. Right: the place meant; wrong: another place not yet tried for the
  note. A place already tried for the note (it gave a decoy) is never chosen again;
- **the answer a final note gives** (`<family>|answer|<note>`, one decision): right: the value it states;
  wrong: another of the family's values.
A false lead sends the walker back to the note before the one that led there (the agent, by its conversation;
a workflow's read step replies BACK). Copying a key into a call is part of deciding the place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchmarks.tasks.base import marked
from benchmarks.tasks.trail.knowledge import place_of, reading
from benchmarks.tasks.trail.world import TrailSpec
from patterns.fields import structured
from patterns.sim.policy import Decider, Reply, Request

AGENT = "You follow a trail of notes"
ONE_ROUND = "You may look in one place only"
READ = "Which place does the note you trust mean"
ANSWER = "The trail ended"
ROUTE = "Where does the question send you first"
_KEY = re.compile(r"\b[A-Z]-\d{4}\b")


@dataclass(frozen=True)
class Clue:
    """A note as read: where it points (`place`, `key`), or that it ends the trail (`final`) or is a false lead."""

    kind: str  # next, final, dead
    text: str
    place: str | None = None
    key: str = ""


def read_clue(spec: TrailSpec, text: str) -> Clue:
    """A note (a result, or the question's start) in either form. Prose is read with the world knowledge."""
    value = structured(text)
    if isinstance(value, dict):
        nxt = value.get("next")
        if value.get("dead_end"):
            return Clue("dead", text)
        if isinstance(nxt, dict):
            return Clue("next", text, str(nxt.get("place")), str(nxt.get("key")))
        return Clue("final", str(value.get("note", text)))
    if "a false lead" in text:
        return Clue("dead", text)
    where = text.rsplit("continues in ", 1)[-1] if "continues in " in text else text
    keys = _KEY.findall(where)
    if "continues in " not in text and "under " not in text:
        return Clue("final", text)
    return Clue("next", text, place_of(spec, where), keys[-1] if keys else "")


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _section(text: str, tag: str) -> str:
    m = re.search(rf"<{tag}>\n?(.*?)\n?</{tag}>", text, re.S)
    return m.group(1) if m else ""


@dataclass(frozen=True)
class TrailPolicy:
    spec: TrailSpec

    def accepts(self, request: Request) -> bool:
        return marked(request, self.spec.mark)

    def respond(self, request: Request, decide: Decider) -> Reply:
        with reading():
            text = request.instructions()
            for phrase, handler in ((READ, self._read), (ANSWER, self._answer_step), (ROUTE, self._route),
                                    (ONE_ROUND, self._one_round), (AGENT, self._agent)):
                if phrase in text:
                    return handler(request, text, decide)
            return _text("UNKNOWN: I do not know what this step asks for.")

    def choose(self, clue: Clue, tried: set[str], decide: Decider) -> str:
        """Which place the note means (see the module docstring)."""
        places = [p.tool for p in self.spec.places]
        right = clue.place if clue.place in places else None
        ok = decide.correct(f"{self.spec.name}|place|{clue.key}")
        others = [p for p in places if p != right and p not in tried]
        if right is not None and right not in tried and (ok or not others):
            return right
        return decide.rng.choice(others or places)

    def answer(self, clue: Clue, decide: Decider) -> str:
        said = [a for a in self.spec.answers if a in clue.text]
        if decide.correct(f"{self.spec.name}|answer|{clue.text[:60]}") and said:
            return said[0]
        return decide.rng.choice([a for a in self.spec.answers if a not in said] or list(self.spec.answers))

    def _start(self, request: Request) -> Clue:
        return read_clue(self.spec, request.first_user_text())

    def _agent(self, request: Request, text: str, decide: Decider) -> Reply:
        results = {r["tool_use_id"]: r for r in request.tool_results()}
        clues, tried = [self._start(request)], {}
        for use in request.tool_uses():
            r = results.get(use.get("id"))
            if r is None or r["is_error"]:
                continue
            tried.setdefault(str((use.get("input") or {}).get("key", "")), set()).add(use.get("name"))
            clue = read_clue(self.spec, r["content"])
            if clue.kind == "dead":
                if len(clues) > 1:
                    clues.pop()
            else:
                clues.append(clue)
        top = clues[-1]
        if top.kind == "final":
            return _text(self.answer(top, decide))
        if not request.may_call():  # told to answer now (`none`): no look it may not take, as `_one_round` says
            return _text("UNKNOWN: the trail goes on beyond where I may look.")
        place = self.choose(top, tried.get(top.key, set()), decide)
        return Reply([{"type": "text", "text": f"Looking in {place}."},
                      {"type": "tool_use", "name": place, "input": {"key": top.key}}])

    def _one_round(self, request: Request, text: str, decide: Decider) -> Reply:
        if not request.tool_results():
            start = self._start(request)
            return Reply([{"type": "tool_use", "name": self.choose(start, set(), decide), "input": {"key": start.key}}])
        last = request.tool_results()[-1]
        clue = None if last["is_error"] else read_clue(self.spec, last["content"])
        if clue is not None and clue.kind == "final":
            return _text(self.answer(clue, decide))
        return _text("UNKNOWN: the trail goes on beyond the one place I may look in.")

    def _read(self, request: Request, text: str, decide: Decider) -> Reply:
        note = read_clue(self.spec, _section(text, "note"))
        if note.kind == "dead":
            return _text("BACK")
        if note.kind == "final":
            return _text("END")
        tried = {t.strip() for t in _section(text, "tried").split(",") if t.strip()}
        return _text(f"NEXT: {self.choose(note, tried, decide)}")

    def _answer_step(self, request: Request, text: str, decide: Decider) -> Reply:
        return _text(self.answer(read_clue(self.spec, _section(text, "note")), decide))

    def _route(self, request: Request, text: str, decide: Decider) -> Reply:
        return _text(self.choose(read_clue(self.spec, _section(text, "question") or text), set(), decide))
