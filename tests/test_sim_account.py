"""The sim server's rate-limited account (`patterns.sim.ratelimit`) where a fake clock or the OpenAI wire meets its
output bucket: the two faults behind test_adaptive_sdk.py's 429s and 500 after every header family came in."""

from __future__ import annotations

import anthropic
import pytest

from patterns.sim.ratelimit import UNLIMITED, Account, Bucket
from patterns.sim.server import SimServer

openai = pytest.importorskip("openai")
pytestmark = pytest.mark.timeout(60)
HI = [{"role": "user", "content": "hi"}]


def test_a_refill_on_a_clock_that_reads_earlier_takes_nothing_away() -> None:
    """A bucket stamped at 100 s on one clock, refilled at 0 s on another: it keeps its level (it used to lose the
    gap's worth, 100 s x 1,000 a second), then refills from the new clock's reading."""
    bucket = Bucket(limit=60_000, level=500.0, at=100.0)
    bucket.refill(0.0)
    assert (bucket.level, bucket.at) == (500.0, 0.0)
    bucket.refill(0.25)
    assert bucket.level == 750.0


def test_an_account_moved_to_a_fake_clock_admits_what_its_buckets_hold() -> None:
    """Only requests are limited; the unlimited token buckets, made on the real clock, stay full when a test moves
    the account to a clock starting at 0 (they used to be drained by 10^9 a minute times the real clock's reading,
    so every call was refused with a retry-after of hours)."""
    account = Account(rpm=60, clock=lambda: 1e4)
    account.clock = lambda: 0.0
    refused, taken = account.admit({"max_tokens": 16, "messages": HI}, 10)
    assert refused is None and taken == {"requests": 1.0, "input": 10.0, "output": 16.0}
    assert account.buckets["output"].level == UNLIMITED - 16


def test_the_output_bucket_never_refuses_a_chat_call() -> None:
    """OpenAI's limits are requests and tokens: with the output bucket short, a Messages call is refused naming
    output tokens, while a chat-completions call passes (it used to be refused in OpenAI's words for a limit OpenAI
    has not, which failed on the server and answered 500)."""
    with SimServer(rate_limit_otpm=1000) as server:
        server.account.clock = lambda: 0.0  # time stands still: nothing refills
        for bucket in server.account.buckets.values():
            bucket.at = 0.0
        server.account.buckets["output"].level = -1.0  # short of any call's max_tokens
        claude = anthropic.Anthropic(base_url=server.url, api_key="sk-ant-dummy", max_retries=0)
        with pytest.raises(anthropic.RateLimitError) as refused:
            claude.messages.create(model="m", max_tokens=16, messages=HI)  # type: ignore[arg-type]
        assert "output tokens per minute" in refused.value.message
        chat = openai.OpenAI(base_url=f"{server.url}/v1", api_key="sk-openai-dummy", max_retries=0)
        reply = chat.chat.completions.create(model="gpt-4.1-mini", max_tokens=16, messages=HI)  # type: ignore[arg-type]
        assert reply.choices[0].message.content is not None
        assert server.account.limited == 1 and server.account.admitted == 1
