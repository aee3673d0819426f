"""The sim server held to the real APIs (issue 44), through the real `anthropic` and `openai` SDKs on 127.0.0.1:
cache reads free of the input-token limit, every rate-limit family, a `request-id` on every reply and in every
error body, and the OpenAI wire's own errors, limits and Go durations. The batches' list and delete are in
test_simserver_batches_list.py."""

from __future__ import annotations

import re
from typing import Any

import anthropic
import pytest

from patterns.model import STREAM_HEADER
from patterns.rate_headers import duration_s
from patterns.sim.ratelimit import UNLIMITED, go_duration
from patterns.sim.server import SimServer

openai = pytest.importorskip("openai")
pytestmark = pytest.mark.timeout(60)
SYSTEM = [{"type": "text", "text": "word " * 4500, "cache_control": {"type": "ephemeral"}}]  # ~5.6k tokens, cached
GO = re.compile(r"(\d+h)?(\d+m)?(\d+(\.\d+)?s|\d+ms)")


def claude(server: SimServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="sk-ant-dummy", max_retries=0)


def chat(server: SimServer) -> Any:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="sk-openai-dummy", max_retries=0)


def ask(api: anthropic.Anthropic, text: str = "hi", **extra: Any) -> Any:
    """One call with the cached system prompt on stream t1; the raw response (headers and parsed Message)."""
    return api.messages.with_raw_response.create(
        model="claude-sonnet-4-5", max_tokens=20, system=SYSTEM,  # type: ignore[arg-type]
        messages=[{"role": "user", "content": text}], extra_headers={STREAM_HEADER: "t1"}, **extra)


def test_cache_reads_do_not_count_toward_the_input_token_limit() -> None:
    """12,000 input tokens a minute and a ~5.6k-token cached system prompt: the first call writes the cache, every
    later one reads it and takes only its few uncached tokens, so 6 calls in a row all pass (counting the reads,
    the third would have been refused). A call is admitted on its uncached part: with 1,000 tokens left, fewer than
    the whole prompt, it still passes."""
    with SimServer(rate_limit_itpm=12_000) as server:
        api = claude(server)
        first = ask(api)
        written = first.parse().usage.cache_creation_input_tokens
        assert written > 5000 and first.parse().usage.cache_read_input_tokens == 0
        replies = [ask(api) for _ in range(5)]
        assert all(r.parse().usage.cache_read_input_tokens == written for r in replies)
        uncached = sum(r.parse().usage.input_tokens for r in (first, *replies))
        remaining = int(replies[-1].headers["anthropic-ratelimit-input-tokens-remaining"])
        assert remaining >= 12_000 - written - uncached  # refills only add to it
        assert server.account.limited == 0 and server.account.input_taken == written + uncached
        server.account.buckets["input"].level = 1000.0
        assert ask(api, "hi").parse().usage.cache_read_input_tokens == written  # admitted on its ~15 uncached tokens
        assert server.account.limited == 0


def test_every_rate_limit_family_is_sent_once_any_limit_is_set() -> None:
    """Only a requests limit: the input, output and combined token families come too, as the API always sends them,
    each a bucket of 10^9 a minute that no request empties; the OpenAI wire sends both of its families."""
    with SimServer(rate_limit_rpm=50) as server:
        headers = claude(server).messages.with_raw_response.create(
            model="claude-sonnet-4-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}]).headers
        for family in ("requests", "input-tokens", "output-tokens", "tokens"):
            for part in ("limit", "remaining", "reset"):
                assert f"anthropic-ratelimit-{family}-{part}" in headers
        assert headers["anthropic-ratelimit-requests-limit"] == "50"
        assert headers["anthropic-ratelimit-requests-remaining"] == "49"
        assert headers["anthropic-ratelimit-output-tokens-limit"] == str(UNLIMITED)
        raw = chat(server).chat.completions.with_raw_response.create(
            model="gpt-4.1-mini", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
        assert raw.headers["x-ratelimit-limit-requests"] == "50" and raw.headers["x-ratelimit-limit-tokens"] == str(
            UNLIMITED)
        assert GO.fullmatch(raw.headers["x-ratelimit-reset-requests"])
    with SimServer() as unlimited:  # no limit at all: not a rate-limited account, no headers
        plain = claude(unlimited).messages.with_raw_response.create(
            model="claude-sonnet-4-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}]).headers
        assert not [h for h in plain if h.startswith("anthropic-ratelimit")]


def test_a_request_id_on_every_reply_and_in_every_error_body() -> None:
    with SimServer(rate_limit_rpm=2) as server:
        api = claude(server)
        ok = api.messages.with_raw_response.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "a"}])
        assert ok.headers["request-id"].startswith("req_")
        with pytest.raises(anthropic.BadRequestError) as bad:
            api.messages.create(model="m", max_tokens=0, messages=[{"role": "user", "content": "d"}])
        with pytest.raises(anthropic.RateLimitError) as limited:
            api.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "b"}])
        with pytest.raises(openai.RateLimitError) as chat_limited:
            chat(server).chat.completions.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "c"}])
    for exc in (limited.value, bad.value):
        assert exc.request_id and exc.request_id.startswith("req_")
        assert exc.body["request_id"] == exc.request_id  # type: ignore[index]
        assert set(exc.body) == {"type", "error", "request_id"}  # type: ignore[arg-type]
    assert chat_limited.value.request_id and chat_limited.value.request_id.startswith("req_")  # x-request-id
    assert chat_limited.value.response.headers["request-id"] == chat_limited.value.request_id


