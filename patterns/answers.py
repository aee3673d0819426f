"""Reading a model's reply as a person would: the one normalisation every grader and parser shares.

A capable model formats a right answer in many ways: `ANSWER: B-123`, `**Answer:** b-123.`, "The
office is B-123.", a fenced block, a bolded line followed by "Let me know if you need anything
else." Every reader starts from `plain(text)` (code fences, markdown emphasis, headings, quote
marks and list bullets removed; one stripped line per non-empty line), finds the part that holds
the answer (`answer_part`: after the LAST answer label, else the whole reply), and looks for the
value by its SHAPE. `only` accepts a value when exactly one distinct candidate is there: two
candidates are an ambiguous answer, which scores like a wrong one. Nothing here knows any task's
truth; a family brings its own value shapes (see `benchmarks/tasks/readers.py`).

It lives in `patterns` (not `benchmarks`) because the workflows' own parsers use it too: the
evaluator's PASS check (`verdict`) and the router's label reading.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

_FENCE = re.compile(r"^[ \t]*(?:```|~~~).*$", re.M)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!$|<>])")
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+•][ \t]+|\d{1,2}[.)][ \t]+)+", re.M)
# emphasis marks at a word's edge only, so `timeout_s` and `first_last@example.com` keep their `_`
_EMPHASIS = re.compile(r"(?<!\w)[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}(?!\w)")
_ANSWER_LABEL = re.compile(r"\b(?:final\s+)?answer\s*(?::|=|—|–|\s-\s)\s*", re.I)
_QUOTES = "\"'“”‘’"
_VERDICT_LABEL = re.compile(r"^(?:final\s+)?(?:verdict|decision|result|evaluation|review|answer)\s*[:=\-–—]\s*",
                            re.I)


def plain(text: str) -> str:
    """The reply without markdown: one stripped line per non-empty line."""
    text = _FENCE.sub("", text or "")
    text = _ESCAPED.sub(r"\1", text)
    text = _LINE_MARK.sub("", text)
    text = _EMPHASIS.sub("", text).replace("`", "")
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def labelled(text: str, label: re.Pattern[str] = _ANSWER_LABEL) -> str | None:
    """What follows the last answer label (`Answer:`, `ANSWER:`, `Final answer -`), to the end of its
    line, or the next line when the label stands alone; None when the reply has no label."""
    body = plain(text)
    found = list(label.finditer(body))
    if not found:
        return None
    rest = body[found[-1].end():]
    first, _, after = rest.partition("\n")
    return first.strip() or after.partition("\n")[0].strip()


def answer_part(text: str) -> str:
    """The labelled answer if there is one, else the whole reply (plain)."""
    value = labelled(text)
    return plain(text) if value is None else value


def trim(value: str) -> str:
    """A value without surrounding spaces, quotes, or trailing sentence punctuation."""
    value = value.strip().strip(_QUOTES).strip()
    return value.rstrip(".,;:!?").strip().strip(_QUOTES).strip()


def only(values: Iterable[str]) -> str | None:
    """The value when exactly one distinct candidate was found; None for none or several (ambiguous)."""
    distinct = list(dict.fromkeys(values))
    return distinct[0] if len(distinct) == 1 else None


def _head(line: str) -> str:
    line = _VERDICT_LABEL.sub("", line)
    m = re.match(r"[^A-Za-z]*([A-Za-z]+)", line)
    return m.group(1).upper() if m else ""


def verdict(reply: str, yes: str = "PASS", no: str = "FAIL") -> bool:
    """Does a reviewer's reply accept? Yes when its first or last line leads with `yes` (any case, any
    markdown, after a `Verdict:` label, `PASSED` too) and no line leads with `no`; a reply that says both,
    or neither, does not accept."""
    heads = [_head(line) for line in plain(reply).splitlines()]
    if not heads or any(h.startswith(no) for h in heads):
        return False
    return any(h in (yes, yes + "ED", yes + "ES") for h in (heads[0], heads[-1]))


def mentioned(text: str, words: Iterable[str]) -> list[str]:
    """Which of `words` the text names as whole words (case-blind), in the order given."""
    low = plain(text).lower()
    return [w for w in words if re.search(rf"(?<![\w-]){re.escape(w.lower())}(?![\w-])", low)]


def vote(outputs: list[str], key: Callable[[str], str]) -> str:
    """Majority vote on what the outputs SAY (`key`), not how they are worded; ties go to the answer seen
    first; returns the first output (stripped) of the winning answer."""
    keys = [key(o) for o in outputs]
    counts = Counter(keys)
    winner = max(counts, key=lambda k: (counts[k], -keys.index(k)))
    return outputs[keys.index(winner)].strip()


__all__ = ["answer_part", "labelled", "mentioned", "only", "plain", "trim", "verdict", "vote"]
