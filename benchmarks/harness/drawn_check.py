"""Agent-like designs, found when a sweep is set up, never trial by trial (`patterns.workflows.choices`).

A design whose model picks among more than K next steps on a loop is the agent by another name. Each design a
sweep names is built once, on its task's first instance, and read by the one definition:
- a family's own design (a pattern, a named variant, a task file's generic design) that is agent-like is not
  offered for that task, with the reason, so it is never run only to fail;
- a user's design (`file.py:function`) that is agent-like is a mistake in what was asked for: one line, exit 2.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from benchmarks.tasks.base import iter_instances, task_label
from benchmarks.tasks.refusals import agent_like_reason
from benchmarks.tasks.variants import design_for, is_user_design


def agent_like_designs(family: Any, names: list[str] | tuple[str, ...]) -> dict[str, str]:
    """The designs among `names` that are agent-like for this family, each with its one-line reason."""
    names = [n for n in names if n != "agent"]
    instance = next(iter(iter_instances(family, 1, 0)), None)
    if not names or instance is None:
        return {}
    out = {}
    with tempfile.TemporaryDirectory(prefix="wva-drawn-check-") as workdir:
        env = family.environment(instance, Path(workdir))
        for name in names:
            reason = agent_like_reason(lambda name=name: design_for(family, name, env))
            if reason is not None:
                out[name] = reason
    return out


def check_user_designs(families: list[Any], names: tuple[str, ...] | list[str]) -> None:
    """A ValueError (one line, saying "agent-like" and naming the step) for a user's design that is agent-like on
    any of the sweep's tasks."""
    users = [n for n in names if is_user_design(n)]
    for family in families if users else []:
        for name, reason in agent_like_designs(family, users).items():
            raise ValueError(f"design {name} on {task_label(family)}: {reason}")
