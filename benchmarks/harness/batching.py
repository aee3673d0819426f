"""`--message-batches`: a sweep's model calls go through Anthropic's Message Batches API, round by round, at half price.

Trials keep calling `await model.create(**params)`. `BatchedModel` holds each call and gathers the calls of all
trials in flight into one batch per round: a batch is sent once no new call has come for `window_s` (50 ms: the
trials a round's results woke have all asked their next question by then, unless a tool of theirs is slow, and
then its call joins the next round), once it holds `max_requests` (1,000: a batch the API takes whole, see
`patterns.sim.batches` for why not its 100,000), or `max_hold_s` (2 s) after its first call, so that a steady
trickle cannot hold it back. It is created through the SDK (`client.messages.batches.create`), recorded in the
folder (`batch_record`), polled with backoff (`retrieve`: after `poll_first_s`, 50 ms, then doubling up to
`poll_max_s`, 60 s), and its results file read (`results`); each result goes to its caller by `custom_id`:

- `succeeded`: the call returns its `Message`, and the trial goes on with its next turn (the next round);
- `errored`: the call raises the SDK's exception for that error (`api_error` is an `InternalServerError`,
  `invalid_request_error` a `BadRequestError`, ...), which the retry policy retries or not as it would an
  interactive call's, each retry in a later batch;
- `expired` (the API did not reach it within 24 hours) raises `BatchExpired`, `canceled` `BatchCanceled`: never
  retried, recorded as the trial's error, never lost;
- no readable result (its line of the results file torn or garbled on the way, or missing): the file is read
  once more, and if its line is still unreadable the call raises `BatchResultUnreadable`, a reply that is not a
  message, which the retry policy retries like a connection error. The file is read line by line, so one bad
  line costs only its own request: every other result of the batch, paid for, reaches its caller.

The time waited for one batch is bounded by `max_wait_s` (24 h, the API's own expiry): past it the batch is
cancelled and its callers get `BatchCanceled`. A failure of the create call itself (a 429, a timeout) goes to
every caller as it is, for their retry policies. Each batch call waits at most `request_timeout_s`.

The calls of a batched sweep are priced at the batch price (`patterns.pricing.batch_price_id`: half), and
their latency is queue time (from the call to its batch's results), not the model's: the manifest says
`message_batches: true`, and the report says so for that folder. `--resume` answers a call from a recorded
batch when the folder's `batches.jsonl` holds its key and that batch's result for it succeeded, so nothing is
paid twice; a recorded result that did not succeed (never billed) is sent again.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import anthropic
from anthropic.types import Message
from anthropic.types.messages import MessageBatchIndividualResponse

from benchmarks.harness.batch_record import BatchRecord, content_key
from patterns._http import httpx
from patterns.model import STREAM_HEADER
from patterns.pricing import batch_price_id
from patterns.retry import RetryPolicy

STREAMS_HEADER = "x-wva-streams"  # the requests' streams, for a simulator behind the API (patterns.sim.batches)
MAX_REQUESTS = 1_000
_STATUS = {"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
           "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429, "api_error": 500,
           "overloaded_error": 529}
_CLASSES: dict[int, type[anthropic.APIStatusError]] = {
    400: anthropic.BadRequestError, 401: anthropic.AuthenticationError, 403: anthropic.PermissionDeniedError,
    404: anthropic.NotFoundError, 413: anthropic.RequestTooLargeError, 429: anthropic.RateLimitError,
    500: anthropic.InternalServerError, 529: anthropic.OverloadedError}


class BatchExpired(anthropic.APIError):
    """A batched request the API did not process before its batch expired (24 hours after creation)."""


class BatchCanceled(anthropic.APIError):
    """A batched request that was cancelled: its batch was, or the sweep waited past `max_wait_s` for it."""


class BatchResultUnreadable(anthropic.APIResponseValidationError):
    """A batched request whose line of the results file could not be read (retried as a garbled reply is)."""


@dataclass
class _Call:
    key: str
    stream: str | None
    params: dict[str, Any]
    future: asyncio.Future[Message]


def rounds(longest_chain: int, trials: int, concurrency: int) -> int:
    """Batch round trips a batched sweep needs, about: trials start `concurrency` at a time, and each takes as many
    rounds as its longest chain of calls one after another (an agent's turns; parallel branches share a round)."""
    return math.ceil(max(trials, 0) / max(concurrency, 1)) * max(longest_chain, 0)


class BatchedModel:
    """A model whose calls go out in Message Batches (module docstring); `inner` is an `AnthropicModel` (or a
    wrapper of one: its `client` and `model_id` are used, never its `create`)."""

    batched = True  # the harness does not bound its calls in flight: one batch is one request
    takes_headers = True  # `Streamed` labels each call with its trial's stream, which goes into x-wva-streams

    def __init__(self, inner: Any, record: BatchRecord | None = None, *, window_s: float = 0.05,
                 max_hold_s: float = 2.0, max_requests: int = MAX_REQUESTS, poll_first_s: float = 0.05,
                 poll_max_s: float = 60.0, max_wait_s: float = 24 * 3600.0,
                 request_timeout_s: float | None = None) -> None:
        if not hasattr(inner, "client") or not isinstance(getattr(inner, "model_id", None), str):
            raise ValueError("--message-batches needs a model behind the Anthropic SDK (anthropic:<model-id>)")
        self.inner, self.record = inner, record
        self.window_s, self.max_hold_s, self.max_requests = window_s, max_hold_s, max_requests
        self.poll_first_s, self.poll_max_s, self.max_wait_s = poll_first_s, poll_max_s, max_wait_s
        self.timeout = request_timeout_s if request_timeout_s is not None else anthropic.NOT_GIVEN
        self.price_id = batch_price_id(getattr(inner, "price_id", None) or inner.model_id)
        self.batches_created = 0
        self._pending: list[_Call] = []
        self._collector: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._recorded: dict[str, asyncio.Task[dict[str, Any]]] = {}  # batch id -> its results, fetched once

    def __getattr__(self, name: str) -> Any:  # client, model_id, aclose and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Message:
        # a batch has no headers per request: the stream (the only one the project sends) goes in x-wva-streams
        stream = (params.pop("extra_headers", None) or {}).get(STREAM_HEADER)
        params = {"model": self.inner.model_id, **params}
        key = content_key(stream, params)
        while self.record is not None and (found := self.record.claim(key)) is not None:
            message = await self._from_record(*found)
            if message is not None:
                return message  # paid in an earlier session: not sent again
        call = _Call(key, stream, params, asyncio.get_running_loop().create_future())
        self._pending.append(call)
        if self._collector is None:
            self._collector = asyncio.create_task(self._collect())
        return await call.future

    async def _collect(self) -> None:
        """Send the pending calls as batches: after a quiet `window_s`, at `max_requests`, or `max_hold_s` on."""
        try:
            while self._pending:
                first = time.monotonic()
                while len(self._pending) < self.max_requests and time.monotonic() - first < self.max_hold_s:
                    seen = len(self._pending)
                    await asyncio.sleep(self.window_s)
                    if len(self._pending) == seen:
                        break
                calls, self._pending = self._pending[:self.max_requests], self._pending[self.max_requests:]
                task = asyncio.create_task(self._run(calls))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        finally:
            self._collector = None

    async def _run(self, calls: list[_Call]) -> None:
        """One batch: create, record, wait, read; every caller gets its answer or an error, never nothing."""
        seen: Counter[str] = Counter()
        ids = []
        for call in calls:  # unique within the batch, even for calls that ask the same thing
            ids.append(f"{call.key}-{seen[call.key]}")
            seen[call.key] += 1
        try:
            streams = [quote(c.stream or "", safe="") for c in calls]
            headers = {STREAMS_HEADER: ",".join(streams)} if any(streams) else None
            batch = await self.inner.client.messages.batches.create(
                requests=[{"custom_id": i, "params": c.params} for i, c in zip(ids, calls, strict=True)],
                extra_headers=headers, timeout=self.timeout)
            self.batches_created += 1
            if self.record is not None:
                self.record.add(batch.id, [(i, c.key) for i, c in zip(ids, calls, strict=True)])
            results = await self._results(batch.id)
            for custom_id, call in zip(ids, calls, strict=True):
                _settle(call.future, results.get(custom_id), batch.id, custom_id, self._url())
        except BaseException as exc:
            for call in calls:
                if call.future.done():
                    continue
                if isinstance(exc, Exception):
                    call.future.set_exception(exc)
                else:  # cancelled (the sweep is stopping): so are its callers
                    call.future.cancel()
            if not isinstance(exc, Exception):
                raise

    async def _results(self, batch_id: str) -> dict[str, Any]:
        """custom_id -> result of a batch, once it has ended (polled with backoff, within `max_wait_s`)."""
        batches, started, delay = self.inner.client.messages.batches, time.monotonic(), self.poll_first_s
        while True:
            try:
                batch = await batches.retrieve(batch_id, timeout=self.timeout)
                if batch.processing_status == "ended" and batch.results_url:
                    break
            except anthropic.APIError as exc:  # a poll that failed is polled again, within the bound
                if not RetryPolicy().is_retryable(exc):
                    raise
            if time.monotonic() - started + delay > self.max_wait_s:
                await batches.cancel(batch_id, timeout=self.timeout)
                raise BatchCanceled(f"waited {self.max_wait_s:g} s for batch {batch_id}, the bound: cancelled it",
                                    httpx.Request("GET", self._url()), body=None)
            await asyncio.sleep(delay)
            delay = min(2 * delay, self.poll_max_s)
        return await self._read(str(batch.results_url))

    async def _read(self, url: str) -> dict[str, Any]:
        """custom_id -> result, from an ended batch's results file read line by line: a line that does not parse is
        left out (after one more reading of the file, in case it was torn on the way), never the whole file."""
        found: dict[str, Any] = {}
        options: dict[str, Any] = {"headers": {"Accept": "application/binary"}}
        if self.timeout is not anthropic.NOT_GIVEN:
            options["timeout"] = self.timeout
        for _ in range(2):
            response = await self.inner.client.get(url, cast_to=httpx.Response, options=options)
            torn = 0
            for line in response.content.splitlines():
                try:
                    if line.strip():
                        item = MessageBatchIndividualResponse.model_validate_json(line)
                        found.setdefault(item.custom_id, item.result)
                except ValueError:
                    torn += 1
            if not torn:
                break
        return found

    async def _from_record(self, batch_id: str, custom_id: str) -> Message | None:
        """A recorded request's message if its result succeeded; None to send the call again (nothing billed)."""
        if batch_id not in self._recorded:
            self._recorded[batch_id] = asyncio.create_task(self._results(batch_id))
        try:
            result = (await asyncio.shield(self._recorded[batch_id])).pop(custom_id, None)  # each is claimed once
        except anthropic.APIError:  # gone (archived, 29 days on) or never ends: ask again
            return None
        return result.message if getattr(result, "type", None) == "succeeded" else None

    async def aclose(self) -> None:
        """Stop waiting for the batches in flight (they go on at the API, recorded for `--resume`), then close
        the inner model's client."""
        for task in [*self._tasks, *self._recorded.values(), *([self._collector] if self._collector else [])]:
            task.cancel()
        close = getattr(self.inner, "aclose", None)
        if callable(close):
            await close()

    def _url(self) -> str:
        try:
            return f"{str(self.inner.client.base_url).rstrip('/')}/v1/messages/batches"
        except Exception:
            return "http://model.invalid/v1/messages/batches"

    def __repr__(self) -> str:
        return f"BatchedModel({self.inner!r})"


def _settle(future: asyncio.Future[Message], result: Any, batch_id: str, custom_id: str, url: str) -> None:
    """Resolve one caller with its result: its message, or the error the result stands for."""
    if future.done():
        return
    kind = getattr(result, "type", None)
    where = f"request {custom_id} of batch {batch_id}"
    if kind == "succeeded":
        return future.set_result(result.message)
    request = httpx.Request("POST", url)
    if kind == "errored":
        body = result.error.model_dump(mode="json")
        status = _STATUS.get(str(body.get("error", {}).get("type")), 500)
        response = httpx.Response(status, json=body, request=request)
        cls = _CLASSES.get(status, anthropic.APIStatusError)
        return future.set_exception(cls(f"Error code: {status} - {body} ({where})", response=response, body=body))
    if kind == "expired":
        return future.set_exception(BatchExpired(f"{where} expired before it was processed", request, body=None))
    if kind == "canceled":
        return future.set_exception(BatchCanceled(f"{where} was cancelled", request, body=None))
    response = httpx.Response(200, request=request)
    return future.set_exception(BatchResultUnreadable(response, None, message=f"{where} has no readable result in "
                                                                             "the batch's results file"))
