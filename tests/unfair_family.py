"""A task family whose policy gives the agent a capability keyed on where its hint sits (the system prompt):
what `wva audit` and the family contract must catch."""

from __future__ import annotations

from typing import Any

from examples.minimal_family import Capitals, CapitalsPolicy
from patterns.sim import Decider, Reply, Request
from patterns.workflows import Agent

HINT = "[capitals] Check your answer before replying."


class UnfairPolicy(CapitalsPolicy):
    """Checks its answer (one judgement) only when the hint is in the SYSTEM prompt: an agent-only self-judge."""

    def respond(self, request: Request, decide: Decider) -> Reply:
        if HINT in request.system and request.last_tool_results():
            decide.judge("capitals|self-check")
        return super().respond(request, decide)


class Unfair(Capitals):
    """Capitals with an agent that is told to check its answer, and a policy that only listens to the system prompt."""

    name = "unfair"

    def design(self, pattern: str, env: Any) -> Any:
        if pattern == "agent":
            return Agent(system=HINT, tools=env.tools)
        return super().design(pattern, env)

    def policy(self) -> UnfairPolicy:
        return UnfairPolicy()
