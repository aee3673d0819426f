"""Worker threads for blocking user code (sync tools, scorers) whose hangs cost nothing but their own thread.

`call_in_thread(fn, timeout_s, key=...)` runs `fn()` in a worker thread and raises `TimeoutError` when
it overruns. The pool has a thread for every call in flight (reused when idle; up to `SIZE`), so a call
that hangs never delays another. Python cannot stop a thread, so a call that timed out keeps its
thread until it returns; that thread is *abandoned*: it leaves the pool, so later calls — healthy ones
included — find a free thread as if nothing had happened. Every thread is a daemon, so neither
`asyncio.run` nor the interpreter waits for a call that never returns: the process still exits.
(asyncio's default executor does both wrong: its 6 threads on 2 cores fill up with hung calls, then
every call times out, and the process waits for them at exit.)

A hang that repeats would leak one thread per call, so the abandoned threads are counted per `key`
(a tool, a scorer): once `MAX_STUCK` calls of one key are stuck at once, the next call of that key
fails at once with `TimeoutError` instead of starting another thread, until one of them returns.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import queue
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

MAX_STUCK = 32  # stuck calls of one key (a tool, a scorer) before its next calls fail at once
SIZE = 256  # threads in the pool at most (stuck ones not counted); beyond it, calls wait for one
IDLE_S = 60.0  # an idle thread leaves after this long


class Stuck(TimeoutError):
    """A call refused because `MAX_STUCK` earlier calls of the same key are still running."""


class Overran(TimeoutError):
    """A call past its time; `stack` is where its thread was at that moment (None if it never started)."""

    def __init__(self, message: str, stack: traceback.StackSummary | None) -> None:
        super().__init__(message)
        self.stack = stack


class _Call:
    __slots__ = ("abandoned", "fn", "future", "key", "state", "thread")

    def __init__(self, fn: Callable[[], Any], key: object) -> None:
        self.fn, self.key = fn, key
        self.future: Future[Any] = Future()
        self.state = "queued"  # -> "running" -> "done"; "cancelled" if given up before it ran
        self.abandoned = False
        self.thread = 0  # the ident of the thread running it


class ThreadPool:
    """Daemon threads taking calls from one queue, one per call in flight (up to `size`, idle ones reused).

    The counts that decide whether a call needs a new thread (`_queued` calls not yet taken, `_waiting`
    threads ready to take one) change together under one lock, so a call never waits for a thread that
    is busy, let alone stuck, while the pool has room; a stuck call's thread leaves the pool for good."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._queued = 0  # calls put and not yet taken by a thread
        self._waiting = 0  # threads ready to take one
        self._live = 0  # threads in the pool (neither stuck nor gone)
        self.stuck: Counter[object] = Counter()  # abandoned calls still running, per key

    def submit(self, fn: Callable[[], Any], key: object = None) -> _Call:
        call = _Call(fn, key)
        with self._lock:
            if key is not None and self.stuck[key] >= MAX_STUCK:
                raise Stuck(f"{self.stuck[key]} earlier calls are still running")
            self._queued += 1
            grow = self._queued > self._waiting and self._live < self.size
            self._live += grow
        self._calls.put(call)
        if grow:
            threading.Thread(target=self._work, name="wva-worker", daemon=True).start()
        return call

    def abandon(self, call: _Call) -> traceback.StackSummary | None:
        """The caller gave up on `call`: it never runs, or its thread leaves the pool (it is stuck in it).

        Returns where the stuck thread is (None if the call never started or has just finished)."""
        with self._lock:
            if call.state == "queued":
                call.state = "cancelled"
                return None
            if call.state != "running":
                return None
            call.abandoned = True
            self._live -= 1
            self.stuck[call.key] += 1
            frame = sys._current_frames().get(call.thread)
        return traceback.extract_stack(frame) if frame is not None else None

    def _take(self) -> _Call | None:
        """The next call to run; None when this thread has been idle for `IDLE_S` and is not needed."""
        while True:
            with self._lock:
                self._waiting += 1
            try:
                call = self._calls.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    self._waiting -= 1
                    if self._queued <= self._waiting:  # every call put has a thread ready for it: leave
                        self._live -= 1
                        return None
                continue
            with self._lock:  # a call given up on (or its future cancelled) before it ran never runs
                self._waiting -= 1
                self._queued -= 1
                if call.state == "queued" and call.future.set_running_or_notify_cancel():
                    call.state, call.thread = "running", threading.get_ident()
                    return call
                call.state = "cancelled"

    def _work(self) -> None:
        while (call := self._take()) is not None:
            try:
                call.future.set_result(call.fn())
            except BaseException as exc:
                call.future.set_exception(exc)
            with self._lock:
                call.state = "done"
                if call.abandoned:  # it has left the pool: the calls now come to the others
                    self.stuck[call.key] -= 1
                    return


_pool = ThreadPool()


def _fresh_pool() -> None:  # a forked child has none of the parent's threads
    global _pool
    _pool = ThreadPool()


os.register_at_fork(after_in_child=_fresh_pool)


def pool() -> ThreadPool:
    return _pool


async def call_in_thread(fn: Callable[[], T], timeout_s: float | None, *, key: object = None) -> T:
    """`fn()` in a worker thread (with this task's context variables), cut off after `timeout_s`.

    Raises `Overran` (a TimeoutError) when it overruns, `Stuck` (another) when `MAX_STUCK` calls of
    `key` are still stuck; the call's own exception otherwise."""
    work = _pool
    context = contextvars.copy_context()
    call = work.submit(lambda: context.run(fn), key)
    try:
        async with asyncio.timeout(timeout_s) as deadline:
            return await asyncio.wrap_future(call.future)
    except TimeoutError:
        if not deadline.expired():  # the call's own TimeoutError (a socket's, say)
            raise
        raise Overran(f"still running after {timeout_s:g} s", work.abandon(call)) from None
    except BaseException:  # the caller was cancelled: nobody waits for the call now
        work.abandon(call)
        raise
