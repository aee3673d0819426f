"""A task family with a bug in one design, to show the harness records it as that trial's error."""

from __future__ import annotations

from typing import Any

from benchmarks.tasks.base import Environment
from examples.minimal_family import Capitals


class Broken(Capitals):
    name = "broken"

    def design(self, pattern: str, env: Environment) -> Any:
        if pattern == "chain":
            raise ZeroDivisionError("a bug in the chain design")
        return super().design(pattern, env)


class RaisingScorer(Capitals):
    """A family whose scorer raises: the run is the model's, the bug is the task's."""

    name = "raising_scorer"

    def grade(self, instance: Any, env: Environment, output: str) -> float:
        raise KeyError("a bug in the scorer")
