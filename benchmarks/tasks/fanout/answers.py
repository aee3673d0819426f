"""`fanout`'s reading of a reply: a number (the product ids and their hyphens removed first, so `D-33 at
$94.90` is 94.90; a `$` amount for a price, `N units` for a stock total, the result after `=` of a worked
sum) or the name of a product in the catalog; any product the answer names must be the answer's product;

Like every family's reader, it starts from `patterns.answers` (markdown, labels, quotes and trailing
punctuation removed; a value accepted only when exactly one distinct candidate is there) and finds
the value by its shape, so that a right answer scores however a capable model dresses it.
"""

from __future__ import annotations

import re
from typing import Any

from benchmarks.tasks.base import decimal_text
from patterns.answers import labelled, mentioned, only, plain

_ITEM = re.compile(r"\b[A-Za-z]-\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
_MONEY = re.compile(r"\$\s?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s?(?:USD|dollars?)\b", re.I)
_UNITS = re.compile(r"(\d+)\s+(?:units?|items?|pieces?)\b", re.I)


_FAILED = re.compile(r"not found|no (?:such )?(?:product|record)|lookup failed|does not exist|\berror\b", re.I)


def failed_lookups(text: str) -> list[str]:
    """The lines of a lookup transcript that report a failed lookup, however the model words it."""
    return [line for line in plain(text).splitlines() if _FAILED.search(line)]


def _numbers(kind: str, text: str) -> list[str]:
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", _ITEM.sub(" ", text))
    text = text.rsplit("=", 1)[-1]  # a worked sum: its result
    preferred = [a or b for a, b in _MONEY.findall(text)] if kind == "max" else _UNITS.findall(text)
    return [decimal_text(v) for v in preferred or _NUMBER.findall(text)]


def _parts(text: str) -> list[str]:
    """Where to look: the labelled answer, else each line from the last up (courtesy lines skipped)."""
    value = labelled(text)
    return [value] if value is not None else list(reversed(plain(text).splitlines()))


def fanout_score(kind: str, output: str, catalog: dict[str, dict[str, Any]], expected: str) -> float:
    """1.0 when the answer gives exactly the expected value and names no product but the answer's own."""
    names = {str(r["name"]): item for item, r in catalog.items()}
    for part in _parts(output):
        named = mentioned(part, names)
        items = {i.upper() for i in _ITEM.findall(part)} | {names[n] for n in named}
        if kind == "cheapest":
            got = only(named)
            right = got is not None and got.casefold() == expected.casefold()
            owner = names.get(got or "")
            if not named:
                continue
        else:
            values = _numbers(kind, part)
            if not values:
                continue
            got = only(values)
            right = got is not None and got == decimal_text(expected)
            owner = next((i for i, r in catalog.items() if decimal_text(f"{float(r['price']):.2f}") == got), None)
        consistent = kind == "total" or items <= {owner}
        return 1.0 if right and consistent else 0.0
    return 0.0
