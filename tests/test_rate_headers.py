"""Reading the rate-limit headers of both families (patterns/rate_headers.py), against hand-computed cases."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from patterns.rate_headers import Bucket, duration_s, read

NOW = datetime(2026, 12, 5, 9, 0, 0, tzinfo=UTC)


def test_the_anthropic_family_with_rfc_3339_resets() -> None:
    headers = {
        "anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-requests-reset": "2026-12-05T09:00:01Z",
        "anthropic-ratelimit-input-tokens-limit": "30000", "anthropic-ratelimit-input-tokens-remaining": "12000",
        "anthropic-ratelimit-input-tokens-reset": "2026-12-05T09:00:36Z",
        "anthropic-ratelimit-output-tokens-limit": "8000", "anthropic-ratelimit-output-tokens-remaining": "8000",
        "anthropic-ratelimit-output-tokens-reset": "2026-12-05T09:00:00+00:00",
        "Anthropic-RateLimit-Tokens-Limit": "30000", "anthropic-ratelimit-tokens-remaining": "12000",
        "anthropic-ratelimit-tokens-reset": "2026-12-05T09:00:36Z",
    }
    got = read(headers, NOW)
    assert got["requests"] == Bucket(50, 49, 1.0)
    assert got["input"] == Bucket(30000, 12000, 36.0)
    assert got["output"] == Bucket(8000, 8000, 0.0)
    assert got["tokens"] == Bucket(30000, 12000, 36.0)  # header names are case-insensitive
    # 18,000 tokens short, full in 36 s: 500 a second, the same as 30,000 a minute
    assert got["input"].refill_per_s() == pytest.approx(500.0)
    assert got["output"].refill_per_s() == pytest.approx(8000 / 60)


def test_the_openai_family_with_duration_resets() -> None:
    headers = {"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59",
               "x-ratelimit-reset-requests": "1s", "x-ratelimit-limit-tokens": "150000",
               "x-ratelimit-remaining-tokens": "149984", "x-ratelimit-reset-tokens": "6m0s"}
    got = read(headers, NOW)
    assert got == {"requests": Bucket(60, 59, 1.0), "tokens": Bucket(150000, 149984, 360.0)}
    # 16 tokens short, full in 6 min: a window longer than a minute refills slower than limit / 60
    assert got["tokens"].refill_per_s() == pytest.approx(16 / 360)


def test_go_durations() -> None:
    assert duration_s("1.5s") == 1.5
    assert duration_s("6m0s") == 360.0
    assert duration_s("20ms") == pytest.approx(0.02)
    assert duration_s("1h2m3.5s") == pytest.approx(3723.5)
    assert duration_s("0.25") == 0.25  # a bare number is seconds
    assert duration_s("soon") is None and duration_s("5x") is None and duration_s("1s junk") is None


def test_missing_or_unreadable_headers_are_left_out() -> None:
    assert read(None, NOW) == {} and read({"content-type": "application/json"}, NOW) == {}
    half = {"anthropic-ratelimit-input-tokens-limit": "1000"}  # no remaining
    assert read(half, NOW) == {}
    junk = {"anthropic-ratelimit-requests-limit": "many", "anthropic-ratelimit-requests-remaining": "3",
            "x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "4",
            "x-ratelimit-reset-requests": "later"}
    assert read(junk, NOW) == {"requests": Bucket(10, 4, None)}  # the unread reset is None, the rest is read
    naive = {"anthropic-ratelimit-requests-limit": "10", "anthropic-ratelimit-requests-remaining": "4",
             "anthropic-ratelimit-requests-reset": "2026-12-05T09:00:30"}  # no offset: not RFC 3339
    assert read(naive, NOW)["requests"].reset_s is None
    assert read(naive, NOW)["requests"].refill_per_s() == pytest.approx(10 / 60)


def test_a_reset_in_the_past_or_a_full_bucket_refills_at_the_limit_per_minute() -> None:
    past = {"anthropic-ratelimit-input-tokens-limit": "6000", "anthropic-ratelimit-input-tokens-remaining": "0",
            "anthropic-ratelimit-input-tokens-reset": "2026-12-05T08:59:00Z"}
    assert read(past, NOW)["input"] == Bucket(6000, 0, 0.0)
    assert read(past, NOW)["input"].refill_per_s() == pytest.approx(100.0)
    # a reset closer than the limit allows (rounded down to the second) never makes the refill faster
    soon = {**past, "anthropic-ratelimit-input-tokens-reset": "2026-12-05T09:00:30Z"}
    assert read(soon, NOW)["input"].refill_per_s() == pytest.approx(100.0)


def test_the_sim_account_s_headers_read_back_and_its_counts() -> None:
    """An account of 6,000 input tokens a minute (100 a second) on a clock the test moves: a 4,000-token prompt
    leaves 2,000, full again in 40 s; both header families say so. A second one of 4,000 is refused (it would
    wait 20 s); the first is settled at 3,500, as its reply counted it."""
    from patterns.sim.ratelimit import Account

    now = [0.0]
    account = Account(itpm=6000, clock=lambda: now[0])
    refused, taken = account.admit({"max_tokens": 10}, prompt_tokens=4000)
    assert refused is None
    wall = datetime.now(UTC)
    got = read(account.headers(), wall)["input"]
    assert (got.limit, got.remaining) == (6000, 2000) and 39 <= (got.reset_s or 0) <= 40  # RFC 3339: whole seconds
    assert read(account.headers(openai=True), wall)["tokens"] == Bucket(6000, 2000, 40.0)
    again, _ = account.admit({"max_tokens": 10}, prompt_tokens=4000)
    assert again is not None and again.status_code == 429 and again.response.headers["retry-after"] == "20"
    account.settle(taken, 3500, 5)
    assert (account.admitted, account.limited, account.input_taken) == (1, 1, 3500)
