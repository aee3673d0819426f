"""A rate-limited account for the sim server: requests, input tokens and output tokens per minute.

The Messages API measures an organisation's use with the token bucket algorithm: each limit is a bucket of
its per-minute size, refilled continuously at that rate (not reset on the minute). This account does the
same with the server options `rate_limit_rpm`, `rate_limit_itpm` and `rate_limit_otpm` (0: no limit):

- a request is admitted when the requests bucket holds one request, the input bucket its prompt tokens
  and the output bucket its `max_tokens` (the API estimates output from `max_tokens` at the start and
  adjusts it at the end: the unused part is given back);
- **cache reads are free of the input limit.** The API's rate-limits page, "Cache-aware ITPM"
  (https://platform.claude.com/docs/en/api/rate-limits; read 2026-12-07 in its docs.anthropic.com
  translations, es/fr/it/ja, with the search tool): `input_tokens` and `cache_creation_input_tokens` count
  toward ITPM; `cache_read_input_tokens` do not ("though they are still billed"), except for the older models
  marked † in its tables (Haiku 3 and 3.5, Opus 3, Sonnet 3.5), which the simulator does not model. So a
  request takes its prompt less
  what its stream's prompt cache would read (`SimServer._prompt_tokens`), and is settled at
  `input_tokens + cache_creation_input_tokens` of its reply;
- otherwise it is answered 429 `rate_limit_error` with `retry-after` (whole seconds until the emptiest
  bucket holds enough) and the API's words, naming the limit;
- every reply, 429s included, carries the API's headers: `anthropic-ratelimit-{requests,input-tokens,
  output-tokens,tokens}-{limit,remaining,reset}`, the resets in RFC 3339 (when the bucket is full again);
  `-tokens-` is the most restrictive of the input and output buckets. The API always sends all four
  families, so once any limit is set every family is sent: a dimension with no limit of its own is a
  bucket of `UNLIMITED` (10^9) a minute that no request empties, so a client pacing on the headers is
  never held back by it. A server with no limit at all sends none (it is not a rate-limited account).

On the OpenAI chat-completions path the same account reads as OpenAI's limits (`admit(..., openai=True)`):
`rate_limit_rpm` is RPM and `rate_limit_itpm` is TPM, into which a request is charged its whole prompt (cached
tokens count there) plus its `max_tokens` (`max_completion_tokens`) at admission, kept as charged: OpenAI
counts `max_tokens` toward TPM whatever the reply's length. `rate_limit_otpm` has no OpenAI counterpart and is
not used there. Its 429 is OpenAI's (`{"error": {"message": "Rate limit reached for <model> in organization
... on tokens per min (TPM): Limit L, Used U, Requested R. Please try again in 1.2s. ...", "type": "tokens",
"code": "rate_limit_exceeded"}}`) and its headers are `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
the resets Go durations as OpenAI writes them (`641ms`, `19.9s`, `1m0s`, `6m0s`: `go_duration`). A server
that serves both wires at once charges both kinds of request to the one account.
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
OPENAI_NAMES = {"requests": ("requests", "requests per min (RPM)"), "input": ("tokens", "tokens per min (TPM)")}
UNLIMITED = 1_000_000_000  # a dimension the server sets no limit on: a bucket of 10^9 a minute (module docstring)


@dataclass
class Bucket:
    limit: float  # per minute
    level: float
    at: float

    def refill(self, now: float) -> None:
        # A refill never takes tokens away: an account whose clock is swapped for another (a test's fake clock) may
        # read a time before `at`, which would otherwise drain the bucket by the gap (an unlimited one by 10^9/min).
        self.level = min(self.limit, self.level + max(0.0, now - self.at) * self.limit / 60.0)
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
        self.active = max(rpm, itpm, otpm) > 0
        self.buckets = {name: Bucket(limit or UNLIMITED, limit or UNLIMITED, now) for name, limit in
                        (("requests", rpm), ("input", itpm), ("output", otpm))} if self.active else {}
        self.lock = threading.Lock()
        self.limited = 0  # requests answered 429
        self.admitted, self.input_taken = 0, 0.0  # requests let through and the input tokens they took (settled)

    def admit(self, params: dict[str, Any], prompt_tokens: int | None = None, *,
              openai: bool = False) -> tuple[anthropic.APIStatusError | None, dict[str, float]]:
        """(None, the amounts taken) if the request may go on, else (the 429 to answer, {}). `prompt_tokens`: the
        server's own count of the prompt's tokens that count (cache reads left out on the Messages path), else an
        estimate of ~4 characters a token. `openai`: charged and refused as OpenAI's limits (module docstring)."""
        prompt = prompt_tokens if prompt_tokens is not None else estimate_usage(params, None).input_tokens
        asked = float(params.get("max_tokens") or 0)
        wanted = {"requests": 1.0, "input": prompt + asked, "output": 0.0} if openai else \
            {"requests": 1.0, "input": float(prompt), "output": asked}
        with self.lock:
            now = self.clock()
            for bucket in self.buckets.values():
                bucket.refill(now)
            # OpenAI's limits are requests and tokens only: the output bucket never refuses a chat call (naming it in
            # OpenAI's words would fail, and it has no OpenAI counterpart).
            checked = {n: b for n, b in self.buckets.items() if not openai or n in OPENAI_NAMES}
            short = {name: b.wait_s(wanted[name]) for name, b in checked.items() if b.level < wanted[name]}
            if short:
                self.limited += 1
                name = max(short, key=lambda n: short[n])
                bucket = self.buckets[name]
                if openai:
                    return _openai_429(name, bucket, wanted[name], short[name], params.get("model")), {}
                return faults.status_error(
                    429, "rate_limit_error", f"This request would exceed the rate limit for your organization of "
                    f"{bucket.limit:,.0f} {NAMES[name]} per minute. For details, refer to: "
                    "https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage.",
                    headers={"retry-after": str(max(1, math.ceil(short[name])))}), {}
            for name, bucket in self.buckets.items():
                bucket.level -= wanted[name]
            self.admitted += 1
            self.input_taken += wanted["input"]
            return None, ({**wanted, "kept": 1.0} if openai else wanted)

    def settle(self, taken: dict[str, float], input_tokens: int, output_tokens: int) -> None:
        """Correct the estimates taken at admission to the reply's own counts (`input_tokens`: those that count
        toward the input limit). An OpenAI-path charge is kept as it was taken."""
        if taken.get("kept"):
            return
        with self.lock:
            self.input_taken += input_tokens - taken.get("input", input_tokens)
            for name, used in (("input", input_tokens), ("output", output_tokens)):
                if name in self.buckets and name in taken:
                    self.buckets[name].level += taken[name] - used

    def headers(self, openai: bool = False) -> dict[str, str]:
        """The rate-limit headers of a reply sent now: every family, once the account has any limit."""
        with self.lock:
            now = self.clock()
            for bucket in self.buckets.values():
                bucket.refill(now)
            shown = {name: Bucket(b.limit, b.level, b.at) for name, b in self.buckets.items()}
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


