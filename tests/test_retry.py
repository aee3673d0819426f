"""The retry policy: what is retried, how long it waits, and how it honours `retry-after`."""

from __future__ import annotations

import random
import time
from email.utils import formatdate
from types import SimpleNamespace

import pytest

from patterns.retry import NO_RETRY, RetryPolicy, retry_after_s

from .helpers import api_error, connection_error, timeout_error

POLICY = RetryPolicy()


@pytest.mark.parametrize("status", [408, 409, 429, 500, 503, 529])
def test_retryable_status_codes(status: int) -> None:
    assert POLICY.is_retryable(api_error(status))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413])
def test_non_retryable_status_codes(status: int) -> None:
    assert not POLICY.is_retryable(api_error(status))


def test_prompt_too_long_is_not_retried() -> None:
    assert not POLICY.is_retryable(api_error(400, "prompt is too long: 250000 tokens > 200000 maximum"))


def test_connection_error_is_retryable() -> None:
    assert POLICY.is_retryable(connection_error())


def test_api_timeout_error_is_retryable() -> None:
    assert POLICY.is_retryable(timeout_error())


@pytest.mark.parametrize("exc", [ValueError("x"), TimeoutError("builtin"), KeyError("k")])
def test_errors_outside_the_sdk_are_not_retryable(exc: BaseException) -> None:
    assert not POLICY.is_retryable(exc)


def test_sdk_classes_match_their_status_codes() -> None:
    for status in (408, 409, 413, 503):
        assert api_error(status).status_code == status


# ---------------------------------------------------------------- backoff with full jitter


@pytest.mark.parametrize("attempt", [0, 1, 2, 3, 5, 8, 12])
def test_full_jitter_stays_within_bounds(attempt: int) -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=10.0)
    rng = random.Random(1234 + attempt)
    ceiling = min(10.0, 0.5 * 2**attempt)
    exc = api_error(429)
    draws = [policy.delay_s(attempt, exc, rng) for _ in range(500)]
    assert all(0.0 <= d <= ceiling for d in draws)
    assert max(draws) > 0.8 * ceiling  # the whole range is used, not a fixed value
    assert min(draws) < 0.2 * ceiling


def test_backoff_is_capped_by_max_delay() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=2.0)
    rng, exc = random.Random(7), api_error(500)
    assert all(policy.delay_s(20, exc, rng) <= 2.0 for _ in range(200))


def test_backoff_grows_with_the_attempt() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=1000.0)
    exc = api_error(529)
    early = [policy.delay_s(0, exc, random.Random(s)) for s in range(200)]
    late = [policy.delay_s(6, exc, random.Random(s)) for s in range(200)]
    assert sum(late) / len(late) > 10 * sum(early) / len(early)


def test_backoff_is_deterministic_for_a_seeded_rng() -> None:
    def draws(seed: int) -> list[float]:
        rng, exc = random.Random(seed), api_error(429)
        return [POLICY.delay_s(a % 5, exc, rng) for a in range(50)]

    assert draws(42) == draws(42)
    assert draws(42) != draws(43)


def test_zero_base_delay_means_no_wait() -> None:
    policy = RetryPolicy(base_delay_s=0.0)
    assert policy.delay_s(3, api_error(503), random.Random(0)) == 0.0


# ---------------------------------------------------------------- retry-after


def test_retry_after_seconds() -> None:
    assert retry_after_s(api_error(429, headers={"retry-after": "7"})) == 7.0


def test_retry_after_fractional_seconds() -> None:
    assert retry_after_s(api_error(429, headers={"retry-after": "1.5"})) == 1.5


def test_retry_after_http_date(monkeypatch: pytest.MonkeyPatch) -> None:
    now = 1_800_000_000.25  # a fake clock: a loaded machine's delay between the two lines must not count
    monkeypatch.setattr("patterns.retry.time", SimpleNamespace(time=lambda: now))
    when = formatdate(now + 5, usegmt=True)  # whole seconds: 5.25 s on, cut to 5
    assert retry_after_s(api_error(429, headers={"retry-after": when})) == pytest.approx(4.75)


def test_retry_after_http_date_in_the_past_is_zero() -> None:
    when = formatdate(time.time() - 60, usegmt=True)
    assert retry_after_s(api_error(429, headers={"retry-after": when})) == 0.0


def test_retry_after_ms() -> None:
    assert retry_after_s(api_error(429, headers={"retry-after-ms": "250"})) == 0.25


def test_retry_after_ms_wins_over_retry_after() -> None:
    exc = api_error(429, headers={"retry-after-ms": "250", "retry-after": "9"})
    assert retry_after_s(exc) == 0.25


def test_garbage_retry_after_ms_falls_back_to_retry_after() -> None:
    exc = api_error(429, headers={"retry-after-ms": "soon", "retry-after": "2"})
    assert retry_after_s(exc) == 2.0


@pytest.mark.parametrize("value", ["soon", "", "in a bit, maybe"])
def test_garbage_retry_after_is_ignored(value: str) -> None:
    assert retry_after_s(api_error(429, headers={"retry-after": value})) is None


def test_negative_retry_after_is_zero() -> None:
    assert retry_after_s(api_error(429, headers={"retry-after": "-3"})) == 0.0


def test_no_header_means_no_retry_after() -> None:
    assert retry_after_s(api_error(429)) is None


def test_errors_without_a_response_have_no_retry_after() -> None:
    assert retry_after_s(ValueError("x")) is None
    assert retry_after_s(connection_error()) is None


def test_garbage_retry_after_falls_back_to_backoff() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=0.5)
    delay = policy.delay_s(0, api_error(429, headers={"retry-after": "soon"}), random.Random(0))
    assert 0.0 <= delay <= 0.5


def test_delay_honours_a_longer_retry_after() -> None:
    policy = RetryPolicy(base_delay_s=0.1, max_delay_s=1.0)
    delay = policy.delay_s(0, api_error(429, headers={"retry-after": "12"}), random.Random(0))
    assert delay == 12.0


def test_delay_keeps_the_backoff_when_retry_after_is_shorter() -> None:
    policy = RetryPolicy(base_delay_s=10.0, max_delay_s=10.0)
    exc = api_error(503, headers={"retry-after-ms": "1"})
    rng_a, rng_b = random.Random(5), random.Random(5)
    backoff = rng_b.uniform(0.0, 10.0)
    assert backoff > 0.001
    assert policy.delay_s(0, exc, rng_a) == backoff


def test_retry_after_is_capped_by_max_retry_after() -> None:
    policy = RetryPolicy(base_delay_s=0.0, max_retry_after_s=30.0)
    delay = policy.delay_s(0, api_error(429, headers={"retry-after": "3600"}), random.Random(0))
    assert delay == 30.0


# ---------------------------------------------------------------- settings


def test_no_retry_allows_no_retries() -> None:
    assert NO_RETRY.max_retries == 0


def test_default_policy_retries() -> None:
    assert POLICY.max_retries > 0


@pytest.mark.parametrize("field", ["max_retries", "base_delay_s", "max_delay_s", "max_retry_after_s"])
def test_negative_settings_are_rejected(field: str) -> None:
    with pytest.raises(ValueError, match=">= 0"):
        RetryPolicy(**{field: -1})


def test_zero_settings_are_allowed() -> None:
    policy = RetryPolicy(max_retries=0, base_delay_s=0, max_delay_s=0, max_retry_after_s=0)
    assert policy.delay_s(2, api_error(429, headers={"retry-after": "5"}), random.Random(0)) == 0.0
