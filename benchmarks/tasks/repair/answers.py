"""`repair`'s reading of a reply: `replace line N with: <line>` in any case, anywhere in the reply, fenced or
on the next line.

Like every family's reader, it starts from `patterns.answers` (markdown, labels, quotes and trailing
punctuation removed; a value accepted only when exactly one distinct candidate is there) and finds
the value by its shape, so that a right answer scores however a capable model dresses it.
"""

from __future__ import annotations

import re

from patterns.answers import plain, trim, vote

_PROPOSAL = re.compile(r"\breplace\s+line\s+#?(\d+)\s+with\s*:?\s?(.*)$", re.I)


def repair_proposal(text: str) -> tuple[int, str] | None:
    """(line number, new line) from `replace line N with: <line>`; None for no proposal, or for two
    different ones (ambiguous)."""
    rows, found = plain(text).splitlines(), []
    for i, row in enumerate(rows):
        if m := _PROPOSAL.search(row):
            new = m.group(2) if m.group(2).strip() or i + 1 >= len(rows) else rows[i + 1]
            if len(new) > 1 and new[0] == new[-1] and new[0] in "\"'":
                new = new[1:-1]
            found.append((int(m.group(1)), new))
    return found[0] if len(set(found)) == 1 else None


def proposal_vote(outputs: list[str]) -> str:
    """Majority among proposals compared as edits (line and new text), not as wording."""
    def key(text: str) -> str:
        p = repair_proposal(text)
        return f"replace line {p[0]} with: {p[1]}" if p else trim(plain(text)).casefold()
    return vote(outputs, key)
