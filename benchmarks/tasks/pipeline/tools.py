"""The `pipeline` family's one tool, `check_format`: a validator of a line's LAYOUT only.

It checks field count, separators, casing and the date/phone/email shapes; it never compares
values with the truth, so it catches formatting slips but not a wrong value. Every line checked
is appended to `state["checks"]`.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from benchmarks.tasks.pipeline.prompts import LAYOUT, layout_of
from patterns.tools import ToolSet, tool

_WORDS = r"[A-Z][a-z]+(?: [A-Z][a-z]+)*"
_SHAPES = {"name": re.compile(f"{_WORDS}, {_WORDS}"), "dob": re.compile(r"\d{4}-\d{2}-\d{2}"),
           "city": re.compile(_WORDS), "phone": re.compile(r"\d{3}-\d{3}-\d{4}"),
           "email": re.compile(r"[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+")}



def format_problems(line: str, fields: list[str]) -> list[str]:
    """What is wrong with a line's layout (empty when it fits); values are not checked against anything."""
    parts = line.strip().split(" | ")
    if len(parts) != len(fields):
        return [f"expected {len(fields)} fields separated by ' | ' ({layout_of(fields)}), found {len(parts)}"]
    problems = []
    for i, (part, name) in enumerate(zip(parts, fields, strict=True), 1):
        ok = bool(_SHAPES[name].fullmatch(part))
        if ok and name == "dob":
            try:
                dt.date.fromisoformat(part)
            except ValueError:
                ok = False
        if not ok:
            problems.append(f"field {i} ({name}) {part!r} should look like {LAYOUT[name]}")
    return problems


def make_tools(state: dict[str, Any]) -> ToolSet:
    """`check_format` over `state["fields"]`, the fields this trial's record has."""

    @tool(timeout_s=None)
    def check_format(line: str) -> str:
        """Check that a normalised record line has the layout the task asks for (field count, ' | '
        separators, casing, date/phone/email shapes). It checks the FORMAT only: it cannot tell
        whether a value is right.

        Args:
            line: the one-line record, e.g. "Smith, John | 1985-03-07 | New York"
        """
        state["checks"].append(line)
        problems = format_problems(line, state["fields"])
        return "INVALID: " + "; ".join(problems) if problems else "VALID: the line has the required layout."

    return ToolSet([check_format])
