"""The steps `repair`'s fixed designs are built from: a validation fixed in code, a fixer that may only
replace a line, validate → fix rounds, and the closing validation that reports DONE or NOT FIXED."""

from __future__ import annotations

from typing import Any

from benchmarks.tasks.base import Environment
from benchmarks.tasks.repair.answers import repair_proposal
from benchmarks.tasks.repair.prompts import FIX_PROMPT, SYSTEM
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Code, ToolStep


class ApplyEdit(ToolStep):
    """A fixed replace_line call that applies a voted proposal; a 'nothing to fix' proposal calls nothing.
    A proposal is read leniently (`answers.repair_proposal`: any case, markdown, fenced or on the next line)."""

    async def __call__(self, run: Run, text: str) -> str:
        return await super().__call__(run, text) if repair_proposal(text) is not None else text


def only(env: Environment, name: str) -> ToolSet:
    return ToolSet([env.tools.tools[name]])


def validate(env: Environment, step: str, **options: Any) -> ToolStep:
    path: str = env.state["path"]
    return ToolStep(step, env.tools, "validate", lambda _text: {"path": path}, **options)


def fixer(env: Environment, step: str) -> LLM:
    """A step that fixes the last problem its input quotes with one replace_line call."""
    return LLM(step, FIX_PROMPT.format(path=env.state["path"]), SYSTEM, only(env, "replace_line"))


def fix_rounds(env: Environment, first: int, last: int) -> list[Any]:
    """Rounds first..last of validate -> fix, the fixer editing with replace_line only."""
    return [s for r in range(first, last + 1) for s in (validate(env, f"validate_{r}"), fixer(env, f"fix_{r}"))]


def finish(env: Environment) -> list[Any]:
    return [validate(env, "validate_final"), Code("report", report)]


def report(validation: str) -> str:
    return "DONE: the validator passes." if validation.startswith("OK") else f"NOT FIXED: {validation.splitlines()[0]}"
