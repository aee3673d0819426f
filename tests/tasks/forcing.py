"""Shared by the family tests: a binomial tolerance, and a policy wrapper that makes chosen decisions wrong."""

from __future__ import annotations

import math
from typing import Any

from patterns.sim import Decider, Reply, Request


def within(successes: int, n: int, p: float) -> bool:
    return abs(successes - n * p) <= 4 * math.sqrt(n * p * (1 - p))


class Forced(Decider):
    """A Decider whose decisions number `wrong` (counted over the whole run) are wrong."""

    def __init__(self, inner: Decider, policy: ForcedPolicy) -> None:
        super().__init__(inner.rng, inner.error_rate)
        self.policy = policy

    def draw(self, rate: float, key: str | None = None, *, kind: str = "decide", crowd: int = 1) -> bool:
        # every decision (plain, judgement, crowded; keyed or not) is counted and forced
        index, self.policy.count = self.policy.count, self.policy.count + 1
        self.decisions += 1
        return index not in self.policy.wrong


class ForcedPolicy:
    def __init__(self, inner: Any, wrong: set[int]) -> None:
        self.inner, self.wrong, self.count = inner, wrong, 0
        self.seen: list[Request] = []

    def accepts(self, request: Request) -> bool:
        return self.inner.accepts(request)

    def respond(self, request: Request, decide: Decider) -> Reply:
        self.seen.append(request)
        return self.inner.respond(request, Forced(decide, self))
