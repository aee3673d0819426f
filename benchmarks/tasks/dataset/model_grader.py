"""`model:<rubric>`: a model grades the output against the rubric, as its own call.

The grader is one `Single` call (no tools) on the grader model (`--grader-model`, default: the
run's model). The harness records its events apart (kind `grader_*`) and its cost in runs.csv's
`grader_cost_usd`, never in the pattern's cost. The verdict is read leniently
(`parse_verdict`): a `score: 0.8` or `8/10`, else the first of PASS/FAIL, correct/incorrect,
yes/no, right/wrong (a `not` before it flips it); a reply with none of these scores 0.
"""

from __future__ import annotations

import re
from typing import Any

from patterns.result import Result, Terminal
from patterns.workflows import Single, arun_workflow

from .scorers import strip_markdown

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


def grader_prompt(rubric: str, question: str, target: str, output: str) -> str:
    reference = f"\n\nA reference answer: {target}" if target else ""
    return (f"Please {GRADER} an answer against a rubric.\n\nRubric: {rubric}\n\nThe question:\n{question}"
            f"{reference}\n\nThe answer to {GRADER}:\n{output}\n\nReply with PASS or FAIL on the first line, "
            "then one sentence saying why.")


def grader_system(marker: str) -> str:
    return f"{marker} You are a strict, fair grader. Judge only whether the answer meets the rubric."


async def grade_with_model(model: Any, marker: str, rubric: str, instance: Any, output: str,
                           **run_options: Any) -> tuple[float, Result]:
    """(score, the grader call's Result); a failed grader call scores 0 (its Result says why)."""
    target = str(instance.data.get("target") or "")
    text = grader_prompt(rubric, instance.prompt, target, output)
    # a callable prompt: the answer is quoted as it is, never read as a {task}/{input} template
    spec = Single(prompt=lambda _input, _task: text, system=grader_system(marker), name="grader")
    result = await arun_workflow(spec, model, instance.prompt, **run_options)
    if result.terminal is not Terminal.COMPLETED:
        return 0.0, result
    verdict = parse_verdict(result.output)
    return (verdict if verdict is not None else 0.0), result
