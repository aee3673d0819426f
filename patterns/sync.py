"""Run a coroutine from sync code, including inside Jupyter, where an event loop is already running."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

from .model import aclose_model

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T], *, closing: Any = None) -> T:
    """Run `coro` to the end in an event loop of its own; then close `closing`'s connections (a model), if given.

    An SDK client's connections belong to the loop that opened them, and that loop ends here: left
    open, a later run's loop would try to close them when the client is collected ("Event loop is
    closed" tracebacks). The model opens a new client on its next call."""
    if closing is not None:
        coro = _closing_after(coro, closing)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # A loop runs in this thread (Jupyter): run ours in a worker thread rather than nest loops.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _closing_after(coro: Coroutine[Any, Any, T], model: Any) -> T:
    try:
        return await coro
    finally:
        await aclose_model(model)