def test_the_openai_wire_limits_prompt_plus_max_tokens_and_refuses_in_openai_s_words() -> None:
    """1,000 tokens a minute: a call asking 900 output tokens takes its prompt + 900 on the OpenAI wire (kept,
    whatever it wrote), so a second such call is refused at once with OpenAI's 429; on the Messages wire the same
    limit counts input tokens only, and the second call passes."""
    messages = [{"role": "user", "content": "hello"}]
    with SimServer(rate_limit_itpm=1000) as server:
        api = chat(server)
        first = api.chat.completions.with_raw_response.create(model="gpt-4.1-mini", max_tokens=900, messages=messages)
        prompt = first.parse().usage.prompt_tokens
        assert int(first.headers["x-ratelimit-remaining-tokens"]) == 1000 - prompt - 900
        assert GO.fullmatch(first.headers["x-ratelimit-reset-tokens"])
        assert duration_s(first.headers["x-ratelimit-reset-tokens"]) == pytest.approx((prompt + 900) * 0.06, abs=0.05)
        with pytest.raises(openai.RateLimitError) as refused:
            api.chat.completions.create(model="gpt-4.1-mini", max_tokens=900, messages=messages)
    error = refused.value.body
    assert error["type"] == "tokens" and error["code"] == "rate_limit_exceeded" and error["param"] is None
    assert error["message"].startswith("Rate limit reached for gpt-4.1-mini in organization org-sim on tokens per "
                                       "min (TPM): Limit 1000, Used ")
    assert "platform.openai.com" in error["message"] and "claude" not in error["message"]
    assert refused.value.response.headers["retry-after"].isdigit()
    with SimServer(rate_limit_itpm=1000) as messages_wire:
        for _ in range(2):
            claude(messages_wire).messages.create(model="m", max_tokens=900, messages=messages)  # type: ignore[arg-type]
        assert messages_wire.account.limited == 0


def test_the_openai_wire_s_faults_are_openai_s() -> None:
    """A simulated 429, 529 and 500 come as OpenAI's: no Messages API type, sentence or docs link, and a 503 where
    the Messages API would say 529."""
    seen = {}
    for knob in ("rate_limit_rate", "overloaded_rate", "server_error_rate"):
        with SimServer(retry_after_s=2, **{knob: 1.0}) as server:
            with pytest.raises(openai.APIStatusError) as info:
                chat(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        seen[knob] = (info.value.status_code, info.value.body["type"], info.value.body["code"])
        assert "claude" not in info.value.body["message"] and "_error" not in info.value.body["message"]
    assert seen == {"rate_limit_rate": (429, "requests", "rate_limit_exceeded"),
                    "overloaded_rate": (503, "service_unavailable_error", "server_is_overloaded"),
                    "server_error_rate": (500, "server_error", None)}


@pytest.mark.parametrize(("seconds", "text"), [
    (0.641, "641ms"), (19.9, "19.9s"), (60.0, "1m0s"), (360.0, "6m0s"), (1.0, "1s"), (3e-05, "1ms"), (0.0, "0s"),
    (3723.5, "1h2m3.5s"), (0.0125, "13ms")])
def test_go_durations_as_openai_writes_them(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text and GO.fullmatch(text)
    assert duration_s(text) == pytest.approx(seconds, abs=0.001)  # the client's reader reads them back
