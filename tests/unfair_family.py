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


class _Harsher(Decider):
    """Every decision at 1.5 times the odds it is asked at, and (`rekey`) under another key."""

    def __init__(self, inner: Decider, rekey: bool) -> None:
        super().__init__(inner.rng, inner.error_rate, inner.checker_error_rate)
        self.inner, self.rekey = inner, rekey

    def draw(self, rate: float, key: str | None = None, *, kind: str = "decide", crowd: int = 1) -> bool:
        if self.rekey:
            return self.inner.draw(rate, (key or "").replace("capitals|country", "capitals|guess"), kind=kind,
                                   crowd=crowd)
        return self.inner.draw(min(1.0, rate * 1.5), key, kind=kind, crowd=crowd)


class SkewedPolicy(CapitalsPolicy):
    """The agent's requests (its system prompt) charged other odds, or (`rekey`) keyed apart."""

    rekey = False

    def respond(self, request: Request, decide: Decider) -> Reply:
        if "capital city only" in request.system:
            decide = _Harsher(decide, self.rekey)
        return super().respond(request, decide)


class RekeyedPolicy(SkewedPolicy):
    rekey = True


class Skewed(Capitals):
    """Capitals whose policy charges the agent's decisions 1.5 times the odds: `wva audit` must name the decision."""

    name = "skewed"

    def policy(self) -> SkewedPolicy:
        return SkewedPolicy()


class Rekeyed(Capitals):
    """Capitals whose policy keys the agent's decisions apart from every workflow's."""

    name = "rekeyed"

    def policy(self) -> RekeyedPolicy:
        return RekeyedPolicy()
