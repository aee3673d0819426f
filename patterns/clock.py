"""The run's clock: real wall time, or virtual time that costs no waiting.

A `VirtualClock` keeps the current time in a `ContextVar`, so every asyncio task (a trial,
a parallel branch) has its own timeline: a task starts at its parent's time and `sleep`
advances only its own. `gather_timed` joins branches at the latest branch's end, which is
what makes a run's latency its critical path rather than a sum.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Iterable
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Clock(Protocol):
    virtual: bool

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    def advance_to(self, t: float) -> None: ...


class RealClock:
    """Monotonic wall time; `sleep` really waits."""

    virtual = False
    now = staticmethod(time.monotonic)  # the builtin itself: read four times per agent step

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    def advance_to(self, t: float) -> None:  # wall time advances by itself
        return None


class VirtualClock:
    """Modelled time: `sleep` moves this task's time forward and returns at once."""

    virtual = True

    def __init__(self) -> None:
        self._now: ContextVar[float] = ContextVar(f"virtual_now_{id(self)}", default=0.0)

    def now(self) -> float:
        return self._now.get()

    async def sleep(self, seconds: float) -> None:
        self._now.set(self._now.get() + max(0.0, seconds))
        await asyncio.sleep(0)  # still yield, so concurrent branches interleave as they would

    def advance_to(self, t: float) -> None:
        if t > self._now.get():
            self._now.set(t)


REAL_CLOCK = RealClock()


def clock_of(model: Any) -> Clock:
    """The clock a model runs on: its own `clock` attribute if it has one, else wall time."""
    clock = getattr(model, "clock", None)
    return clock if clock is not None else REAL_CLOCK


async def gather_timed(clock: Clock, aws: Iterable[Awaitable[T]]) -> list[T]:
    """`asyncio.gather` that leaves the caller's clock at the slowest branch's end."""

    async def branch(aw: Awaitable[T]) -> tuple[T, float]:
        value = await aw
        return value, clock.now()

    # A TaskGroup, not gather: when one branch fails the others are cancelled instead of
    # going on calling the model after the run has ended.
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(branch(aw)) for aw in aws]  # type: ignore[arg-type]
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
    results = [task.result() for task in tasks]
    if results:
        clock.advance_to(max(end for _, end in results))
    return [value for value, _ in results]
