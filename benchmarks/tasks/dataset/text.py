"""Reading a model's text: markdown stripped, the final `Answer:` line, a grader's verdict.

Plain functions with no imports of their own, shared by the scorers, the grader and the simulated
policy, so that they read a reply the same way."""

from __future__ import annotations

import re

_FENCE = re.compile(r"```[\w-]*\n?|```")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`|~~)")
_LINE_MARK = re.compile(r"(?m)^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+)")
_LABEL = re.compile(r"(?im)^\s*(?:the\s+)?(?:final\s+)?answer\s*(?:is\s*)?[:\-–]\s*(.+?)\s*$")
def strip_markdown(text: str) -> str:
    return _EMPHASIS.sub("", _LINE_MARK.sub("", _FENCE.sub("", text)))


def normalise(text: str) -> str:
    """Case, whitespace, markdown and surrounding punctuation ignored."""
    return " ".join(strip_markdown(text).casefold().split()).strip(" .,;:!?\"'()[]")


def final_answer(output: str) -> str:
    """The last `Answer: ...` line of the output if there is one, else the whole output."""
    labelled = _LABEL.findall(strip_markdown(output))
    return labelled[-1] if labelled else output


GRADER = "grade"  # the phrase a simulated policy recognises a grader request by (see policy.py)
_SCORE = re.compile(r"\bscore\s*(?:is\s*)?[:=]?\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?))?")
_FRACTION = re.compile(r"\b(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)\b")
_WORD = re.compile(r"\b(not\s+|n't\s+)?(pass(?:ed|es)?|fail(?:ed|s)?|correct|incorrect|yes|no|right|wrong)\b")
_GOOD = ("pass", "correct", "yes", "right")


def parse_verdict(text: str) -> float | None:
    """A score in [0, 1] from a grader's reply, or None if it gives no verdict."""
    t = " ".join(strip_markdown(text).casefold().split())
    m = _SCORE.search(t) or _FRACTION.search(t)
    if m:
        value, scale = float(m.group(1)), float(m.group(2)) if m.group(2) else None
        if scale is None:
            scale = 1.0 if value <= 1 else (10.0 if value <= 10 else 100.0)
        return min(1.0, max(0.0, value / scale)) if scale > 0 else None
    w = _WORD.search(t)
    if not w:
        return None
    good = any(w.group(2).startswith(g) for g in _GOOD) and not w.group(2).startswith("incorrect")
    return float(good != bool(w.group(1)))
