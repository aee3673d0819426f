"""What the simulated fixer knows how to do: read the validator's reports (`parse_reports`, `kind_of`)
and work out the fix each one calls for, with the near miss a wrong decision makes (`fix_for`);
`policy` decides when to miss."""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass

_REPORT = re.compile(r"\bline (\d+): (.+)$")
_MISSING = re.compile(r"(missing required key '[^']+'.*)$")
_WORDS = {w: i for i, w in enumerate(("zero one two three four five six seven eight nine ten eleven twelve "
                                      "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty").split())}
_WORDS.update(thirty=30, forty=40, fifty=50, sixty=60, seventy=70, eighty=80, ninety=90, hundred=100)
_TRUE = {"true", "yes", "y", "on", "1", "enabled", "enable"}


@dataclass(frozen=True)
class Report:
    line: int | None
    message: str

    def text(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


@dataclass(frozen=True)
class Fix:
    line: int
    right: str  # passes the rule the report states
    wrong: str  # the plausible near miss; equal to `right` when there is nothing to get wrong


def parse_reports(text: str) -> list[Report]:
    """Every validator report quoted in a text, in order."""
    found: list[Report] = []
    for raw in text.splitlines():
        if match := _REPORT.search(raw):
            found.append(Report(int(match.group(1)), match.group(2).strip()))
        elif match := _MISSING.search(raw):
            found.append(Report(None, match.group(1).strip()))
    return found


def kind_of(report: Report) -> str:
    if report.message.startswith("expected 'key = value'"):
        return "syntax"
    if report.message.startswith(("unknown key", "duplicate key", "missing required key")):
        return "key"
    return "value"


@functools.lru_cache(maxsize=4096)  # pure, and difflib is the policy's slowest part
def _closest(word: str, options: tuple[str, ...]) -> str:
    return (difflib.get_close_matches(word.lower(), options, n=1, cutoff=0.0) or options)[0]


def _integer(got: str) -> int | None:
    if match := re.search(r"-?\d+", got):
        return int(match.group())
    return _WORDS.get(got.strip().lower())


def _value(rule: str, got: str) -> str | None:
    if match := re.fullmatch(r"an integer (-?\d+)-(\d+)", rule):
        low, high = int(match.group(1)), int(match.group(2))
        number = _integer(got)
        return str(low if number is None else min(max(number, low), high))
    if rule.startswith("one of "):
        return _closest(got, tuple(rule[len("one of "):].split(", ")))
    if rule == "true or false":
        return "true" if got.strip().lower() in _TRUE else "false"
    if rule.startswith("a name"):
        slug = re.sub(r"^[^a-z]+", "", re.sub(r"[^a-z0-9]+", "-", got.lower()))[:32].strip("-")
        return slug if len(slug) >= 2 else "service"
    if rule.startswith("a hostname"):
        host = re.sub(r":\d*$", "", re.sub(r"^[a-z]+://", "", got.strip().lower())).replace("_", ".")
        return re.sub(r"[^a-z0-9.-]", "", host).strip(".-")[:64] or "localhost"
    return None


def fix_for(report: Report) -> Fix | None:
    """The one-line edit a report calls for, or None if a line edit cannot fix it."""
    line, message = report.line, report.message
    if line is None:
        return None
    if match := re.fullmatch(r"expected 'key = value', got '(.*)'", message):
        key, value = re.match(r"\s*([^\s:=]*)[\s:=]*(.*)", match.group(1)).groups()  # type: ignore[union-attr]
        return Fix(line, f"{key} = {value}", f"{key}: {value}")
    if match := re.fullmatch(r"unknown key '(.*)' \(value '(.*)'\); known keys: (.*)", message):
        key = _closest(match.group(1), tuple(match.group(3).split(", ")))
        return Fix(line, f"{key} = {match.group(2)}", f"{key.capitalize()} = {match.group(2)}")
    if message.startswith("duplicate key"):
        return Fix(line, "", "")
    if match := re.fullmatch(r"(\S+) must be (.*), got '(.*)'", message):
        key, value = match.group(1), _value(match.group(2), match.group(3))
        if value is None:
            return None
        near_miss = (f'"{value}"' if value.lstrip("-").isdigit() else value + "." if match.group(2).startswith("a host")
                     else value.capitalize())
        return Fix(line, f"{key} = {value}", f"{key} = {near_miss}")
    return None
