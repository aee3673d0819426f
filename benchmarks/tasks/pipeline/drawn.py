"""`pipeline`'s declared comparator: the three-step chain, then the checks the agent is told to make, drawn
in advance as a bounded loop.

    extract → normalise → format → up to `max_rounds` rounds of:
        check_format (a tool step) ─ INVALID → fix (given the line and the report)
                                   └ VALID → judge (against the record) ─ PASS → accept (ends the loop)
                                                                      └ FAIL → redo (given the line and the note)
    → the line

The validator is a tool step, not a model's choice; the judge makes the judgement the agent makes of its
own VALID line; a fix or a redo is checked again in the next round. The text each step hands on carries
what the next one needs: `Line: ...` with the validator's report or the reviewer's note beside it.
"""

from __future__ import annotations

import re

from benchmarks.tasks.pipeline import prompts as pt
from patterns.answers import plain, verdict
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, Code, Loop, Parallel, Route, Step, ToolStep

ACCEPTED = "ACCEPTED"
_LINE = re.compile("^" + re.escape(pt.LINE) + r" ?(.*)$", re.M)


def line_of(text: str) -> str:
    """The line a text carries: after `Line:`, else the model's reply (its one row with `|`, else its first row)."""
    if m := _LINE.search(text):
        return m.group(1).strip()
    rows = [row.strip().strip("`").strip() for row in plain(text).splitlines() if row.strip()]
    laid = list(dict.fromkeys(row for row in rows if "|" in row))
    return laid[0] if len(laid) == 1 else (rows[0] if rows else "")


def with_report(text: str, result: str, failed: bool) -> str:
    return f"{pt.LINE} {line_of(text)}\n{pt.REPORT} {'ERROR: ' if failed else ''}{result}"


def layout_verdict(text: str) -> str:
    return "valid" if re.search("^" + re.escape(pt.REPORT) + " VALID", text, re.M) else "invalid"


def with_note(outputs: list[str]) -> str:
    line, note = outputs
    return f"{pt.LINE} {line_of(line)}\n{pt.NOTE}\n{note.strip()}"


def review_verdict(text: str) -> str:
    return "pass" if verdict(text.split(pt.NOTE, 1)[-1]) else "fail"


def accept(text: str) -> str:
    return f"{ACCEPTED}\n{pt.LINE} {line_of(text)}"


def accepted(text: str) -> bool:
    return text.startswith(ACCEPTED)


def _judge_prompt(text: str, task: str) -> str:
    return pt.JUDGE.replace("{task}", task).replace("{input}", line_of(text))


def checked_chain(steps: list[Step], tools: ToolSet, system: str, max_rounds: int) -> Chain:
    """`steps` (which write the line), then the bounded check → fix / judge → redo loop, then the line."""
    check = ToolStep("check_format", tools, "check_format", lambda text: {"line": line_of(text)}, keep=with_report)
    judge = Parallel(branches=[Code("keep the line", line_of), LLM("judge", _judge_prompt, system)],
                     aggregate=with_note, name="judge")
    review = Chain([judge, Route(Code("PASS?", review_verdict),
                                 {"pass": Code("accept", accept), "fail": LLM("redo", pt.REDO_PROMPT, system)},
                                 name="review")], name="review")
    round_ = Chain([check, Route(Code("VALID?", layout_verdict),
                                 {"valid": review, "invalid": LLM("fix", pt.FIX_PROMPT, system)}, name="report")],
                   name="round")
    return Chain([*steps, Loop(round_, until=accepted, max_rounds=max_rounds, name="checks"),
                  Code("answer", line_of)])
