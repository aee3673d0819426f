"""The AIMD bound on calls in flight (benchmarks/harness/adaptive.py), against hand-computed steps and through
the real SDK against a sim server that rate-limits."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

from benchmarks.harness.adaptive import AdaptiveBound
from patterns.sim import faults


def test_additive_increase_and_one_halving_per_overshoot() -> None:
    async def steps() -> list[float]:
        bound = AdaptiveBound(ceiling=8)
        seen = [bound.limit]  # 2
        for _ in range(2):
            await bound.release(await bound.acquire())
            seen.append(bound.limit)  # 2 + 1/2 = 2.5, then 2.5 + 1/2.5 = 2.9
        first, second = await bound.acquire(), await bound.acquire()  # both sent in epoch 0
        await bound.release(first, faults.rate_limited(0.0))
        seen.append(bound.limit)  # 2.9 / 2 = 1.45
        await bound.release(second, faults.overloaded(0.0))  # the same overshoot: no second cut
        seen.append(bound.limit)
        await bound.release(await bound.acquire(), faults.server_error())  # a 500 says nothing of the limits
        seen.append(bound.limit)
        assert bound.rate_limited == 1
        return seen

    assert asyncio.run(steps()) == pytest.approx([2.0, 2.5, 2.9, 1.45, 1.45, 1.45])


def test_the_ceiling_holds_and_the_floor_is_one() -> None:
    async def run() -> tuple[float, float, int]:
        bound = AdaptiveBound(ceiling=3)
        for _ in range(50):
            await bound.release(await bound.acquire())
        high = bound.limit
        for _ in range(10):
            await bound.release(await bound.acquire(), faults.rate_limited(0.0))
        peak = 0

        async def call() -> None:
            nonlocal peak
            peak = max(peak, bound.in_flight)
            await asyncio.sleep(0)

        bound.limit = 3.0
        await asyncio.gather(*(bound.run(call) for _ in range(20)))
        return high, min(1.0, bound.limit), peak

    high, low, peak = asyncio.run(run())
    assert high == 3.0 and low == 1.0 and peak <= 3


def test_a_failure_is_raised_through_the_bound_and_frees_its_place() -> None:
    async def run() -> int:
        bound = AdaptiveBound(ceiling=2)

        async def refused() -> None:
            raise faults.rate_limited(0.0)

        with pytest.raises(anthropic.RateLimitError):
            await bound.run(refused)
        return bound.in_flight

    assert asyncio.run(run()) == 0


def test_the_progress_line_counts_429s_and_prompt_tokens_per_minute() -> None:
    import io

    from benchmarks.cli.progress import Progress

    out = io.StringIO()
    bar = Progress(3, stream=out, every_s=0)
    bar.update(False, {"input_tokens": 100, "cache_read_tokens": 50, "error_kinds": "RateLimitError;RateLimitError"})
    bar.update(True, {"input_tokens": 10, "error_kinds": "OverloadedError;RateLimitError"})
    lines = out.getvalue().splitlines()
    assert lines[-1].endswith(" 3 429s") and " tokens/min " in lines[-1] and bar.prompt_tokens == 160
    quiet = io.StringIO()
    Progress(1, stream=quiet, every_s=0).update(False, {"error_kinds": ""})  # no tokens reported: no such figures
    assert "tokens/min" not in quiet.getvalue()


def test_a_retry_after_pauses_every_new_call() -> None:
    async def run() -> float:
        bound = AdaptiveBound(ceiling=4)
        loop = asyncio.get_running_loop()
        await bound.release(await bound.acquire(), faults.rate_limited(0.2))
        began = loop.time()
        await bound.release(await bound.acquire())
        return loop.time() - began

    assert 0.15 < asyncio.run(run()) < 1.0


def test_headers_that_say_the_bucket_is_low_pause_new_calls() -> None:
    """A reply of 600 prompt tokens leaves 100 of a 6,000-a-minute bucket: the next call (600 at the mean) waits
    (600 - 100) / 100 per second = 5 s."""
    from anthropic.types import Usage

    async def run() -> float:
        bound = AdaptiveBound(ceiling=4)
        loop = asyncio.get_running_loop()
        reply = type("Reply", (), {"usage": Usage(input_tokens=600, output_tokens=5)})()
        bound.heed(reply, {"anthropic-ratelimit-input-tokens-remaining": "100",
                           "anthropic-ratelimit-input-tokens-limit": "6000"})
        return bound.paused_until - loop.time()

    assert asyncio.run(run()) == pytest.approx(5.0, abs=0.1)
