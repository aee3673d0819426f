"""The `pipeline` policy's second looks at a line, each one decision (or judgement) keyed by what it decides.

The same function serves every design that asks for it, so the same request content gets the same
behaviour and costs the same draws whether it is an agent's turn or a workflow step:
- `judgement`: is a candidate line right for the record? One judgement at `checker_error_rate`
  (`patterns.sim.policy.doubts`). Doubting, it writes a note naming the field it doubts (for a wrong
  line: the first field that differs, quoting the candidate's value, never the right one; for a right
  line: a made-up complaint about a field chosen at random) or the layout; trusting, no note.
- `fix`: lay a line the validator called INVALID out again: one decision.
- `redo`: redo the field a note names from the record: its extract and normalise decisions (2, crowded);
  the other fields are kept. A note that names no field (a layout complaint) redoes the whole line
  from the record: 3 crowded decisions.

Keys name the decision in terms every design's request contains (the record, the values, the line):
`keys_of` gives those of the three steps, so a whole pipeline in one call and the chain's step
about the same values draw under the same key. A redo reads and normalises the same record again, so
it draws under the first attempt's extract and normalise keys: a mistake made once is made again at
`error_correlation`, by an agent redoing its own line as by a workflow's redo step.
"""

from __future__ import annotations

import random
import re

from benchmarks.tasks.pipeline.prompts import FIELDS, layout_of
from benchmarks.tasks.pipeline.skills import (
    extract,
    fields_of,
    format_line,
    lay_out,
    normalise,
    record_of,
    reparse,
    whole,
)
from patterns.sim.policy import Decider, crowded, doubts

_NAMED = re.compile(r"\bthe (" + "|".join(FIELDS) + r")\b")


def listing(values: dict[str, str]) -> str:
    """Values as one canonical text, for a key."""
    return "; ".join(f"{f}: {v}" for f, v in values.items())


def keys_of(prompt: str, rng: random.Random) -> list[str]:
    """The keys of the extract, normalise and format decisions about the prompt's record: each names the
    input that decision works on when the ones before it were right (what a chain's step is given)."""
    record, fields = record_of(prompt).strip(), fields_of(prompt)
    raw = extract(record, fields, True, rng)  # a right step never uses rng
    values = normalise(raw, True, rng)
    return [f"pipeline|extract|{record}", f"pipeline|normalise|{listing(raw)}", f"pipeline|format|{listing(values)}"]


def whole_pipeline(prompt: str, decide: Decider, crowding: float) -> str:
    """All three steps in one call: three crowded decisions."""
    return whole(prompt, crowded(decide, keys_of(prompt, decide.rng), crowding), decide.rng)


def judgement(prompt: str, candidate: str, decide: Decider) -> str | None:
    """None if the judge trusts the candidate; else its note (FAIL: ...)."""
    record, fields = record_of(prompt).strip(), fields_of(prompt)
    truth = whole(prompt, [True, True, True], decide.rng)
    right = candidate == truth
    if not doubts(decide, right, f"pipeline|judge|{record}|{candidate}"):
        return None
    if right:  # a right line doubted: a made-up complaint
        return f"FAIL: the {decide.rng.choice(fields)} does not match the record."
    got, want = candidate.split(" | "), truth.split(" | ")
    if len(got) != len(want):
        return f"FAIL: the layout is wrong; use {layout_of(fields)} with ' | ' between fields."
    i = next(i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b)
    return f"FAIL: the {fields[i]} is wrong ({got[i]!r} does not match the record)."


def fix(line: str, fields: list[str], decide: Decider) -> str:
    """Re-read an INVALID line's values and lay them out again: one decision (a slip is a new format slip)."""
    return lay_out(reparse(line, fields), fields, decide.correct(f"pipeline|fix|{line}"), decide.rng)


def redo(prompt: str, line: str, note: str, decide: Decider, crowding: float) -> str:
    """Redo the field `note` names (extract and normalise it again from the record), keeping the others."""
    fields, record = fields_of(prompt), record_of(prompt).strip()
    named = _NAMED.search(note)
    parts = line.split(" | ")
    if named is None or named.group(1) not in fields or len(parts) != len(fields):
        return whole_pipeline(prompt, decide, crowding)
    field = named.group(1)
    # the same reading and normalising of this record as the line's first attempt (the note names the field
    # that attempt got wrong): made again, so correlated with it at error_correlation, whoever redoes it
    ok_extract, ok_normalise = crowded(decide, keys_of(prompt, decide.rng)[:2], crowding)
    raw = extract(record, [field], ok_extract, decide.rng)
    parts[fields.index(field)] = format_line(normalise(raw, ok_normalise, decide.rng), [field])
    return " | ".join(parts)
