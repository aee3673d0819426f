"""An asyncio event loop on a fake clock, for tests that check what waits how long (never wall time).

Its `time()` stands still while anything can run and jumps to the next timer when the loop would otherwise
sleep, so `asyncio.sleep(3.4)` takes 3.4 fake seconds and no real ones. `busy()` says when real I/O is
outstanding (a request to a local server): then the loop waits for it in real time, with its clock stopped, so a
reply takes no fake time however loaded the machine is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class FakeClockLoop(asyncio.SelectorEventLoop):
    def __init__(self, busy: Callable[[], bool] = lambda: False) -> None:
        super().__init__()
        self.now = 0.0
        self.busy = busy
        select = self._selector.select  # the one place the loop sleeps

        def jump(timeout: float | None = None) -> Any:
            if timeout is not None and timeout > 0 and not self.busy():
                self.now += timeout  # nothing to wait for but the next timer: it is due now
                return select(0)
            return select(timeout)

        self._selector.select = jump  # type: ignore[method-assign]

    def time(self) -> float:
        return self.now


def run_on_fake_clock(main: Coroutine[Any, Any, T], busy: Callable[[], bool] = lambda: False) -> T:
    """`asyncio.run(main)` on a `FakeClockLoop`."""
    with asyncio.Runner(loop_factory=lambda: FakeClockLoop(busy)) as runner:
        return runner.run(main)


def fake_seconds(main: Coroutine[Any, Any, T]) -> tuple[T, float]:
    """`main`'s result and the fake seconds its waits took (0.0: it never waited on a timer)."""

    async def timed() -> tuple[T, float]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        result = await main
        return result, loop.time() - start

    return run_on_fake_clock(timed())


class TimedWaits:
    """Wraps a `threading.Event`: every `wait` is made as asked and its timeout recorded, so a test reads how long
    a server held a reply from what it asked for, not from a stopwatch."""

    def __init__(self, event: Any) -> None:
        self.event = event
        self.waits: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        return bool(self.event.wait(timeout))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.event, name)
