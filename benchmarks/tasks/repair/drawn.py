"""`repair`'s declared comparator: validate, then fix what the validator reports, fault by fault, in bounded
loops drawn in advance, with the validator run in code after every fix (as the agent is told to run it).

    validate → up to `rounds` faults:  OK? ─ yes → done
                                           └ no → up to `attempts` tries of: fix (given the latest report)
                                                  → validate, until it says OK or reports another line
    → validate → DONE / NOT FIXED

A fix the validator rejects (it reports the same line again) is tried again with the new report, as the
agent tries again; a file with more faults than `rounds` is out of reach, as for the plain chain. The
text each step hands on is the fixer's reply and, after `Validator:`, the validator's latest report.
"""

from __future__ import annotations

import re

from benchmarks.tasks.base import Environment
from benchmarks.tasks.repair.skills import parse_reports
from benchmarks.tasks.repair.steps import finish, fixer, validate
from patterns.workflows import Chain, Code, Loop, Route

REPORT = "Validator:"
_EDITED = re.compile(r"\bline (\d+)\b")


def with_report(text: str, result: str, failed: bool) -> str:
    return f"{text.strip()}\n{REPORT} {'ERROR: ' if failed else ''}{result}"


def latest_report(text: str) -> str:
    """The validator's latest report in a text (the whole text when it is a report alone)."""
    return text.rsplit(REPORT, 1)[-1].strip()


def is_ok(text: str) -> bool:
    return latest_report(text).startswith("OK")


def ok_label(text: str) -> str:
    return "ok" if is_ok(text) else "fail"


def fault_done(text: str) -> bool:
    """The fault a try was about is gone: the file is valid, or the validator now reports another line than
    the one the fixer says it edited (a reply naming no edited line counts as the same fault)."""
    if is_ok(text):
        return True
    edited = _EDITED.search(text.rsplit(REPORT, 1)[0]) if REPORT in text else None
    reported = parse_reports(latest_report(text))
    return edited is not None and bool(reported) and reported[0].line != int(edited.group(1))


def fault_by_fault(env: Environment, rounds: int, attempts: int) -> Chain:
    tries = Loop(Chain([fixer(env, "fix"), validate(env, "validate", keep=with_report)], name="try"),
                 until=fault_done, max_rounds=attempts, name="attempts")
    faults = Loop(Route(Code("OK?", ok_label), {"ok": Code("valid", str.strip), "fail": tries}, name="report"),
                  until=is_ok, max_rounds=rounds, name="faults")
    return Chain([validate(env, "validate_1"), faults, *finish(env)])
