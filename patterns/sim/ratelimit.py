"""A rate-limited account for the sim server: requests, input tokens and output tokens per minute.

The Messages API measures an organisation's use with the token bucket algorithm: each limit is a bucket of
its per-minute size, refilled continuously at that rate (not reset on the minute). This account does the
same with the server options `rate_limit_rpm`, `rate_limit_itpm` and `rate_limit_otpm` (0: no limit):

- a request is admitted when the requests bucket holds one request, the input bucket its prompt tokens
  (the simulator's count of the request, then corrected to the reply's, cache reads and writes included)
  and the output bucket its `max_tokens` (the API estimates output from `max_tokens` at the start and
  adjusts it at the end: the unused part is given back);
- otherwise it is answered 429 `rate_limit_error` with `retry-after` (whole seconds until the emptiest
  bucket holds enough) and the API's words, naming the limit;
- every reply, 429s included, carries the API's headers: `anthropic-ratelimit-{requests,input-tokens,
  output-tokens,tokens}-{limit,remaining,reset}`, the resets in RFC 3339 (when the bucket is full again);
  `-tokens-` is the most restrictive of the input and output buckets. On the OpenAI-compatible path the
  `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` family, resets as durations (`1.5s`).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import anthropic

from ..usage import estimate_usage
from . import faults

NAMES = {"requests": "requests", "input": "input tokens", "output": "output tokens"}


@dataclass
class Bucket:
    limit: float  # per minute
    level: float
    at: float

    def refill(self, now: float) -> None:
        self.level = min(self.limit, self.level + (now - self.at) * self.limit / 60.0)
        self.at = now

    def wait_s(self, amount: float) -> float:
        """Seconds until the bucket holds `amount` (at most its size)."""
        return max(0.0, (min(amount, self.limit) - self.level) * 60.0 / self.limit)

    def full_in_s(self) -> float:
        return (self.limit - self.level) * 60.0 / self.limit


class Account:
    """The buckets of one rate-limited account (thread-safe: the server answers on many threads)."""

    def __init__(self, rpm: float = 0, itpm: float = 0, otpm: float = 0, clock: Any = time.monotonic) -> None:
        if min(rpm, itpm, otpm) < 0:
            raise ValueError("rate_limit_rpm, rate_limit_itpm and rate_limit_otpm must be >= 0 (0: no limit)")
        now = clock()
        self.clock = clock
        self.buckets = {name: Bucket(limit, limit, now) for name, limit in
                        (("requests", rpm), ("input", itpm), ("output", otpm)) if limit > 0}
        self.lock = threading.Lock()
        self.limited = 0  # requests answered 429
        self.admitted, self.input_taken = 0, 0.0  # requests let through and the input tokens they took (settled)

    @property
    def active(self) -> bool:
        return bool(self.buckets)

    def admit(self, params: dict[str, Any],
              prompt_tokens: int | None = None) -> tuple[anthropic.APIStatusError | None, dict[str, float]]:
        """(None, the amounts taken) if the request may go on, else (the 429 to answer, {}). `prompt_tokens`: the
        server's own count of the prompt, else an estimate of ~4 characters a token."""
        prompt = prompt_tokens if prompt_tokens is not None else estimate_usage(params, None).input_tokens
        wanted = {"requests": 1.0, "input": float(prompt),
                  "output": float(params.get("max_tokens") or 0)}
        with self.lock:
            now = self.clock()
            for bucket in self.buckets.values():
                bucket.refill(now)
            short = {name: b.wait_s(wanted[name]) for name, b in self.buckets.items() if b.level < wanted[name]}
            if short:
                self.limited += 1
                name = max(short, key=lambda n: short[n])
                limit = self.buckets[name].limit
                return faults.status_error(
                    429, "rate_limit_error", f"This request would exceed the rate limit for your organization of "
                    f"{limit:,.0f} {NAMES[name]} per minute. For details, refer to: "
                    "https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage.",
                    headers={"retry-after": str(max(1, math.ceil(short[name])))}), {}
            for name, bucket in self.buckets.items():
                bucket.level -= wanted[name]
            self.admitted += 1
            self.input_taken += wanted["input"]
            return None, wanted

    def settle(self, taken: dict[str, float], input_tokens: int, output_tokens: int) -> None:
        """Correct the estimates taken at admission to the reply's own counts."""
        with self.lock:
            self.input_taken += input_tokens - taken.get("input", input_tokens)
            for name, used in (("input", input_tokens), ("output", output_tokens)):
                if name in self.buckets and name in taken:
                    self.buckets[name].level += taken[name] - used

    def headers(self, openai: bool = False) -> dict[str, str]:
        """The rate-limit headers of a reply sent now."""
        with self.lock:
            now = self.clock()
            for bucket in self.buckets.values():
                bucket.refill(now)
            shown = dict(self.buckets)
        if openai:
            return _openai_headers(shown)
        out: dict[str, str] = {}
        wall = datetime.now(UTC)
        kinds = {"requests": "requests", "input": "input-tokens", "output": "output-tokens"}
        for name, bucket in shown.items():
            out.update(_triple(f"anthropic-ratelimit-{kinds[name]}", bucket, wall))
        tokens = [shown[n] for n in ("input", "output") if n in shown]
        if tokens:
            tightest = min(tokens, key=lambda b: b.level / b.limit)
            out.update(_triple("anthropic-ratelimit-tokens", tightest, wall))
        return out


def _triple(prefix: str, bucket: Bucket, wall: datetime) -> dict[str, str]:
    reset = (wall + timedelta(seconds=bucket.full_in_s())).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {f"{prefix}-limit": f"{bucket.limit:.0f}", f"{prefix}-remaining": str(max(0, math.floor(bucket.level))),
            f"{prefix}-reset": reset}


def _openai_headers(shown: dict[str, Bucket]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, key in (("requests", "requests"), ("input", "tokens")):
        if name in shown:
            bucket = shown[name]
            out[f"x-ratelimit-limit-{key}"] = f"{bucket.limit:.0f}"
            out[f"x-ratelimit-remaining-{key}"] = str(max(0, math.floor(bucket.level)))
            out[f"x-ratelimit-reset-{key}"] = f"{bucket.full_in_s():.3g}s"
    return out
