"""The bound on calls in flight (benchmarks/harness/adaptive.py): AIMD and the headers' ledger against
hand-computed steps, and through the real SDK against a sim server that rate-limits."""

from __future__ import annotations

import asyncio
from typing import Any

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


def test_a_retry_after_pauses_every_new_call() -> None:
    async def run() -> float:
        bound = AdaptiveBound(ceiling=4)
        loop = asyncio.get_running_loop()
        await bound.release(await bound.acquire(), faults.rate_limited(0.2))
        began = loop.time()
        await bound.release(await bound.acquire())
        return loop.time() - began

    assert run_on_fake_clock(run()) == pytest.approx(0.2)  # the pause asked, on a fake clock: not a wall-time race


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


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
def test_a_sweep_at_an_account_s_limits_through_the_sdk_gets_no_429(sdk: str) -> None:
    """Two trials of two turns, the second turn's prompt three times the first's, go through `BoundedModel` and
    the real SDK (`anthropic`, or `openai` on the chat-completions path and its `x-ratelimit-*` headers) to a
    sim server whose account has 240 requests and 60,000 input tokens a minute (4 requests and 1,000 tokens a
    second) and has nearly used them up: the buckets hold the first turns and no more. A call sent before
    the buckets hold it is a 429. Paced by the headers, the second turns wait for the refill and none is a 429;
    the bound before the headers' ledger, which read neither the requests headers nor OpenAI's, sent the second
    turns at once into the empty requests bucket: one or two 429s in each of three runs.

    The server's buckets and the client's waits share one fake clock (`tests.fake_loop`): it stands still while a
    request is in flight and jumps to the next timer otherwise, so a loaded machine changes nothing and the
    waits are checked to the millisecond: the second turns go once the buckets hold them, not before, not later."""
    from benchmarks.harness.local import BoundedModel
    from patterns.model import AnthropicModel
    from patterns.openai_model import OpenAIModel
    from patterns.retry import retry_after_s
    from patterns.sim import chat_wire
    from patterns.sim.server import SimServer

    from .fake_loop import FakeClockLoop

    def counted(server: SimServer, body: dict[str, Any]) -> int:
        """The server's count of a prompt as this wire delivers it (OpenAI's chat form counts 76 where the Messages
        API's counts 69: seeded with the latter, the openai run's first turns did not fit, and only the real time
        between the server's start and the first call refilled the difference)."""
        return server._prompt_tokens(chat_wire.request(chat_wire.PATH, body) if sdk == "openai" else body) or 0

    def params(turn: int) -> dict[str, Any]:  # a conversation's prompt grows turn by turn
        return {"max_tokens": 16, "messages": [{"role": "user", "content": "Say hello. " * 20 * (3 if turn else 1)}]}

    sent: list[float] = []  # the fake time each call went (and came back)

    async def sweep(url: str, model: BoundedModel) -> int:
        async def trial() -> int:
            tried = 0
            for turn in (0, 1):
                while True:
                    tried += 1
                    try:
                        await model.create(**params(turn))
                        sent.append(asyncio.get_running_loop().time())  # the reply: calls take no fake time
                        break
                    except anthropic.RateLimitError as exc:
                        await asyncio.sleep(retry_after_s(exc) or 0.0)
            return tried

        try:
            return sum(await asyncio.gather(*(trial() for _ in range(2))))
        finally:
            await model.inner.aclose()

    with SimServer(rate_limit_rpm=240, rate_limit_itpm=60_000) as server:
        inner = AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key="sk-ant-test") \
            if sdk == "anthropic" else OpenAIModel("sim-model", base_url=f"{server.url}/v1", api_key="sk-test")
        model = BoundedModel(inner, 8)
        loop = FakeClockLoop(busy=lambda: model.bound.in_flight > 0)
        server.account.clock = loop.time
        first, second = (counted(server, {"model": "m", **params(turn)}) for turn in (0, 1))
        for bucket, level in zip(server.account.buckets.values(), (2.0, 2.0 * first), strict=True):
            bucket.level, bucket.at = level, 0.0
        with asyncio.Runner(loop_factory=lambda: loop) as runner:
            tried = runner.run(sweep(server.url, model))
        limited, admitted = server.account.limited, server.account.admitted
    assert admitted == 4 and tried == 4 + limited
    assert limited == 0, f"{limited} of {tried} calls answered 429"
    refill = max(2 / 4.0, 2 * second / 1000.0)  # both second turns: two requests at 4/s, their prompts at 1,000/s
    assert sent[:2] == [0.0, 0.0] and max(sent) >= refill * 0.9  # they waited for (nearly all of) the refill...
    assert max(sent) <= refill * 1.25 + 0.1  # ...and not much longer than the margins on the estimate ask


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
