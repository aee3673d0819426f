"""What each family reads out of a model's reply: its graders' values and its workflows' parsed steps.

Everything starts from `patterns.answers` (markdown, labels, quotes and trailing punctuation
removed; a value accepted only when exactly one distinct candidate is there) and then finds the
family's value by its shape, so that a right answer scores however a capable model dresses it and
a wrong, ambiguous (two candidates) or inconsistent one (the right price for the wrong product)
does not:
- fanout: a number (the product ids and their hyphens removed first, so `D-33 at $94.90` is 94.90;
  a `$` amount for a price, `N units` for a stock total, the result after `=` of a worked sum) or
  the name of a product in the catalog; any product the answer names must be the answer's product;
- multihop: a value of the asked attribute's shape (office `B-123`, phone `555-7124`), quoted
  evidence (`(from doc-1: "...")`) set aside; the walk's steps `ANSWER:`/`NEXT:`/`DEAD END`/`UNKNOWN`
  read case- and markdown-blind from the first line that leads with one;
- pipeline: the one line with the layout's field count that passes the layout check (a bolded,
  fenced, labelled or table-row line; courtesy lines around it ignored);
- support: per question, a sentence that states the fact (amounts as numbers, dates in ISO or
  written form, codes with or without the hyphen) and no other value of the same kind;
- repair: `replace line N with: <line>` in any case, anywhere in the reply, fenced or on the next line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from patterns.answers import answer_part, labelled, mentioned, only, plain, trim, vote

# --- fanout -------------------------------------------------------------------------------------
_ITEM = re.compile(r"\b[A-Za-z]-\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
_MONEY = re.compile(r"\$\s?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s?(?:USD|dollars?)\b", re.I)
_UNITS = re.compile(r"(\d+)\s+(?:units?|items?|pieces?)\b", re.I)


_FAILED = re.compile(r"not found|no (?:such )?(?:product|record)|lookup failed|does not exist|\berror\b", re.I)


def failed_lookups(text: str) -> list[str]:
    """The lines of a lookup transcript that report a failed lookup, however the model words it."""
    return [line for line in plain(text).splitlines() if _FAILED.search(line)]


def _decimal(text: str) -> str:
    try:
        return str(Decimal(text).normalize())
    except InvalidOperation:
        return ""


def _numbers(kind: str, text: str) -> list[str]:
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", _ITEM.sub(" ", text))
    text = text.rsplit("=", 1)[-1]  # a worked sum: its result
    preferred = [a or b for a, b in _MONEY.findall(text)] if kind == "max" else _UNITS.findall(text)
    return [_decimal(v) for v in preferred or _NUMBER.findall(text)]


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
            right = got is not None and got == _decimal(expected)
            owner = next((i for i, r in catalog.items() if _decimal(f"{float(r['price']):.2f}") == got), None)
        consistent = kind == "total" or items <= {owner}
        return 1.0 if right and consistent else 0.0
    return 0.0


# --- multihop -----------------------------------------------------------------------------------
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


# --- pipeline -----------------------------------------------------------------------------------
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


# --- support ------------------------------------------------------------------------------------
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
        return {_decimal(a.replace(",", "")) for a in _AMOUNT.findall(sentence)}
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


# --- repair -------------------------------------------------------------------------------------
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
