"""What the fairness tests watch a policy decide: the kind and key of every draw it makes."""

from __future__ import annotations

from typing import Any

from patterns.sim import Decider, Reply, Request


class Keys:
    """A Decider's source of draws that records every (kind, key) and answers right, or wrong, every time."""

    def __init__(self, wrong: bool = False) -> None:
        self.drawn: list[tuple[str, str]] = []
        self.u = 0.0 if wrong else 0.999

    def __call__(self, kind: str, key: str) -> float:
        self.drawn.append((kind, key))
        return self.u


class _Keyed(Decider):
    """Passes every draw on to the model's own Decider, writing down its kind and key."""

    def __init__(self, inner: Decider, log: list[tuple[str, str | None]]) -> None:
        super().__init__(inner.rng, inner.error_rate, inner.checker_error_rate)
        self.inner, self.log = inner, log

    def draw(self, rate: float, key: str | None = None, *, kind: str = "decide", crowd: int = 1) -> bool:
        self.log.append((kind, key))
        return self.inner.draw(rate, key, kind=kind, crowd=crowd)

    def judge(self, key: str | None = None) -> bool:
        self.log.append(("judge", key))
        return self.inner.judge(key)


class KeyLog:
    """A policy wrapped so that every draw it makes through the model's Decider is written down in `log`."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.log = inner, []

    def accepts(self, request: Request) -> bool:
        return self.inner.accepts(request)

    def respond(self, request: Request, decide: Decider) -> Reply:
        return self.inner.respond(request, _Keyed(decide, self.log))
