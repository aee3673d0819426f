"""An asyncio event loop whose clock jumps over idle waits, so a test can let a sweep wait 60 s and check
the wait on the loop's clock (`loop.time()`), never on the wall's.

When the loop would sleep longer than `POLL_S` for its next timer, it first polls its sockets for `POLL_S`
of real time (a reply from a server on 127.0.0.1 comes well within it) and, if nothing came, moves its
clock to the timer's time at once. Calls and replies stay real; only the idle waits between them are skipped.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
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


def run_virtual(main: Coroutine[Any, Any, T]) -> tuple[T, float]:
    """(what `main` returns, the seconds of idle waiting the loop's clock skipped): the waits the code under test
    chose, apart from the real time its work took (which depends on the machine's load, and is never asserted)."""
    with asyncio.Runner(loop_factory=VirtualLoop) as runner:
        loop = runner.get_loop()
        assert isinstance(loop, VirtualLoop)
        result = runner.run(main)
        return result, loop._jumping.skipped
