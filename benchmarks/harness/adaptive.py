"""Model calls in flight, paced by the account's rate-limit headers, bounded by AIMD on 429s and 529s.

One controller, shared by every trial of the process (`BoundedModel`). A call is sent when both of these let it:

- **The headers' ledger** (the primary signal). Every reply, a 429's included, says what each of the account's
  buckets holds (`patterns.rate_headers`: the Messages API's requests, input-tokens, output-tokens and tokens
  families, or the OpenAI-compatible `x-ratelimit-*`). The ledger keeps, per bucket, the last reported
  remaining less what the calls sent after the reporting call will take, refilled since at the bucket's rate
  (its limit per minute, or slower if its reset says so; a token count that may have been rounded up to a
  thousand is taken as 500 less, `rounded_by`). A call is sent only when every bucket covers it: one
  request; its prompt, estimated from the request (~4 characters a token, `patterns.usage.estimate_usage`)
  times the largest ratio of reported to estimated prompt tokens of the last 32 replies (the tokens the limit
  counts: uncached input and cache writes where an input-tokens bucket is reported, cache reads too in a
  provider's one tokens bucket), plus a 10% margin; its
  `max_tokens` of output (the API takes `max_tokens` at the start and gives back what is unused). The combined
  `-tokens-` bucket is read only where neither the input nor the output one is reported, and takes prompt plus
  output.
  A call that cannot be covered yet waits for the refill (the bucket's share it needs, at most a full bucket).
  Both providers document their limits per minute, so a bucket is taken to be full again `MAX_WAIT_S` (60 s)
  after a reply at the latest, whatever its reset says (a reset in the year 9999 would otherwise stop every
  call for good), and no call waits in the bound longer than `MAX_WAIT_S` in all: past it, the call is sent
  and the server's answer (a 429 and its `retry-after`, to the retry policy) says the rest.
  "Sent after" counts the calls sent after the reporting one whether they are still in flight or not. Counting
  a call both in the reported remaining and in "sent after" is possible and only costs a reserve of about one
  latency's worth of tokens (Little's law), never a 429; counting it in neither would take a call sent earlier
  reaching the server after a later call's whole reply was written.
- **The AIMD bound** (the fallback for providers that send no headers, and for overload), as TCP Reno sizes
  its window. It starts at `min(2, ceiling)` calls in flight; until the first cut each call that returns adds
  one (slow start: the bound doubles every round of calls, so a sweep whose calls take seconds reaches the
  limit in a few rounds, not one round per call), and after it `1 / bound` (one call more per round), up to
  the ceiling (`--max-in-flight`); a 429 (rate limited) or 529 (overloaded) halves it,
  never below one, once per overshoot (only a call sent since the last cut cuts again: the epoch rule). A 429
  or 529's `retry-after` pauses every new call until it has passed (the call itself waits it in the retry
  policy), at most `MAX_WAIT_S` (60 s, the retry policy's own cap on a `retry-after`): a server that asks for
  `1e12` seconds must not stop the sweep for good. Other failures (a 500, a timeout, a 400) say nothing of
  the limits and leave it as it is.

Why pace rather than only cut: the bucket starts full, so a bound that grows by AIMD alone meets the limit
only by overshooting it, and against a fast server every call waiting for a place goes into the same empty
bucket at once (measured: 26% of the calls answered 429 at a 30,000 input-token limit with AIMD and a
pause on the input-token header, `benchmarks/perf/rate_limits.py`; 63% without the pause; 0 to 0.4% with
the ledger: docs/paid-sweeps.md).

`rate_limited` counts the 429s as they happen, and `live()` sums every bound of the process not yet retired
(its sweep over), for the progress line.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from patterns import rate_headers
from patterns.retry import RetryPolicy, retry_after_s
from patterns.usage import estimate_usage

SLOWED = frozenset({429, 529})
RATIOS = 32  # replies whose reported/estimated prompt ratio sizes the next estimate
ROUNDING = 1000.0  # the step the Messages API rounds its remaining token counts to
MAX_WAIT_S = RetryPolicy().max_retry_after_s  # the longest the bound holds a call back, whatever the headers say
MARGIN = 1.1  # on that: a prompt estimated low is a 429; one estimated high holds back only its excess, once
_LIVE: weakref.WeakSet[AdaptiveBound] = weakref.WeakSet()


@dataclass
class Ledger:
    """What one bucket holds by the client's reckoning: `level` at loop time `at`, refilled at `rate` a second."""

    limit: float
    level: float
    rate: float
    at: float

    def level_at(self, now: float) -> float:
        return min(self.limit, self.level + (now - self.at) * self.rate)

    def take(self, amount: float, now: float) -> None:
        self.level, self.at = self.level_at(now) - amount, now

    def wait_s(self, amount: float, now: float) -> float:
        """Seconds until the bucket covers `amount` (at most a full bucket: a bigger call could never go)."""
        short = min(amount, self.limit) - self.level_at(now)
        return 0.0 if short <= 0 else (math.inf if self.rate <= 0 else short / self.rate)


