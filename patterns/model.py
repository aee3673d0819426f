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

    A 200 whose body is not a message (cut-off JSON, a proxy's HTML page) is raised as
    `anthropic.APIResponseValidationError`: left to itself the SDK raises `json.JSONDecodeError`
    (not an `APIError`) for the first and returns the body as a `str` for the second.
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
        raw = await self.client.messages.with_raw_response.create(model=self.model_id, **params)
        response = raw.http_response
        try:
            message = await raw.parse()
        except ValueError as exc:  # json.JSONDecodeError from the SDK's parser
            raise _malformed(response, f"the body is not valid JSON ({exc})") from exc
        if not isinstance(message, Message):  # a non-JSON content type: the SDK hands back the text
            kind = response.headers.get("content-type", "no content type")
            raise _malformed(response, f"the body is not a message ({kind})")
        return message

    async def aclose(self) -> None:
        """Close the client's connections (a later call opens a new client)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    def __repr__(self) -> str:  # never the client kwargs: they may hold an API key
        return f"AnthropicModel({self.model_id!r})"


def _malformed(response: Any, why: str) -> anthropic.APIResponseValidationError:
    text = response.text
    message = f"HTTP {response.status_code} from {response.request.url}: {why}; body starts {text[:80]!r}"
    return anthropic.APIResponseValidationError(response, text, message=message)
