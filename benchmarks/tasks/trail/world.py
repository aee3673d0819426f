"""A hidden trail over a set of tools: the one mechanism of the open-ended families (`explore`, `debug`).

Each instance hides a trail of `hops` steps. Step i is a tool (a *place*) and a key; calling that place with that
key answers with a note, and where the trail goes next: a place and a key. The last step's note holds the
answer. The question names the first step. Calling another place with a key of the trail answers a *decoy*: a
note that points to some place under a key of its own, where the lead turns out false ("nothing more is known"):
a dead end, from which a walker goes back to the last note it trusts and tries the place it may have misread.
An unknown key is a tool error.

**Legibility is the knob** (`readable`). The same trails, the same tools, the same notes; only how a note names
the next place differs:
- `readable=false`: in prose, through this instance's *vocabulary*: each place is called by one of its phrases
  ("the harbour master's books"), chosen per instance from a pool that only the simulated model's world
  knowledge (`knowledge.py`) maps to a tool, never by the tool's name. Code can find the key (a token such as
  `K-4411`), not the place;
- `readable=true`: as structured fields (`patterns.fields`): the result is JSON with the note and
  `next: {"place": <tool name>, "key": ...}` (`next: null` at the end of the trail), the question carries the
  first step as a ```json block, and a false lead says `"dead_end": true` (and has no `next`); code may
  dispatch on them.
In both forms the note itself, and so the answer, is prose: a model call reads it.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from typing import Any

from benchmarks.tasks.base import Environment, Instance
from patterns.tools import Tool, ToolSet, tool

KEY_FORMAT = "{letter}-{number:04d}"


@dataclass(frozen=True)
class Place:
    """A tool of the trail: its name, what its description says it holds, and the phrases prose may call it by
    (the model's world knowledge; at least two, no phrase shared by two places)."""

    tool: str
    holds: str
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class TrailSpec:
    """What makes a family of trails: its places, the question, the notes and the answers (see the families)."""

    name: str
    mark: str  # the family's mark in every prompt (its policy accepts requests carrying it)
    places: tuple[Place, ...]
    question: str  # the task, with {start} where the first step is named
    notes: tuple[str, ...]  # sentences a note opens with ({key} may appear)
    answers: tuple[str, ...]  # the values an answer may take
    answer_sentence: str  # the last note's closing sentence, with {answer}
    copies: str = "the {nth} copy of"  # how prose names a further copy of a place (`places` past the spec's own)


ORDINALS = ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
            "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
            "nineteenth", "twentieth")


def most_places(spec: TrailSpec) -> int:
    return len(spec.places) * (len(ORDINALS) + 1)


