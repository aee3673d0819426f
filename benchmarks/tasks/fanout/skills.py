"""What the simulated model knows how to do with `fanout` text: read the question's ids and kind, the
records quoted in a prompt or a tool result, aggregate them, and the plausible slip of each step
(`slip`, `misspell`); `policy` decides when to slip."""

from __future__ import annotations

import json
import re
from typing import Any

from benchmarks.tasks.base import decimal_text
from benchmarks.tasks.fanout.prompts import INSTRUCTIONS, ITEM_ID, QUESTION_PHRASES
from patterns.sim.policy import Decider

_RECORD = re.compile(r"\{[^{}]*\}")
_ANSWER = re.compile(r"^\s*ANSWER:\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def question_line(text: str) -> str:
    return next((line for line in text.splitlines() if "these products" in line), "")


_EXAMPLE = re.compile(r"\b(?:like|e\.g\.,?)\s+" + ITEM_ID.pattern)  # "ids look like A-17": an example, not a product


def question_ids(text: str) -> list[str]:
    """The ids of the question line, else every id in the text (a worker's one-item subtask), examples aside."""
    return unique(ITEM_ID.findall(_EXAMPLE.sub(" ", question_line(text) or text)))


def kind_for(text: str) -> str | None:
    """The aggregate asked for: an explicit instruction wins over the question's wording."""
    low = text.lower()
    for kind, phrase in INSTRUCTIONS.items():
        if phrase in low:
            return kind
    question = question_line(text).lower()
    return next((kind for kind, phrase in QUESTION_PHRASES.items() if phrase in question), None)


def records_in(text: str) -> dict[str, dict[str, Any]]:
    """Product records (JSON objects with an id) quoted anywhere in the text, by id."""
    found: dict[str, dict[str, Any]] = {}
    for match in _RECORD.findall(text):
        try:
            value = json.loads(match)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            found[value["id"]] = value
    return found


def answer_of(text: str) -> str:
    """The value on the last `ANSWER:` line, else the last non-empty line."""
    found = _ANSWER.findall(text)
    if found:
        return found[-1]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def normalise_answer(kind: str, value: str) -> str:
    """Numbers compare as decimals ("$19.9" == "19.90"); names case- and punctuation-blind."""
    if kind == "cheapest":
        return " ".join(re.sub(r"[^\w\s-]", " ", value).lower().split())
    match = _NUMBER.search(value.replace(",", ""))
    if not match:
        return ""
    return decimal_text(match.group())


def aggregate(kind: str, records: dict[str, dict[str, Any]]) -> str:
    values = list(records.values())
    if kind == "total":
        return str(sum(int(r["stock"]) for r in values))
    if kind == "max":
        return f"{max(float(r['price']) for r in values):.2f}"
    return str(min(values, key=lambda r: float(r["price"]))["name"])


def slip(kind: str, records: dict[str, dict[str, Any]], right: str, decide: Decider) -> str:
    """A plausible arithmetic or reading slip: never the right answer."""
    rng = decide.rng
    if kind == "total":
        return str(int(right) + rng.choice((-1, 1)) * rng.choice((1, 2, 3, 5, 9, 10, 100)))
    others = sorted({f"{r['price']:.2f}" if kind == "max" else str(r["name"]) for r in records.values()} - {right})
    if others:
        return rng.choice(others)
    return f"{float(right) + 1:.2f}" if kind == "max" else "unknown"


def misspell(item_id: str, avoid: list[str], decide: Decider) -> str:
    """A one-character slip of an id (digits swapped, a digit or the letter off by one), not one in view."""
    letter, digits = item_id.split("-")
    options = {f"{letter}-{digits[::-1]}"}
    for i in range(2):
        for step in (-1, 1):
            d = list(digits)
            d[i] = str((int(d[i]) + step) % 10)
            options.add(f"{letter}-{''.join(d)}")
    options |= {f"{chr((ord(letter) - 65 + s) % 26 + 65)}-{digits}" for s in (-1, 1)}
    left = sorted(options - {item_id, *avoid})
    return decide.rng.choice(left) if left else f"{letter}-{digits}0"
