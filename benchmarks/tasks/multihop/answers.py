"""`multihop`'s reading of a reply: a value of the asked attribute's shape (office `B-123`, phone `555-7124`),
quoted evidence (`(from doc-1: "...")`) set aside; the walk's steps `ANSWER:`/`NEXT:`/`DEAD END`/`UNKNOWN`
read case- and markdown-blind from the first line that leads with one;

Like every family's reader, it starts from `patterns.answers` (markdown, labels, quotes and trailing
punctuation removed; a value accepted only when exactly one distinct candidate is there) and finds
the value by its shape, so that a right answer scores however a capable model dresses it.
"""

from __future__ import annotations

import re

from patterns.answers import answer_part, labelled, only, plain, trim, vote

SHAPES = {"office": re.compile(r"\b[A-Za-z]-\d{3}\b"), "desk phone": re.compile(r"\b\d{3}-\d{4}\b")}
DOC = re.compile(r"\bdoc-\d+\b", re.I)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
_FROM = re.compile(r"\(from [^)]*\)", re.I)
_STEP = re.compile(r"^(?:(?:final\s+)?(?P<go>answer|next)\s*(?::|—|–|\s-\s)|(?P<stop>dead[ _-]?end|unknown)\b"
                   r"\s*[:—–-]?)\s*(?P<rest>.*)$", re.I)


def multihop_value(attribute: str, text: str) -> str | None:
    """The one value of the attribute's shape the answer gives (evidence quotes set aside); none from a
    reply that is a step of the walk other than its answer (`NEXT: doc-1 (B-123)`)."""
    step = multihop_step(text)
    if step is not None and step[0] != "answer" and labelled(text) is None:
        return None
    part = _FROM.sub(" ", _QUOTED.sub(" ", answer_part(text)))
    return only(v.upper() for v in SHAPES[attribute].findall(part))


def multihop_step(text: str) -> tuple[str, str] | None:
    """(`answer`|`next`|`dead end`|`unknown`, the rest of its line) from the first line leading with one."""
    rows = plain(text).splitlines()
    for i, row in enumerate(rows):
        if m := _STEP.match(row):
            kind = (m["go"] or m["stop"]).lower()
            kind = "dead end" if kind.startswith("dead") else kind
            rest = m["rest"].strip() or (rows[i + 1] if i + 1 < len(rows) and kind == "answer" else "")
            return kind, rest
    return None


def multihop_next_id(text: str) -> str | None:
    """The document a reply says to read next (`NEXT: doc-…`), else the first id in the text."""
    step = multihop_step(text)
    where = step[1] if step and step[0] == "next" and DOC.search(step[1]) else text
    m = DOC.search(where)
    return m.group().lower() if m else None


def answer_vote(answers: list[str]) -> str:
    """Majority among answers, compared as values (case, markdown, trailing punctuation ignored)."""
    return vote(answers, lambda a: trim(plain(a)).casefold())
