"""A deadline per model call attempt, for a model behind the network.

An SDK's own timeouts are per socket operation (connect, each read), and its default read timeout is 600 s:
a server that accepts the connection and then trickles bytes, or never answers, holds a call for ten minutes
an attempt, and the retry policy makes five attempts. `Deadline` bounds the whole attempt — connecting,
waiting for the first byte and reading the whole reply — with one clock: past `seconds`, the attempt is
abandoned (its connection closed by the cancellation) and raised as `anthropic.APITimeoutError`, the class
the SDK raises for its own timeouts, so the retry policy retries it and a trial records it as an error.
The bound on a call's retries as a whole is `RetryPolicy.max_total_s` (`patterns/retry.py`).

Only a model that runs on wall time is wrapped (`with_deadline`): a simulated model's latency is virtual,
and a deadline in real seconds would mean nothing to it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
from anthropic.types import Message

from ._http import httpx
from .model import can_fork


class Deadline:
    """`inner`, each of whose `create` calls is abandoned after `seconds` as an `APITimeoutError`."""

    def __init__(self, inner: Any, seconds: float) -> None:
        if not 0 < seconds < float("inf"):
            raise ValueError(f"a request timeout must be a number of seconds > 0, got {seconds!r}")
        self.inner = inner
        self.seconds = seconds

    def __getattr__(self, name: str) -> Any:  # client, price_id, takes_headers, aclose and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Message:
        try:
            async with asyncio.timeout(self.seconds):
                return await self.inner.create(**params)  # type: ignore[no-any-return]
        except TimeoutError:
            raise anthropic.APITimeoutError(request=httpx.Request("POST", self._url())) from None

    def _url(self) -> str:
        try:
            return str(self.inner.client.base_url)
        except Exception:  # no client (a model of one's own), or the openai SDK's missing key
            return "http://model.invalid"

    def __repr__(self) -> str:
        return f"Deadline({self.inner!r}, {self.seconds}s)"


def with_deadline(model: Any, seconds: float | None) -> Any:
    """`model` with a deadline per attempt, if it runs on wall time and `seconds` is set; else `model` itself."""
    if seconds is None or can_fork(model) or getattr(model, "clock", None) is not None or isinstance(model, Deadline):
        return model
    return Deadline(model, seconds)
