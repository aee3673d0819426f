"""The rate-limit headers of a reply, read into one shape whichever provider sent them.

Two families are read (`retry-after` on a 429 or 529 is read by `patterns.retry.retry_after_s`):

- the Messages API's `anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-{limit,remaining,reset}`,
  the reset an RFC 3339 time at which the bucket is full again (`-tokens-` is the most restrictive of the
  token limits in effect);
- the OpenAI-compatible `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the reset a duration until
  the bucket is full again, in Go's notation (`1s`, `1.5s`, `6m0s`, `20ms`, `1h2m3s`).

Each becomes a `Bucket` named `requests`, `input`, `output` or `tokens`. A family whose limit or remaining is
missing or not a number is left out (a provider that sends none gives `{}`); a reset that cannot be read is
None. Both providers describe their limits as per minute, refilled continuously (a token bucket), so
`Bucket.refill_per_s` is the limit over 60 s, or slower when the reset says the bucket fills more slowly
than that (a longer window): it never guesses faster than the headers allow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

ANTHROPIC = {"requests": "requests", "input-tokens": "input", "output-tokens": "output", "tokens": "tokens"}
OPENAI = {"requests": "requests", "tokens": "tokens"}
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|us|µs|ns|h|m|s)")


@dataclass(frozen=True, slots=True)
class Bucket:
    limit: float  # per minute
    remaining: float
    reset_s: float | None  # seconds from the reply until the bucket is full again

    def refill_per_s(self) -> float:
        per_minute = self.limit / 60.0
        if self.reset_s and self.reset_s > 0 and self.remaining < self.limit:
            return min(per_minute, (self.limit - self.remaining) / self.reset_s)
        return per_minute


def read(headers: Mapping[str, str] | None, now: datetime) -> dict[str, Bucket]:
    """The buckets a reply's headers report (keys `requests`, `input`, `output`, `tokens`); `now`, aware, is
    when the reply arrived (an RFC 3339 reset is counted from it)."""
    if not headers:
        return {}
    low = {k.lower(): v for k, v in headers.items()}
    out: dict[str, Bucket] = {}
    for family, kind in ANTHROPIC.items():
        prefix = f"anthropic-ratelimit-{family}"
        found = _bucket(low.get(f"{prefix}-limit"), low.get(f"{prefix}-remaining"),
                        _until(low.get(f"{prefix}-reset"), now))
        if found:
            out[kind] = found
    for family, kind in OPENAI.items():
        found = _bucket(low.get(f"x-ratelimit-limit-{family}"), low.get(f"x-ratelimit-remaining-{family}"),
                        duration_s(low.get(f"x-ratelimit-reset-{family}")))
        if found and kind not in out:
            out[kind] = found
    return out


def duration_s(text: str | None) -> float | None:
    """Seconds in a Go duration (`6m0s` = 360, `1.5s`, `20ms` = 0.02); a bare number is seconds; None if unread."""
    if text is None:
        return None
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def _until(text: str | None, now: datetime) -> float | None:
    """Seconds from `now` to an RFC 3339 time (0 if it has passed); None if unread."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())


def _bucket(limit: str | None, remaining: str | None, reset_s: float | None) -> Bucket | None:
    try:
        size, left = float(limit or ""), float(remaining or "")
    except ValueError:
        return None
    if not (size > 0 and left >= 0):
        return None
    return Bucket(size, min(left, size), reset_s)
