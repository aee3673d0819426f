"""`support`'s reading of a reply: per question, a sentence that states the fact (amounts as numbers, dates in
ISO or written form, codes with or without the hyphen) and no other value of the same kind;

Like every family's reader, it starts from `patterns.answers` (markdown, labels, quotes and trailing
punctuation removed; a value accepted only when exactly one distinct candidate is there) and finds
the value by its shape, so that a right answer scores however a capable model dresses it.
"""

from __future__ import annotations

import re

from benchmarks.tasks.base import decimal_text
from patterns.answers import plain, trim

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MON = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_ISO = re.compile(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b")
_MDY = re.compile(rf"\b{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON},?\s+(\d{{4}})\b", re.I)
_AMOUNT = re.compile(r"(?<![\w.])\d+(?:,\d{3})*\.\d{2}(?!\d)")
_CODE = re.compile(r"\b(RST|KB)[-\s]?(\d{4})\b", re.I)


def _month(name: str) -> int:
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(name.lower()[:3]))


def support_values(field: str, sentence: str) -> set[str]:
    """The values of one kind (`amount`, `eta`, `reset_code`, `article`) a sentence states, normalised."""
    if field == "amount":
        return {decimal_text(a.replace(",", "")) for a in _AMOUNT.findall(sentence)}
    if field == "eta":
        dates = [(y, m, d) for y, m, d in _ISO.findall(sentence)]
        dates += [(y, str(_month(mon)), d) for mon, d, y in _MDY.findall(sentence)]
        dates += [(y, str(_month(mon)), d) for d, mon, y in _DMY.findall(sentence)]
        return {f"{int(y):04}-{int(m):02}-{int(d):02}" for y, m, d in dates}
    prefix = "RST" if field == "reset_code" else "KB"
    return {f"{p.upper()}-{n}" for p, n in _CODE.findall(sentence) if p.upper() == prefix}


def support_answered(field: str, fact: str, reply: str, ignore: frozenset[str] = frozenset()) -> bool:
    """Does some sentence of the reply state `fact` and no other value of its kind (`ignore`: values of
    that shape that belong to another field, e.g. an invoice's due date next to a delivery date)?"""
    want = support_values(field, fact) or {fact}
    sentences = [s for line in plain(reply).splitlines() for s in re.split(r"(?<=[.!?])\s+", line)]
    return any(support_values(field, s) - ignore == want for s in sentences)


def is_none(text: str, none: str = "NONE") -> bool:
    return trim(plain(text)).upper() == none