def widened(spec: TrailSpec, places: int) -> TrailSpec:
    """The spec with `places` places: its own first, then copies of them in turn (`port_registry_2`: "the second
    copy of the harbour master's books", ...). A copy's phrases open with the copy's words, so no phrase of one
    place is found at the start of another's (the world knowledge reads the first phrase in the text)."""
    own = spec.places
    if not 2 <= places <= most_places(spec):
        raise ValueError(f"{spec.name}: places must be from 2 to {most_places(spec)}, got {places}")
    made = list(own[:places])
    for i in range(len(own), places):
        base, nth = own[i % len(own)], ORDINALS[i // len(own) - 1]
        words = spec.copies.format(nth=nth)
        made.append(Place(f"{base.tool}_{i // len(own) + 1}", f"{words} {base.holds}",
                          tuple(f"{words} {ph}" for ph in base.phrases)))
    return replace(spec, places=tuple(made))


def key_of(rng: random.Random) -> str:
    return KEY_FORMAT.format(letter=rng.choice("BCDFGHJKLMNPRSTVWXZ"), number=rng.randint(1000, 9999))


def make_instance(spec: TrailSpec, i: int, rng: random.Random, hops: int, readable: bool) -> Instance:
    """Instance i: the trail (distinct places), the vocabulary (one phrase per place), decoys and the answer."""
    keys: set[str] = set()

    def fresh() -> str:
        while (k := key_of(rng)) in keys:
            pass
        keys.add(k)
        return k

    places = [p.tool for p in spec.places]
    trail = [(t, fresh()) for t in rng.sample(places, min(hops, len(places)))]
    vocabulary = {p.tool: rng.choice(p.phrases) for p in spec.places}
    decoys = {f"{t}|{k}": [_other(places, j, rng), fresh(), rng.choice(spec.notes)]
              for _, k in trail for j, t in enumerate(places)}
    data = {"trail": trail, "vocabulary": vocabulary, "decoys": decoys, "answer": rng.choice(spec.answers),
            "notes": [rng.choice(spec.notes) for _ in trail], "readable": readable}
    first, key = trail[0]
    start = (f"under {key}; the first place is given below.\n\n```json\n"
             f"{json.dumps({'next': {'place': first, 'key': key}})}\n```" if readable
             else f"in {vocabulary[first]}, under {key}.")
    return Instance(f"{spec.name}-{i:04d}", f"{spec.mark} " + spec.question.format(start=start), data)


def _other(places: list[str], j: int, rng: random.Random) -> str:
    """`rng.choice` of the places but the j-th, with the same draw, without building that list (at 100 places
    a trail's decoys would build 100 lists of 99 for every key)."""
    i = rng._randbelow(len(places) - 1)
    return places[i + 1 if i >= j else i]


def answer_of(data: dict[str, Any], place: str, key: str, spec: TrailSpec) -> tuple[str, bool]:
    """What calling `place` with `key` answers (see the module docstring): (text, is an error)."""
    trail, vocabulary, readable = data["trail"], data["vocabulary"], data["readable"]
    steps = {(t, k): i for i, (t, k) in enumerate(trail)}
    decoy_keys = {d[1] for d in data["decoys"].values()}
    if key in decoy_keys:
        return _render(readable, "Nothing more is known about this: a false lead.", None, vocabulary, dead=True), False
    if (place, key) in steps:
        i = steps[place, key]
        note = data["notes"][i].format(key=key)
        if i + 1 == len(trail):
            return _render(readable, f"{note} {spec.answer_sentence.format(answer=data['answer'])}", None,
                           vocabulary), False
        return _render(readable, note, trail[i + 1], vocabulary), False
    if key in {k for _, k in trail}:
        other, decoy_key, note = data["decoys"][f"{place}|{key}"]
        return _render(readable, note.format(key=key), (other, decoy_key), vocabulary), False
    return f"no record under {key!r} here; keys look like K-4411", True


def _render(readable: bool, note: str, nxt: tuple[str, str] | None, vocabulary: dict[str, str],
            dead: bool = False) -> str:
    if readable:  # the end of the trail says `next: null`; a false lead has no `next` at all, but `dead_end`
        if dead:
            return json.dumps({"note": note, "dead_end": True})
        return json.dumps({"note": note, "next": None if nxt is None else {"place": nxt[0], "key": nxt[1]}})
    if nxt is None:
        return note
    return f"{note} The trail continues in {vocabulary[nxt[0]]}, under {nxt[1]}."


def make_tools(spec: TrailSpec, data: dict[str, Any], calls: list[tuple[str, str]], cost: float = 0.0) -> ToolSet:
    """The places as tools over one instance's trail, each call costing `cost` USD; calls are appended to `calls`."""
    return ToolSet([_place_tool(spec, p, data, calls, cost) for p in spec.places])


def _place_tool(spec: TrailSpec, place: Place, data: dict[str, Any], calls: list[tuple[str, str]],
                cost: float) -> Tool:
    def look(key: str) -> str:
        calls.append((place.tool, key))
        text, failed = answer_of(data, place.tool, key.strip(), spec)
        if failed:
            raise LookupError(text)
        return text

    look.__doc__ = f"Look in {place.holds} under a key.\n\nArgs:\n    key: the key a note gives, e.g. \"K-4411\"\n"
    return tool(look, name=place.tool, timeout_s=None, cost_usd=cost)


def environment(spec: TrailSpec, instance: Instance, cost: float = 0.0) -> Environment:
    calls: list[tuple[str, str]] = []
    return Environment(tools=make_tools(spec, instance.data, calls, cost), state={"calls": calls})
