"""The retry policy: the one place that decides whether and when a failed model call is repeated.

Retried: 408, 409, 429, every 5xx (529 "overloaded" included), connection errors or timeouts, and
`APIResponseValidationError` — a reply whose body is not a message (cut-off or non-JSON, e.g. a
proxy's error page sent with status 200; `AnthropicModel` raises it where the SDK would raise a
`json.JSONDecodeError` or return a `str`). That is nearly always a transient fault of something
between the client and the API, so it is retried like a connection error, within `max_retries`.
Never retried: 400, 401, 403, 404, 413 and other 4xx — repeating them cannot succeed.
The wait is exponential backoff with full jitter (AWS's "full jitter": uniform in
[0, min(cap, base * 2**attempt)]), and a server's `retry-after` (seconds, HTTP date, or
`retry-after-ms`) is honoured when it asks for longer, up to `max_retry_after_s`.
`max_total_s` bounds a call's retries as a whole, counted from its first attempt's start: a retry whose
wait would end past it is not made, and the last error is raised (default 600 s; None: no bound). With a
per-attempt deadline (`patterns.deadline`, `--request-timeout`) a call can then never hold a trial for
longer than `max_total_s` plus one attempt.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import anthropic

_RETRYABLE_4XX = frozenset({408, 409, 429})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 60.0
    max_total_s: float | None = 600.0

    def __post_init__(self) -> None:
        if min(self.max_retries, self.base_delay_s, self.max_delay_s, self.max_retry_after_s) < 0:
            raise ValueError("RetryPolicy values must be >= 0")
        if self.max_total_s is not None and not self.max_total_s >= 0:
            raise ValueError("RetryPolicy.max_total_s must be >= 0 or None")

    def in_time(self, spent_s: float, wait_s: float) -> bool:
        """Whether a retry after waiting `wait_s`, `spent_s` after the call's first attempt began, is allowed."""
        return self.max_total_s is None or spent_s + wait_s <= self.max_total_s

    def is_retryable(self, exc: BaseException) -> bool:
        if isinstance(exc, anthropic.APIConnectionError | anthropic.APIResponseValidationError):  # incl. timeouts
            return True
        if isinstance(exc, anthropic.APIStatusError):
            return exc.status_code in _RETRYABLE_4XX or exc.status_code >= 500
        return False

    def delay_s(self, attempt: int, exc: BaseException, rng: random.Random) -> float:
        """Seconds to wait before retry number `attempt + 1` (attempt counts from 0)."""
        backoff = rng.uniform(0.0, min(self.max_delay_s, self.base_delay_s * (2**attempt)))
        asked = retry_after_s(exc)
        if asked is not None:
            return max(backoff, min(asked, self.max_retry_after_s))
        return backoff


NO_RETRY = RetryPolicy(max_retries=0)


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a server asked for in `retry-after-ms` or `retry-after`, in seconds."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
