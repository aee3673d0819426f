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
    """Anything with `async create(**params) -> Message` that raises the SDK's own exceptions.

    Optional attributes, which a model may leave out (they are read with `getattr`):

    - `clock`: the `patterns.clock.Clock` its latency runs on (SimModel's virtual clock); without one,
      a run measures wall time (`patterns.clock.clock_of`);
    - `price_id`: the id to price its calls with (`patterns/prices.json`); without one, each reply's
      own `model` field is priced.

    Optional methods, used only through the helpers below so that no caller probes for them itself:
    `fork(stream)` (a simulated model's own random stream for one trial: `fork_model`),
    `faults_injected` (a dict of injected faults by kind: `faults_injected`) and `async aclose()`
    (closes an SDK client's connections: `aclose_model`).
    """

    async def create(self, **params: Any) -> Message: ...


def can_fork(model: Any) -> bool:
    """Whether the model gives each trial its own random stream (a simulated model)."""
    return callable(getattr(model, "fork", None))


def fork_model(model: Model, stream: str) -> Model:
    """`model.fork(stream)` for a simulated model, the model itself for any other."""
    return model.fork(stream) if can_fork(model) else model  # type: ignore[attr-defined, no-any-return]


STREAM_HEADER = "x-wva-stream"  # a trial's random stream, for a simulator behind an HTTP API (`wva sim-server`)


class Streamed:
    """A model sent through an SDK, labelled with one trial's stream: every request carries `x-wva-stream`.

    `wva sim-server` forks its simulator per stream, so trials through the wire get their own random
    streams exactly as `fork_model` gives them in process (without it, every trial of one server shares one
    stream, and decisions of different trials are correlated by it). A real API ignores the header."""

    def __init__(self, inner: Any, stream: str) -> None:
        self.inner = inner
        self._headers = {STREAM_HEADER: stream}

    def __getattr__(self, name: str) -> Any:  # clock, price_id and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Message:
        headers = {**(params.pop("extra_headers", None) or {}), **self._headers}
        return await self.inner.create(**params, extra_headers=headers)


def stream_model(model: Any, stream: str) -> Any:
    """The trial's model: a simulator's fork, a model that sends HTTP requests labelled with the stream
    (`takes_headers`), else the model itself."""
    if can_fork(model):
        return model.fork(stream)
    return Streamed(model, stream) if getattr(model, "takes_headers", False) else model


def faults_injected(model: Any) -> int | None:
    """How many faults a simulated model injected (None for a model that injects none)."""
    injected = getattr(model, "faults_injected", None)
    return sum(injected.values()) if isinstance(injected, dict) else None


async def aclose_model(model: Any) -> None:
    """Close a model's connections, if it holds any (an SDK client belongs to the loop that opened it)."""
    close = getattr(model, "aclose", None)
    if callable(close):
        await close()


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
        self.rate_headers: dict[str, str] = {}  # the last reply's anthropic-ratelimit-* headers (for the harness)

    @property
    def client(self) -> anthropic.AsyncAnthropic:
        if self._client is None:
            self._client = anthropic.AsyncAnthropic(**{"max_retries": 0, **self._client_kwargs})
        return self._client

    takes_headers = True  # `extra_headers` go out with the request (`Streamed`)

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
        # Set with no await before the return, so the harness reads this reply's headers, not another call's.
        self.rate_headers = {k: v for k, v in response.headers.items() if k.startswith("anthropic-ratelimit-")}
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