@dataclass
class Sent:
    needs: dict[str, float]
    estimate: float  # the prompt's ~4-characters-a-token estimate (0: none), for the ratio
    epoch: int


class AdaptiveBound:
    """An asyncio bound on calls in flight, paced by the headers and sized by AIMD (module docstring)."""

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
        self.ledgers: dict[str, Ledger] = {}
        self.flying: dict[int, Sent] = {}  # calls in flight by the order they were sent
        self.history: dict[int, Sent] = {}  # calls sent since the oldest in flight, finished or not
        self.ratios: deque[float] = deque(maxlen=RATIOS)
        self.sent = 0
        self._changed = asyncio.Condition()
        _LIVE.add(self)

    def needs(self, params: dict[str, Any] | None) -> tuple[dict[str, float], float]:
        """What a call takes from each bucket, and its prompt's plain estimate."""
        if params is None:
            estimate, prompt = 0.0, self.prompt_tokens / max(self.prompts, 1)
        else:
            estimate = float(estimate_usage(params, None).input_tokens)
            prompt = estimate * max(self.ratios, default=1.0) * MARGIN
        output = float(params.get("max_tokens") or 0) if params else 0.0
        needs = {"requests": 1.0, "input": prompt, "output": output}
        if "input" not in self.ledgers and "output" not in self.ledgers:
            needs["tokens"] = prompt + output
        return needs, estimate

    def _wait_s(self, needs: dict[str, float], now: float) -> float:
        pause = self.paused_until - now
        return max([pause] + [ledger.wait_s(needs.get(kind, 0.0), now) for kind, ledger in self.ledgers.items()])

    async def acquire(self, params: dict[str, Any] | None = None) -> int:
        """Wait for room, the refill the call needs and any retry-after; the call's ticket (for `release`)."""
        loop = asyncio.get_running_loop()
        needs, estimate = self.needs(params)
        async with self._changed:
            held: float | None = None  # when the headers first held this call back
            while True:
                if self.in_flight >= math.floor(self.limit):
                    await self._changed.wait()
                    continue
                wait = self._wait_s(needs, loop.time())
                if wait > 0:
                    held = loop.time() if held is None else held
                    wait = min(wait, held + MAX_WAIT_S - loop.time())
                if wait <= 0:
                    break
                try:
                    async with asyncio.timeout(wait):
                        await self._changed.wait()
                except TimeoutError:
                    pass
            now = loop.time()
            for kind, ledger in self.ledgers.items():
                ledger.take(needs.get(kind, 0.0), now)
            self.in_flight += 1
            self.sent += 1
            self.flying[self.sent] = self.history[self.sent] = Sent(needs, estimate, self.epoch)
            return self.sent

    async def release(self, ticket: int, failure: BaseException | None = None,
                      headers: Any = None, message: Any = None) -> None:
        """The end of a call: AIMD on its status, the ledger from its headers, the ratio from its usage."""
        status = getattr(failure, "status_code", None)
        async with self._changed:
            sent = self.flying.pop(ticket)
            self.in_flight -= 1
            if status == 429:
                self.rate_limited += 1
            if status in SLOWED:
                asked = retry_after_s(failure) if failure is not None else None
                if asked:  # capped as the retry policy caps it (a NaN is no wait)
                    asked = min(asked, MAX_WAIT_S) if asked == asked else 0.0
                    self.paused_until = max(self.paused_until, asyncio.get_running_loop().time() + asked)
                if sent.epoch == self.epoch:
                    self.limit = max(1.0, self.limit / 2)
                    self.epoch += 1
            elif failure is None:  # slow start (one more per call) until the first cut, then one more per round
                self.limit = min(float(self.ceiling), self.limit + (1.0 if self.epoch == 0 else 1.0 / self.limit))
                self._count(message, sent)
            self._observe(ticket, headers)
            oldest = min(self.flying, default=self.sent + 1)  # no later reply needs what was sent before it
            self.history = {t: h for t, h in self.history.items() if t >= oldest}
            self._changed.notify_all()

    def _count(self, message: Any, sent: Sent) -> None:
        usage = getattr(message, "usage", None)
        if usage is None:
            return
        # The Messages API's input-token limit counts uncached input and cache writes, not cache reads
        # (docs/paid-sweeps.md); an OpenAI-compatible account's one tokens bucket counts the whole prompt.
        counted = ("input_tokens", "cache_creation_input_tokens") if "input" in self.ledgers else \
            ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        prompt = sum(int(getattr(usage, k, 0) or 0) for k in counted)
        self.prompts, self.prompt_tokens = self.prompts + 1, self.prompt_tokens + prompt
        if sent.estimate > 0 and prompt > 0:
            self.ratios.append(prompt / sent.estimate)

    def _observe(self, ticket: int, headers: Any) -> None:
        """The ledger from a reply's headers: each bucket's remaining less the calls sent after this one, in
        flight or not (one that finished first may still have been admitted after this reply was written)."""
        buckets = rate_headers.read(headers, datetime.now(UTC))
        if "input" in buckets or "output" in buckets:
            buckets.pop("tokens", None)
        now = asyncio.get_running_loop().time()
        for kind, bucket in buckets.items():
            after = sum(s.needs.get(kind, 0.0) for t, s in self.history.items() if t > ticket)
            level = bucket.remaining - after - rounded_by(kind, bucket.remaining)
            # full within MAX_WAIT_S at the latest: a reset far off (or never) must not stop the sweep
            rate = max(bucket.refill_per_s(), (bucket.limit - bucket.remaining) / MAX_WAIT_S)
            self.ledgers[kind] = Ledger(bucket.limit, level, rate, now)

    def retire(self) -> None:
        """Its sweep is over: `live` no longer counts it."""
        _LIVE.discard(self)

    async def run(self, call: Any, headers: Any = None, params: dict[str, Any] | None = None) -> Any:
        """`await call()` inside the bound; `headers()`, after a reply, the rate-limit headers it came with;
        `params`, the request (its size is what the call takes from the input bucket)."""
        ticket = await self.acquire(params)
        try:
            result = await call()
        except BaseException as exc:
            await self.release(ticket, exc, getattr(getattr(exc, "response", None), "headers", None))
            raise
        await self.release(ticket, None, headers() if headers is not None else None, result)
        return result


def rounded_by(kind: str, remaining: float) -> float:
    """How much a reported remaining may exceed the truth: the Messages API documents its token counts as
    rounded to the nearest thousand, so a token count that is a multiple of 1,000 may be up to 500 high (one that
    is not was evidently not rounded). A remaining rounded down is only cautious."""
    return ROUNDING / 2 if kind != "requests" and remaining >= ROUNDING and remaining % ROUNDING == 0 else 0.0


def live() -> dict[str, float] | None:
    """Calls in flight, the bound on them and the 429s so far, over every bound of this process; None if none."""
    bounds = list(_LIVE)
    if not bounds:
        return None
    return {"in_flight": sum(b.in_flight for b in bounds), "bound": sum(math.floor(b.limit) for b in bounds),
            "rate_limited": sum(b.rate_limited for b in bounds)}
