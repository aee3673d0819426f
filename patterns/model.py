"""The `Model` protocol every pattern calls, and `AnthropicModel`, Claude through the official SDK.

A model takes the Messages API arguments and returns an `anthropic.types.Message`, raising the
SDK's own exceptions, so every pattern has one code path for real and simulated models.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import anthropic
from anthropic.types import Message


@runtime_checkable
class Model(Protocol):
    async def create(self, **params: Any) -> Message: ...


class AnthropicModel:
    """Claude via `anthropic.AsyncAnthropic`, created on the first call (never at import or here).

    The client reads `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` as the SDK always does;
    `client_kwargs` go to `AsyncAnthropic` (api_key, base_url, timeout, ...). The SDK's own
    retries are off (`max_retries=0` unless given) so that the project's retry policy sees and
    counts every failure. It runs on wall time (no `clock` attribute). Use one instance within
    one event loop: the SDK's HTTP connections belong to the loop that opened them.
    """

    def __init__(self, model_id: str, **client_kwargs: Any) -> None:
        if not isinstance(model_id, str) or not model_id.strip():
            raise ValueError(f"model_id must be a non-empty string, got {model_id!r}")
        self.model_id = model_id
        self.price_id = model_id
        self._client_kwargs = client_kwargs
        self._client: anthropic.AsyncAnthropic | None = None

    @property
    def client(self) -> anthropic.AsyncAnthropic:
        if self._client is None:
            self._client = anthropic.AsyncAnthropic(**{"max_retries": 0, **self._client_kwargs})
        return self._client

    async def create(self, **params: Any) -> Message:
        return await self.client.messages.create(model=self.model_id, **params)

    async def aclose(self) -> None:
        """Close the client's connections (a later call opens a new client)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    def __repr__(self) -> str:  # never the client kwargs: they may hold an API key
        return f"AnthropicModel({self.model_id!r})"
