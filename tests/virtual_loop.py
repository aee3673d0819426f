"""An asyncio event loop whose clock jumps over idle waits, so a test can let a sweep wait 60 s and check
the wait on the loop's clock (`loop.time()`), never on the wall's.

When the loop would sleep longer than `POLL_S` for its next timer, it first polls its sockets for `POLL_S`
of real time (a reply from a server on 127.0.0.1 comes well within it) and, if nothing came, moves its
clock to the timer's time at once. Calls and replies stay real; only the idle waits between them are skipped.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")
POLL_S = 0.25


class _Jumping(selectors.DefaultSelector):  # type: ignore[misc, valid-type]
    def __init__(self) -> None:
        super().__init__()
        self.skipped = 0.0

    def select(self, timeout: float | None = None) -> list[Any]:
        if timeout is None or timeout <= POLL_S:
            return super().select(timeout)
        ready = super().select(POLL_S)
        if not ready:
            self.skipped += timeout - POLL_S
        return ready


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._jumping = _Jumping()
        super().__init__(self._jumping)

    def time(self) -> float:
        return super().time() + self._jumping.skipped


def run_virtual(main: Awaitable[T]) -> tuple[T, float]:
    """(what `main` returns, the seconds it took on the loop's clock, idle waits included)."""
    async def timed() -> tuple[T, float]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        result = await main
        return result, loop.time() - began

    with asyncio.Runner(loop_factory=VirtualLoop) as runner:
        return runner.run(timed())
