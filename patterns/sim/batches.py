"""The Message Batches API on the sim server: create, retrieve, list, results, cancel and delete, in the API's shapes.

- `POST /v1/messages/batches` with `{"requests": [{"custom_id", "params"}, ...]}` (1 to 100,000 requests,
  custom ids unique and `^[a-zA-Z0-9_-]{1,64}$`, a body of at most 256 MiB: the server's `max_batch_body_bytes`)
  answers a `message_batch` object, `in_progress`. Each request's `params` must be an object, but what is in it
  is checked only when the batch is processed, as the API does (it validates params asynchronously): a request
  without `model`, or one the Messages API would refuse, is an `errored` result with that 400's error;
- `GET /v1/messages/batches` lists the batches, most recently created first, a page at a time as the API does:
  `{"data": [message_batch, ...], "has_more", "first_id", "last_id"}`, `limit` 1 to 1,000 (default 20),
  `after_id` (the page after that batch) or `before_id` (the page before it), which the SDK's
  `client.messages.batches.list()` pages through;
- `DELETE /v1/messages/batches/{id}` deletes an ended batch and answers `{"id", "type": "message_batch_deleted"}`
  (the SDK's `DeletedMessageBatch`); a batch still processing is refused with a 400, since the API deletes a
  batch only once it has finished processing ("If you'd like to delete an in-progress batch, you must first
  cancel it": a cancelled batch ends at once here, so cancel then delete works);
- `GET /v1/messages/batches/{id}` answers it again: `in_progress` until `batch_processing_s` seconds of wall
  time have passed since its creation, then `ended`, with `ended_at`, its `request_counts` and a
  `results_url` on this server (built from the request's `Host`, as the SDK fetches that address);
- `GET /v1/messages/batches/{id}/results` answers the `.jsonl` file, one
  `{"custom_id", "result": {"type": "succeeded", "message"} | {"type": "errored", "error"} |
  {"type": "expired"} | {"type": "canceled"}}` a line (before the batch ends: 400, as the API refuses);
- `POST /v1/messages/batches/{id}/cancel` answers the batch `canceling`; a batch cancelled before it ended
  ends at the next retrieve with every request `canceled` (the simulator answers a batch all at once, so a
  cancel in time catches all of it).

Each request is answered by the same simulator, on the same per-trial stream, as an interactive call with the
same content would be (`SimServer.answer`), so a batched sweep's outcomes are the interactive sweep's. A batch
has no headers per request, so the streams come in one header of the create call, `x-wva-streams`: the
requests' streams in order, comma-separated, each percent-encoded (empty: no stream), which a real API ignores.
At 16 characters a stream (a trial's run id) it stays under the server's 64 KiB header line up to some 3,800
requests a batch; `benchmarks.harness.batching` sends at most 1,000.

A request in a batch meets none of the model's transient faults (429, 529, 500, timeouts): the batch system
has no rate limits per request and schedules its own retries. Its failures are two knobs instead, drawn per
request, seeded by (seed, stream, the request's content, how many times that content was drawn on the stream):
`batch_error_rate` (an `errored` result, `api_error`, which the client's retry policy retries) and
`batch_expire_rate` (`expired`, as a request the API did not reach within 24 hours). A request the API would
refuse (`invalid_request_error`) is `errored` with that error. Nothing is answered, and no fork's state moves,
until a batch ends. `received` counts the requests received, by content, so tests can see a request sent twice.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import anthropic

from . import faults

PREFIX = "/v1/messages/batches"
STREAMS_HEADER = "x-wva-streams"  # the create call's requests' streams, in order (module docstring)
BATCH_OPTIONS = {"batch_processing_s": float, "batch_error_rate": float, "batch_expire_rate": float}
DEFAULT_PROCESSING_S = 0.2  # small, but long enough that a client polls at least once
MAX_REQUESTS = 100_000  # the API's bound on a batch
MAX_BATCH_BODY_BYTES = 256 * 1024 * 1024  # the API's bound on a Message Batches request body (its errors page)
LIST_LIMIT, LIST_DEFAULT = 1000, 20
CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
Reply = tuple[int, dict[str, Any] | bytes, dict[str, str]]


@dataclass
class Batch:
    id: str
    created_at: datetime
    started: float  # time.monotonic() at creation: it ends `processing_s` later (read when asked)
    requests: list[tuple[str, dict[str, Any], str | None]]  # (custom_id, params, stream)
    cancel_initiated_at: datetime | None = None
    ended_at: datetime | None = None
    results: list[dict[str, Any]] = field(default_factory=list)


def _stamp(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat().replace("+00:00", "Z")


class Batches:
    """The server's batches (in memory: they live as long as the server)."""

    def __init__(self, sim: Any, batch_processing_s: float = DEFAULT_PROCESSING_S, batch_error_rate: float = 0.0,
                 batch_expire_rate: float = 0.0) -> None:
        if batch_processing_s < 0 or not 0 <= batch_error_rate + batch_expire_rate <= 1 or \
                min(batch_error_rate, batch_expire_rate) < 0:
            raise ValueError("batch_processing_s must be >= 0, and batch_error_rate and batch_expire_rate rates "
                             "in [0, 1] whose sum is at most 1")
        self.sim = sim
        self.processing_s, self.error_rate, self.expire_rate = batch_processing_s, batch_error_rate, batch_expire_rate
        self.received: Counter[str] = Counter()  # requests received in batches, by (stream, content) digest
        self.sizes: list[int] = []  # the requests of each batch created, in order
        self._drawn: Counter[str] = Counter()
        self._batches: dict[str, Batch] = {}
        self._lock = threading.Lock()

    def handle(self, method: str, path: str, headers: Any, raw: bytes) -> Reply | anthropic.APIStatusError:
        """The reply to a request under `PREFIX` (the handler has checked the key)."""
        parts = path.split("?")[0][len(PREFIX):].strip("/").split("/")
        if method == "POST" and parts == [""]:
            return self.create(headers, raw)
        if method == "GET" and parts == [""]:
            return self.listed(path, headers)
        batch = self._batches.get(parts[0])
        if batch is None or len(parts) > 2:
            return faults.not_found(f"message_batch {parts[0]!r} not found" if len(parts) <= 2 else "Not found")
        with self._lock:
            self._settle(batch)
            if method == "GET" and len(parts) == 1:
                return 200, self._view(batch, headers), {}
            if method == "POST" and parts[1:] == ["cancel"]:
                if batch.ended_at is None and batch.cancel_initiated_at is None:
                    batch.cancel_initiated_at = datetime.now(UTC)
                return 200, self._view(batch, headers), {}
            if method == "DELETE" and len(parts) == 1:
                if batch.ended_at is None:
                    return faults.invalid_request(f"Batch {batch.id} cannot be deleted while it is processing: "
                                                  "cancel it first")
                del self._batches[batch.id]
                return 200, {"id": batch.id, "type": "message_batch_deleted"}, {}
            if method == "GET" and parts[1:] == ["results"]:
                if batch.ended_at is None:
                    return faults.invalid_request(f"Batch {batch.id} has not finished processing yet")
                lines = "".join(json.dumps(r) + "\n" for r in batch.results)
                return 200, lines.encode(), {"content-type": "application/binary"}
        return faults.not_found()

    def create(self, headers: Any, raw: bytes) -> Reply | anthropic.APIStatusError:
        try:
            body = json.loads(raw or b"null")
        except (ValueError, RecursionError):
            return faults.invalid_request("There was an error parsing the body of your request")
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not 1 <= len(requests) <= MAX_REQUESTS:
            return faults.invalid_request(f"requests: a list of 1 to {MAX_REQUESTS:,} requests is required")
        ids = []
        for n, request in enumerate(requests):
            custom_id = request.get("custom_id") if isinstance(request, dict) else None
            params = request.get("params") if isinstance(request, dict) else None
            if not isinstance(custom_id, str) or not CUSTOM_ID.fullmatch(custom_id):
                return faults.invalid_request(f"requests.{n}.custom_id: String should match pattern "
                                              "'^[a-zA-Z0-9_-]{1,64}$'")
            if not isinstance(params, dict):
                return faults.invalid_request(f"requests.{n}.params: Input should be a valid dictionary")
            ids.append(custom_id)
        if len(set(ids)) != len(ids):
            return faults.invalid_request("requests: custom_id values must be unique within a batch")
        given = str(headers.get(STREAMS_HEADER) or "")
        streams = [unquote(s) or None for s in given.split(",")] if given else [None] * len(requests)
        if len(streams) != len(requests):
            return faults.invalid_request(f"{STREAMS_HEADER}: {len(streams)} streams for {len(requests)} requests")
        now = datetime.now(UTC)
        batch = Batch(f"msgbatch_{secrets.token_hex(12)}", now, time.monotonic(),
                      [(r["custom_id"], r["params"], s) for r, s in zip(requests, streams, strict=True)])
        with self._lock:
            self._batches[batch.id] = batch
            self.sizes.append(len(batch.requests))
            self.received.update(_digest(stream, params) for _, params, stream in batch.requests)
        return 200, self._view(batch, headers), {"request-id": f"req_{secrets.token_hex(12)}"}

    def listed(self, path: str, headers: Any) -> Reply | anthropic.APIStatusError:
        """A page of the batches, most recently created first (module docstring)."""
        query = parse_qs(urlsplit(path).query)
        given = (query.get("limit") or [str(LIST_DEFAULT)])[-1]
        if not given.isdigit() or not 1 <= int(given) <= LIST_LIMIT:
            return faults.invalid_request(f"limit: Input should be an integer from 1 to {LIST_LIMIT:,}")
        limit = int(given)
        with self._lock:
            order = sorted(self._batches.values(), key=lambda b: (b.created_at, b.started), reverse=True)
            ids = [b.id for b in order]
            before, after = (query.get("before_id") or [None])[-1], (query.get("after_id") or [None])[-1]
            if before is not None:
                end = ids.index(before) if before in ids else 0
                page, more = order[max(0, end - limit):end], end - limit > 0
            else:
                start = ids.index(after) + 1 if after in ids else (len(ids) if after is not None else 0)
                page, more = order[start:start + limit], start + limit < len(order)
            for batch in page:
                self._settle(batch)
            data = [self._view(b, headers) for b in page]
        return 200, {"data": data, "has_more": more, "first_id": data[0]["id"] if data else None,
                     "last_id": data[-1]["id"] if data else None}, {}

    def _settle(self, batch: Batch) -> None:
        """End the batch if its time has come (or it was cancelled): every request's result, once."""
        due = time.monotonic() >= batch.started + self.processing_s  # the knob as it is now: a test may shorten it
        if batch.ended_at is not None or (batch.cancel_initiated_at is None and not due):
            return
        if batch.cancel_initiated_at is not None:
            batch.results = [{"custom_id": c, "result": {"type": "canceled"}} for c, _, _ in batch.requests]
        else:
            batch.results = [{"custom_id": c, "result": self._result(p, s)} for c, p, s in batch.requests]
        batch.ended_at = datetime.now(UTC)

    def _result(self, params: dict[str, Any], stream: str | None) -> dict[str, Any]:
        key = _digest(stream, params)
        self._drawn[key] += 1
        seed = f"{self.sim.model.seed}|batch|{key}|{self._drawn[key]}".encode()
        draw = random.Random(hashlib.sha256(seed).digest()).random()
        if draw < self.expire_rate:
            return {"type": "expired"}
        request_id = f"req_{secrets.token_hex(12)}"
        if draw < self.expire_rate + self.error_rate:
            return {"type": "errored", "error": faults.error_body("api_error", "Internal server error", request_id)}
        if not isinstance(params.get("model"), str):  # checked here, not at create: the API's params are async
            return {"type": "errored", "error": faults.error_body("invalid_request_error", "model: Field required",
                                                                  request_id)}
        status, body, _ = self.sim.answer(params, stream, inject_faults=False)
        if status != 200:
            return {"type": "errored", "error": {**body, "request_id": request_id}}
        return {"type": "succeeded", "message": body}

    def _view(self, batch: Batch, headers: Any) -> dict[str, Any]:
        """The `message_batch` object, as retrieve answers it."""
        counts = Counter(r["result"]["type"] for r in batch.results)
        ended = batch.ended_at is not None
        status = "ended" if ended else "canceling" if batch.cancel_initiated_at else "in_progress"
        host = str(headers.get("host") or "127.0.0.1")
        return {"id": batch.id, "type": "message_batch", "processing_status": status,
                "request_counts": {"processing": 0 if ended else len(batch.requests),
                                   **{k: counts[k] for k in ("succeeded", "errored", "canceled", "expired")}},
                "created_at": _stamp(batch.created_at), "expires_at": _stamp(batch.created_at + timedelta(hours=24)),
                "ended_at": _stamp(batch.ended_at), "cancel_initiated_at": _stamp(batch.cancel_initiated_at),
                "archived_at": None,
                "results_url": f"http://{host}{PREFIX}/{batch.id}/results" if ended else None}


def _digest(stream: str | None, params: dict[str, Any]) -> str:
    """A request's identity: its stream and its content."""
    text = json.dumps({"stream": stream, "params": params}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
