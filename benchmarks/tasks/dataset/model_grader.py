"""`model:<rubric>`: a model grades the output against the rubric, as its own call.

The grader is one `Single` call (no tools) on the grader model (`--grader-model`, default: the
run's model). The harness records its events apart (kind `grader_*`) and its cost in runs.csv's
`grader_cost_usd`, never in the pattern's cost. The verdict is read leniently
(`parse_verdict`): a `score: 0.8` or `8/10`, else the first of PASS/FAIL, correct/incorrect,
yes/no, right/wrong (a `not` before it flips it); a reply with none of these scores 0.
"""

from __future__ import annotations

from typing import Any

from benchmarks.tasks.dataset.text import GRADER, parse_verdict
from patterns.result import Result, Terminal
from patterns.workflows import Single, arun_workflow


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
