"""Model calls in flight, adapted to the provider's signals: additive increase, multiplicative decrease (AIMD).

A fixed bound either crawls below an account's rate limit or runs into 429 storms. This bound is TCP's
congestion rule applied to model calls, shared by every trial of the process (`BoundedModel`):

- it starts at `min(2, ceiling)` calls in flight, and each call that returns adds `1 / limit`, so the
  limit grows by one call per round of `limit` calls, up to the ceiling (`--max-in-flight`);
- a call answered 429 (rate limited) or 529 (overloaded) halves it, never below one; only a call sent
  since the last cut cuts again, so the burst of 429s that one overshoot brings halves it once, not
  once per call (the epoch rule); the call itself waits its `retry-after` in the retry policy;
- a 429 or 529's `retry-after` pauses every new call until it has passed: without the pause, the calls
  waiting for a place would each be sent at once into the same empty bucket and answered 429 in turn
  (measured: 63% of the calls answered 429 at a 30,000 input-token limit, `benchmarks/perf/rate_limits.py`);
- after a reply whose `anthropic-ratelimit-input-tokens-remaining` header says the bucket holds less than
  the calls in flight will take (at the mean prompt so far), new calls wait until it has refilled that much
  at the header's `-limit` per minute: the headers bound the bound before a 429 has to;
- other failures (a 500, a timeout, a 400) say nothing of the account's limits and leave it as it is.

It reads the status of each failure, so it works for every provider whose errors keep their status
(`patterns.openai_model` raises OpenAI's with theirs). `rate_limited` counts the 429s, for the progress line.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from patterns.retry import retry_after_s

SLOWED = frozenset({429, 529})


class AdaptiveBound:
    """An asyncio bound on calls in flight whose size follows AIMD (module docstring)."""

    def __init__(self, ceiling: int, start: int = 2) -> None:
        if ceiling < 1:
            raise ValueError(f"the ceiling on calls in flight must be >= 1, got {ceiling}")
        self.ceiling = ceiling
        self.limit = float(min(start, ceiling))
        self.in_flight = 0
        self.epoch = 0  # bumped at each cut: a failure of a call sent before it does not cut again
        self.rate_limited = 0
        self.paused_until = 0.0  # the event loop's time before which no call is sent (a retry-after)
        self.prompts, self.prompt_tokens = 0, 0  # replies seen and their prompt tokens (the mean call's size)
        self._changed = asyncio.Condition()

    async def acquire(self) -> int:
        """Wait for room (and for any retry-after to pass); the epoch the call was sent in (for `release`)."""
        loop = asyncio.get_running_loop()
        while True:
            if (pause := self.paused_until - loop.time()) > 0:
                await asyncio.sleep(pause)
                continue
            async with self._changed:
                await self._changed.wait_for(lambda: self.in_flight < math.floor(self.limit))
                if self.paused_until <= loop.time():
                    self.in_flight += 1
                    return self.epoch

    async def release(self, epoch: int, failure: BaseException | None = None) -> None:
        status = getattr(failure, "status_code", None)
        async with self._changed:
            self.in_flight -= 1
            if status == 429:
                self.rate_limited += 1
            if status in SLOWED:
                asked = retry_after_s(failure) if failure is not None else None
                if asked:
                    self.paused_until = max(self.paused_until, asyncio.get_running_loop().time() + asked)
                if epoch == self.epoch:
                    self.limit = max(1.0, self.limit / 2)
                    self.epoch += 1
            elif failure is None:
                self.limit = min(float(self.ceiling), self.limit + 1.0 / self.limit)
            self._changed.notify_all()

    async def run(self, call: Any, headers: Any = None) -> Any:
        """`await call()` inside the bound; `headers()`, after a reply, the rate-limit headers it came with."""
        epoch = await self.acquire()
        try:
            result = await call()
        except BaseException as exc:
            await self.release(epoch, exc)
            raise
        await self.release(epoch)
        self.heed(result, headers() if headers is not None else None)
        return result

    def heed(self, message: Any, headers: dict[str, str] | None) -> None:
        """Pause new calls while the input-token bucket the headers report cannot take the calls in flight."""
        usage = getattr(message, "usage", None)
        prompt = sum(int(getattr(usage, k, 0) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                             "cache_read_input_tokens"))
        self.prompts, self.prompt_tokens = self.prompts + 1, self.prompt_tokens + prompt
        try:
            remaining = float((headers or {})["anthropic-ratelimit-input-tokens-remaining"])
            per_minute = float((headers or {})["anthropic-ratelimit-input-tokens-limit"])
        except (KeyError, ValueError):
            return
        needed = self.prompt_tokens / self.prompts * (self.in_flight + 1)
        if remaining < needed and per_minute > 0:
            wait = (needed - remaining) * 60.0 / per_minute
            self.paused_until = max(self.paused_until, asyncio.get_running_loop().time() + wait)
