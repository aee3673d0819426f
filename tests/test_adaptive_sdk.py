"""The bound on calls in flight through the real SDKs against a rate-limited sim server, on a fake clock: the
server's buckets and the client's waits share it, so a loaded machine changes nothing (tests/fake_loop.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest

from benchmarks.harness.local import BoundedModel
from patterns.model import AnthropicModel
from patterns.retry import retry_after_s
from patterns.sim import chat_wire
from patterns.sim.server import SimServer

from .fake_loop import FakeClockLoop


def params(turn: int) -> dict[str, Any]:  # a conversation's prompt grows turn by turn
    return {"max_tokens": 16, "messages": [{"role": "user", "content": "Say hello. " * 20 * (3 if turn else 1)}]}


def charged(server: SimServer, sdk: str, turn: int) -> int:
    """What the account takes from its input bucket for a turn's call as this wire delivers it. OpenAI's chat form
    counts 76 prompt tokens where the Messages API's counts 69: seeded with the latter, the openai run's first turns
    did not fit, and only the real time between the server's start and the first call refilled the difference (a
    wall-time race this fake clock exposed). OpenAI's tokens limit also takes the call's `max_tokens`."""
    body = {"model": "m", **params(turn)}
    if sdk == "openai":
        return (server._prompt_tokens(chat_wire.request(chat_wire.PATH, body)) or 0) + body["max_tokens"]
    return server._prompt_tokens(body) or 0


async def sweep(model: BoundedModel, replied: list[float]) -> int:
    """Two trials of two turns; each call retried after a 429 until it goes; returns the calls tried."""
    async def trial() -> int:
        tried = 0
        for turn in (0, 1):
            while True:
                tried += 1
                try:
                    await model.create(**params(turn))
                    replied.append(asyncio.get_running_loop().time())  # calls take no fake time: when it went
                    break
                except anthropic.RateLimitError as exc:
                    await asyncio.sleep(retry_after_s(exc) or 0.0)
        return tried

    try:
        return sum(await asyncio.gather(*(trial() for _ in range(2))))
    finally:
        await model.inner.aclose()


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
def test_a_sweep_at_an_account_s_limits_through_the_sdk_gets_no_429(sdk: str) -> None:
    """Through `BoundedModel` and the real SDK (`anthropic`, or `openai` on the chat-completions path and its
    `x-ratelimit-*` headers) to a sim server whose account has 240 requests and 60,000 input tokens a minute (4
    requests and 1,000 tokens a second) and has nearly used them up: the buckets hold the first turns and no more.
    Paced by the headers, the second turns wait for the refill and none is a 429; the bound before the headers'
    ledger sent them at once into the empty requests bucket (without the ledger: 2 of 6 calls answered 429)."""
    from patterns.openai_model import OpenAIModel

    replied: list[float] = []
    with SimServer(rate_limit_rpm=240, rate_limit_itpm=60_000) as server:
        inner = AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key="sk-ant-test") \
            if sdk == "anthropic" else OpenAIModel("sim-model", base_url=f"{server.url}/v1", api_key="sk-test")
        model = BoundedModel(inner, 8)
        loop = FakeClockLoop(busy=lambda: model.bound.in_flight > 0)  # still while a request is at the server
        server.account.clock = loop.time
        first, second = charged(server, sdk, 0), charged(server, sdk, 1)
        for name, level in (("requests", 2.0), ("input", 2.0 * first)):  # the output bucket is unlimited here
            server.account.buckets[name].level, server.account.buckets[name].at = level, 0.0
        with asyncio.Runner(loop_factory=lambda: loop) as runner:
            tried = runner.run(sweep(model, replied))
        limited, admitted = server.account.limited, server.account.admitted
    assert admitted == 4 and tried == 4 + limited
    assert limited == 0, f"{limited} of {tried} calls answered 429"
    refill = max(2 / 4.0, 2 * second / 1000.0)  # both second turns: two requests at 4/s, their prompts at 1,000/s
    assert replied[:2] == [0.0, 0.0] and max(replied) >= refill * 0.9  # they waited for (nearly all of) the refill
    assert max(replied) <= refill * 1.25 + 0.1  # and not much longer than the estimate's margins ask
