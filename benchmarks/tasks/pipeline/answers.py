"""`pipeline`'s reading of a reply: the one line with the layout's field count that passes the layout check (a
bolded, fenced, labelled or table-row line; courtesy lines around it ignored);

Like every family's reader, it starts from `patterns.answers` (markdown, labels, quotes and trailing
punctuation removed; a value accepted only when exactly one distinct candidate is there) and finds
the value by its shape, so that a right answer scores however a capable model dresses it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from patterns.answers import only, plain

_LEAD = re.compile(r"^[A-Za-z][A-Za-z0-9 ()'/-]{0,60}:\s+(?=.*\|)")


def pipeline_line(text: str, fits: Callable[[str], bool]) -> str | None:
    """The one distinct line that has the required layout (`fits`), spacing around `|` standardised."""
    found = []
    for row in plain(text).splitlines():
        if m := re.fullmatch(r"\|(.*)\|", row):  # a markdown table row
            row = m.group(1)
        row = _LEAD.sub("", row, count=1)
        row = re.sub(r"\s*\|\s*", " | ", " ".join(row.split())).strip().rstrip(".;!").strip()
        if fits(row):
            found.append(row)
    return only(found)
