"""The bound on calls in flight (benchmarks/harness/adaptive.py): AIMD and the headers' ledger against
hand-computed steps, and through the real SDK against a sim server that rate-limits."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

from benchmarks.harness.adaptive import AdaptiveBound
from patterns.sim import faults

from .fake_loop import run_on_fake_clock


def test_slow_start_additive_increase_and_one_halving_per_overshoot() -> None:
    async def steps() -> list[float]:
        bound = AdaptiveBound(ceiling=8)
        seen = [bound.limit]  # 2
        for _ in range(2):
            await bound.release(await bound.acquire())
            seen.append(bound.limit)  # slow start, one more per call: 3, then 4
        first, second = await bound.acquire(), await bound.acquire()  # both sent in epoch 0
        await bound.release(first, faults.rate_limited(0.0))
        seen.append(bound.limit)  # 4 / 2 = 2
        await bound.release(second, faults.overloaded(0.0))  # the same overshoot: no second cut
        seen.append(bound.limit)
        await bound.release(await bound.acquire(), faults.server_error())  # a 500 says nothing of the limits
        seen.append(bound.limit)
        for _ in range(2):
            await bound.release(await bound.acquire())
            seen.append(bound.limit)  # after a cut, 1 / bound a call: 2 + 1/2 = 2.5, then 2.5 + 1/2.5 = 2.9
        assert bound.rate_limited == 1
        return seen

    assert asyncio.run(steps()) == pytest.approx([2.0, 3.0, 4.0, 2.0, 2.0, 2.0, 2.5, 2.9])


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
    bar = Progress(3, stream=out, every_s=0, account=True)
    bar.update(False, {"input_tokens": 100, "cache_read_tokens": 50, "error_kinds": "RateLimitError;RateLimitError"})
    bar.update(True, {"input_tokens": 10, "error_kinds": "OverloadedError;RateLimitError"})
    lines = out.getvalue().splitlines()
    assert lines[-1].endswith(" 3 429s") and " tokens/min " in lines[-1] and bar.prompt_tokens == 160
    assert "in flight" not in lines[-1]  # no bound to read
    quiet = io.StringIO()
    Progress(1, stream=quiet, every_s=0, account=True).update(False, {"error_kinds": ""})  # no tokens: no figures
    assert "tokens/min" not in quiet.getvalue() and "429s" not in quiet.getvalue()
    sim = Progress(1, stream=io.StringIO(), every_s=0)  # the simulator: no account, no limits to report
    sim.update(False, {"input_tokens": 100, "error_kinds": "RateLimitError"})
    assert sim.line(1.0).endswith("errors 0") and sim.rate_limited == 1


def test_the_line_reports_limits_only_against_an_account() -> None:
    from benchmarks.cli.progress import against_an_account, sweep_progress
    from benchmarks.harness.adaptive import live

    assert against_an_account("anthropic:claude-sonnet-4-5") and against_an_account("openai:gpt-4o")
    assert not against_an_account("sim:error_rate=0.1") and not against_an_account("replay:cassette.jsonl")
    paid, sim = (sweep_progress(1, 0, True, model) for model in ("anthropic:claude-sonnet-4-5", "sim"))
    assert paid.account and not sim.account and paid.live is live is sim.live


def test_the_progress_line_shows_calls_in_flight_and_429s_as_they_happen() -> None:
    """Two 429s at the bound (the first halves 2.0 to 1.0: the second was sent in the same epoch), one call in
    flight: the line says so before any trial has finished or reported tokens."""
    import gc
    import io

    from benchmarks.cli.progress import Progress
    from benchmarks.harness.adaptive import live

    gc.collect()  # no bound of an earlier test is still alive

    async def run() -> str:
        bound = AdaptiveBound(ceiling=8)
        first, second = await bound.acquire(), await bound.acquire()
        await bound.release(first, faults.rate_limited(0.0))
        await bound.release(second, faults.rate_limited(0.0))
        await bound.acquire()
        out = io.StringIO()
        bar = Progress(4, stream=out, every_s=0, live=live, account=True)
        bar.update(False, {"error_kinds": ""})
        bound.retire()
        assert live() is None
        return out.getvalue().splitlines()[-1]

    line = asyncio.run(run())
    assert line.endswith("errors 0  calls 1/1 in flight  2 429s")


PARAMS = {"messages": [{"role": "user", "content": "x" * 1522}], "max_tokens": 300}  # 1,600 characters of JSON
# with its system and tools (None): ~4 characters a token, 400 tokens (patterns.usage.estimate_usage)


def reply(prompt: int) -> object:
    from anthropic.types import Usage

    return type("Reply", (), {"usage": Usage(input_tokens=prompt, output_tokens=5)})()


def input_headers(remaining: int, limit: int = 6000) -> dict[str, str]:
    return {"anthropic-ratelimit-input-tokens-limit": str(limit),
            "anthropic-ratelimit-input-tokens-remaining": str(remaining)}


def test_the_ledger_is_the_reported_remaining_less_the_calls_sent_after() -> None:
    """Two calls go, each 400 estimated tokens x the 1.1 margin = 440. The second returns first; then the
    first's reply says 1,500 of a 6,000-a-minute bucket remain (100 a second) and that its prompt was 600
    tokens (a ratio of 1.5). The second was sent after the first, so its reply may have been admitted after the
    first's was written: the ledger holds 1,500 - 440 = 1,060. A third call is now 400 x 1.5 x 1.1 = 660
    tokens and goes at once, leaving 400; a fourth waits for 260 more tokens: 2.6 s."""

    async def run() -> tuple[float, float, float, float]:
        bound = AdaptiveBound(ceiling=8)
        loop = asyncio.get_running_loop()
        first, second = await bound.acquire(PARAMS), await bound.acquire(PARAMS)
        await bound.release(second)
        await bound.release(first, None, input_headers(1500), reply(600))
        level = bound.ledgers["input"].level_at(loop.time())
        needs, _ = bound.needs(PARAMS)
        start = loop.time()
        await bound.acquire(PARAMS)
        took = loop.time() - start
        return level, needs["input"], took, bound._wait_s(bound.needs(PARAMS)[0], loop.time())

    level, need, took, wait = run_on_fake_clock(run())
    assert level == pytest.approx(1060) and need == pytest.approx(660)
    assert took == 0.0 and wait == pytest.approx(2.6)


def test_a_call_waits_for_the_refill_it_needs() -> None:
    """100 tokens left of 6,000 a minute: a call of 440 (400 and the margin) waits (440 - 100) / 100 = 3.4 s."""

    async def run() -> float:
        bound = AdaptiveBound(ceiling=4)
        await bound.release(await bound.acquire(), None, input_headers(100))
        return bound._wait_s(bound.needs(PARAMS)[0], asyncio.get_running_loop().time())

    assert run_on_fake_clock(run()) == pytest.approx(3.4)


def test_each_family_takes_its_own_share() -> None:
    """Requests take one, output tokens `max_tokens` (300), a bucket never more than it holds when full; the
    combined tokens bucket (OpenAI's) takes prompt plus output, 440 + 300, in 0.74 s at 1,000 a second."""

    async def run() -> tuple[float, float, float]:
        bound = AdaptiveBound(ceiling=4)
        anthropic_family = {"anthropic-ratelimit-requests-limit": "60", "anthropic-ratelimit-requests-remaining": "0",
                            "anthropic-ratelimit-output-tokens-limit": "200",
                            "anthropic-ratelimit-output-tokens-remaining": "200"}
        await bound.release(await bound.acquire(), None, anthropic_family)
        now = asyncio.get_running_loop().time()
        anthropic_wait = bound._wait_s(bound.needs(PARAMS)[0], now)  # a request is a second away; output is full
        other = AdaptiveBound(ceiling=4)
        openai_family = {"x-ratelimit-limit-tokens": "60000", "x-ratelimit-remaining-tokens": "0",
                         "x-ratelimit-reset-tokens": "60s"}
        await other.release(await other.acquire(), None, openai_family)
        needs, _ = other.needs(PARAMS)
        return anthropic_wait, needs["tokens"], other._wait_s(needs, asyncio.get_running_loop().time())

    anthropic_wait, tokens, openai_wait = run_on_fake_clock(run())
    assert anthropic_wait == pytest.approx(1.0)
    assert tokens == pytest.approx(740) and openai_wait == pytest.approx(0.74)


def test_a_429_reply_sets_the_ledger_too() -> None:
    async def run() -> float:
        bound = AdaptiveBound(ceiling=4)
        refused = faults.status_error(429, "rate_limit_error", "limited",
                                      headers={"retry-after": "0", **input_headers(0)})

        async def call() -> None:
            raise refused

        with pytest.raises(anthropic.RateLimitError):
            await bound.run(call, params=PARAMS)
        return bound.ledgers["input"].level

    assert asyncio.run(run()) == 0.0


def test_a_remaining_that_may_have_been_rounded_up_counts_500_less() -> None:
    """The Messages API rounds remaining tokens to the nearest thousand: 3,000 may be 2,500. 3,217 was not
    rounded; nor is a count of requests; 0 can only have been rounded down."""
    from benchmarks.harness.adaptive import rounded_by

    assert rounded_by("input", 3000) == 500 and rounded_by("tokens", 1000) == 500
    assert rounded_by("input", 3217) == 0 and rounded_by("requests", 3000) == 0 and rounded_by("output", 0) == 0

    async def run() -> float:
        bound = AdaptiveBound(ceiling=4)
        await bound.release(await bound.acquire(), None, input_headers(3000))
        return bound.ledgers["input"].level

    assert asyncio.run(run()) == 2500
