"""The pre-flight request: one cheap model call before a paid sweep (or `wva run`) starts.

A missing key, a rejected key, an unknown model id or a wrong base URL would otherwise fail every
trial of the sweep, one row at a time, and end with exit 0. So before anything runs or is written, a
provider model (`anthropic:`, `openai:`) gets one request of `max_tokens=1` through its own `create`,
under the sweep's retry policy:

- no key in the environment (or given in code): `SweepRefused` naming the variable to set;
- 401, 403, 404 or any other status the policy never retries: `SweepRefused` with the provider's own
  message (secrets redacted) and what to check;
- a fault the policy retries (429, 5xx, a connection error) that lasts through every retry:
  `SweepStopped` — the call was right, the provider could not be reached;
- no answer within the deadline, attempt after attempt (a server that accepts the connection and never
  answers, a wrong host that swallows packets): `SweepRefused`, one line saying the server did not answer
  and how long each attempt waited. Each attempt of the 1-token request has `min(timeout_s, 30 s)` (`timeout_s`
  is the sweep's `--request-timeout`), and the attempts together the retry policy's `max_total_s`.
The simulator and a replayed cassette cost nothing and need none.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anthropic

from benchmarks.harness.errors import SweepRefused, SweepStopped
from patterns.deadline import Deadline
from patterns.redact import redact
from patterns.retry import RetryPolicy

KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
BASE_URLS = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
PING = {"messages": [{"role": "user", "content": "Reply with one word: ok"}], "max_tokens": 1}
HINTS = {401: "the key was rejected: check {key}", 403: "the key may not use this model: check {key} and the model id",
         404: "unknown model id, or a wrong base URL ({url}): check the model id and {base}"}


def provider(spec: str) -> str | None:
    """`anthropic` or `openai` for a paid model's spec, None for `sim` and `replay:` (nothing to check)."""
    kind = spec.strip().split(":", 1)[0].lower()
    return kind if kind in KEYS else None


PING_TIMEOUT_S = 30.0  # the most one attempt of the 1-token request waits, whatever --request-timeout says


async def preflight(model: Any, spec: str, retry: RetryPolicy | None = None,
                    timeout_s: float | None = None) -> dict[str, Any] | None:
    """None for a model that needs no pre-flight; else, once one request succeeded, what it took
    (`attempts`, and the `errors` retried on the way, by class: the manifest records them). Raises
    `SweepRefused` / `SweepStopped` (module docstring)."""
    kind = provider(spec)
    if kind is None:
        return None
    policy = retry or RetryPolicy()
    client = _client(model, kind)
    if _no_key(client, kind):
        raise SweepRefused(f"{spec}: no API key: set {KEYS[kind]} (nothing was run)")
    deadline = min(timeout_s or PING_TIMEOUT_S, PING_TIMEOUT_S)
    pinged = Deadline(model, deadline)
    rng, began = random.Random(0), time.monotonic()
    errors: list[str] = []
    for attempt in range(policy.max_retries + 1):
        try:
            await pinged.create(**PING)
            return {"attempts": attempt + 1, "errors": errors}
        except anthropic.APIError as exc:
            if not policy.is_retryable(exc):
                raise SweepRefused(_refused(spec, kind, exc, client)) from None
            wait = policy.delay_s(attempt, exc, rng)
            if attempt == policy.max_retries or not policy.in_time(time.monotonic() - began, wait):
                raise _gave_up(spec, attempt + 1, exc, client, deadline) from None
            errors.append(type(exc).__name__)
            await asyncio.sleep(wait)
    raise AssertionError("unreachable: the last attempt returns or raises")


def _gave_up(spec: str, attempts: int, exc: anthropic.APIError, client: Any, deadline: float) -> Exception:
    """The error for a pre-flight whose every attempt failed: no answer at all is a refusal (exit 2: the base URL
    is wrong or the server is not serving), a provider that answered with errors a stop (exit 1)."""
    if isinstance(exc, anthropic.APITimeoutError):
        return SweepRefused(f"{spec}: the pre-flight request got no answer within {deadline:g} s, {attempts} times "
                            f"(base URL {_url(client)}): check that the server is up and answering, or raise "
                            "--request-timeout (nothing was run)")
    return SweepStopped(f"{spec}: the pre-flight request failed {attempts} times ({_said(exc)}; base URL "
                        f"{_url(client)}): nothing was run")


def _client(model: Any, kind: str) -> Any:
    """The model's SDK client, if it shows one; the openai SDK refuses to build one without a key."""
    if kind == "openai":
        import openai

        try:
            return getattr(model, "client", None)
        except openai.OpenAIError:
            return _NO_KEY
    return getattr(model, "client", None)


_NO_KEY = object()


def _no_key(client: Any, kind: str) -> bool:
    if client is _NO_KEY:
        return True
    if kind == "anthropic" and client is not None:  # the SDK builds the client and fails on the first request
        return getattr(client, "api_key", None) is None and getattr(client, "auth_token", None) is None
    return False


def _said(exc: anthropic.APIError) -> str:
    """The provider's own words: the error body's message when there is one, secrets redacted."""
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    status = getattr(exc, "status_code", None)
    text = f"{status} {message}" if status and message else str(exc)
    return redact(" ".join(text.split()))[:300]


def _url(client: Any) -> str:
    """The client's base URL, without any user:password in it."""
    parts = urlsplit(str(getattr(client, "base_url", "") or "unknown"))
    return urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))) \
        if parts.hostname else str(parts.geturl())


def _refused(spec: str, kind: str, exc: anthropic.APIError, client: Any) -> str:
    status = getattr(exc, "status_code", None)
    hint = HINTS.get(status or 0, "the request was refused")
    hint = hint.format(key=KEYS[kind], base=BASE_URLS[kind], url=_url(client))
    return f"{spec}: the pre-flight request was refused ({_said(exc)}): {hint} (nothing was run)"