def go_duration(seconds: float) -> str:
    """A duration as Go's `time.Duration.String` writes it, at millisecond resolution, rounded up so that a bucket
    not yet full never reads `0s`: `641ms`, `19.9s`, `1m0s`, `6m0s`, `1h2m3.5s`; 0 is `0s`."""
    ms = math.ceil(round(max(0.0, seconds) * 1000.0, 6))
    if ms == 0:
        return "0s"
    if ms < 1000:
        return f"{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    whole, frac = divmod(rest, 1000)
    secs = f"{whole}.{frac:03d}".rstrip("0") + "s" if frac else f"{whole}s"
    return f"{hours}h{minutes}m{secs}" if hours else f"{minutes}m{secs}" if minutes else secs


def _openai_headers(shown: dict[str, Bucket]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, (key, _) in OPENAI_NAMES.items():
        if name in shown:
            bucket = shown[name]
            out[f"x-ratelimit-limit-{key}"] = f"{bucket.limit:.0f}"
            out[f"x-ratelimit-remaining-{key}"] = str(max(0, math.floor(bucket.level)))
            out[f"x-ratelimit-reset-{key}"] = go_duration(bucket.full_in_s())
    return out


def _openai_429(name: str, bucket: Bucket, requested: float, wait_s: float, model: Any) -> anthropic.APIStatusError:
    """OpenAI's 429 for the `name` limit: its sentence, `type` the limit's kind, `code` `rate_limit_exceeded`."""
    kind, per = OPENAI_NAMES[name]
    used = max(0, math.ceil(bucket.limit - bucket.level))
    exc = faults.status_error(
        429, kind, f"Rate limit reached for {model or 'the model'} in organization org-sim on {per}: Limit "
        f"{bucket.limit:.0f}, Used {used}, Requested {requested:.0f}. Please try again in {go_duration(wait_s)}. "
        "Visit https://platform.openai.com/account/rate-limits to learn more.",
        headers={"retry-after": str(max(1, math.ceil(wait_s)))})
    if isinstance(exc.body, dict):
        exc.body["error"].update(param=None, code="rate_limit_exceeded")
    return exc
