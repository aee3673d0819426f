"""The simulated model server: SimModel over HTTP, as the Messages API and OpenAI chat completions (chat_wire).

`POST /v1/messages` answers with the Message JSON the API sends, or with the API's error bodies
and status codes: 400 `invalid_request_error` (including a conversation the API would reject,
see `patterns.conversation`, and "prompt is too long"), 401 `authentication_error` when the
server requires a key, 429 and 529 with `retry-after`, 500 `api_error`. `GET /health` says ok.
An injected timeout is served as a slow reply: the request is answered `slow_s` seconds late
(set it above the client's timeout to see the client time out), and not at all if the client
gave up meanwhile, so that its retry sees the decision it would have seen without the fault.
The network's faults (`disconnect_rate`, `slow_rate`, `malformed_rate`: a cut connection, a late
reply, a 200 that is not JSON) are server knobs, described with the SDK's reaction to each in
`patterns.sim.netfaults`. `server.faults_injected` counts every fault injected, by the name of the
SDK exception the client records for it, so it can be compared with a run's `error_type`s.

Each request picks the first of `policies` whose `accepts(request)` is true, falling back to
`GenericPolicy`. `patterns` knows no task family: `wva sim-server` (benchmarks/cli/sim_server.py,
the command line) passes the benchmark's families' policies in.

The server never logs or echoes the `x-api-key` / `authorization` headers: it logs only the
request line and the status, at DEBUG level, to the `patterns.sim.server` logger.

It is hardened like a real endpoint (`patterns.sim.guard`, the HTTP side in `patterns.sim.handler`):
a body over `max_body_bytes` (32 MiB, the Messages API's limit; `max_batch_body_bytes`, 256 MiB, on the Message
Batches endpoints, as the API's errors page gives them) is answered 413 before it is read,
a bad `Content-Length` 400, and a client has `read_timeout_s` (30 s) to send a whole request, so
slow or idle connections cannot hold the server's threads. `loopback` says whether only this
machine can reach it (`wva sim-server` warns otherwise), and `wva sim-server` reads
`require_api_key` from the environment variable `API_KEY_ENV` (`WVA_SIM_API_KEY`), so that the key
need not be on the command line, where `ps` shows it.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import threading
from collections.abc import Sequence
from typing import Any

import anthropic

from . import faults, guard, netfaults, ratelimit
from .batches import BATCH_OPTIONS, DEFAULT_PROCESSING_S, MAX_BATCH_BODY_BYTES, Batches
from .cache import split
from .generic import GenericPolicy
from .handler import CLIENT_GONE, HTTPServer, error_reply
from .knobs import KNOBS, parse_knobs
from .model import SimModel
from .policy import FirstAccepting, Policy
from .tokens import TokenCounter
from .validate import prepare

SERVER_OPTIONS = {"slow_s": float, "require_api_key": str, "disconnect_rate": float, "slow_rate": float,
                  "malformed_rate": float, "max_body_bytes": int, "max_batch_body_bytes": int,
                  "read_timeout_s": float, "rate_limit_rpm": float, "rate_limit_itpm": float,
                  "rate_limit_otpm": float, **BATCH_OPTIONS}
DEFAULT_SLOW_S = 10.0
MAX_STREAMS = 4096  # forks kept for the streams clients name (x-wva-stream); the least recently used go first
API_KEY_ENV = "WVA_SIM_API_KEY"  # `wva sim-server` takes require_api_key from here (never shown by `ps`)


class SimServer:
    """`with SimServer(overloaded_rate=1.0) as server: ... server.url ...`"""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, policies: Sequence[Policy] | None = None,
                 slow_s: float = DEFAULT_SLOW_S, require_api_key: str | None = None, disconnect_rate: float = 0.0,
                 slow_rate: float = 0.0, malformed_rate: float = 0.0, max_body_bytes: int = guard.MAX_BODY_BYTES,
                 max_batch_body_bytes: int = MAX_BATCH_BODY_BYTES, read_timeout_s: float = guard.READ_TIMEOUT_S,
                 rate_limit_rpm: float = 0.0, rate_limit_itpm: float = 0.0, rate_limit_otpm: float = 0.0,
                 batch_processing_s: float = DEFAULT_PROCESSING_S, batch_error_rate: float = 0.0,
                 batch_expire_rate: float = 0.0, **sim_knobs: Any) -> None:
        if slow_s < 0:
            raise ValueError(f"slow_s must be >= 0, got {slow_s!r}")
        if min(max_body_bytes, max_batch_body_bytes) < 1:
            raise ValueError(f"max_body_bytes and max_batch_body_bytes must be >= 1, got {max_body_bytes!r} and "
                             f"{max_batch_body_bytes!r}")
        self.max_body_bytes, self.max_batch_body_bytes = max_body_bytes, max_batch_body_bytes
        self.account = ratelimit.Account(rate_limit_rpm, rate_limit_itpm, rate_limit_otpm)  # 0: no limit
        self.deadlines = guard.Deadlines(read_timeout_s)
        self.host, self.port = host, port
        self.policies: list[Policy] = list(policies or [])  # append later to register a task family
        self.model = SimModel(FirstAccepting(self.policies, fallback=GenericPolicy()), **sim_knobs)
        self.model.tokens = TokenCounter(4096)  # every request brings fresh dicts: keep the cache small
        self.model.prompt_cache.keep_wall_time()  # each request runs at virtual time 0 in its own event loop
        self.network = netfaults.NetworkFaults(self.model.seed, disconnect_rate=disconnect_rate,
                                               slow_rate=slow_rate, malformed_rate=malformed_rate)
        self.slow_s = slow_s
        self.batches = Batches(self, batch_processing_s, batch_error_rate, batch_expire_rate)  # batches.py
        self.abandoned = 0  # slow replies not sent: the client had given up (closed the connection)
        self._api_key = require_api_key
        self._stopping = threading.Event()
        self._local = threading.local()  # the connection of the request a handler thread is answering
        self._count_lock = threading.Lock()
        self._forks: dict[str, SimModel] = {}  # a simulator per stream (`model_for`)
        self._httpd: HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("SimServer is not started")
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    def start(self) -> SimServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = HTTPServer((self.host, self.port), self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="sim-server", daemon=True)  # a short poll: stop() is quick
        self._thread.start()
        return self

    @property
    def loopback(self) -> bool:
        """Whether the address listened on is reachable from this machine only."""
        host = str(self._httpd.server_address[0]) if self._httpd is not None else self.host
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return host == "localhost"

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers waiting out a slow reply
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def faults_injected(self) -> dict[str, int]:
        """Faults injected so far, by the SDK exception the client sees for each: the model's
        (`RateLimitError`, `OverloadedError`, `InternalServerError`, `APITimeoutError`) plus the
        network's (`APIConnectionError`, `APITimeoutError`, `APIResponseValidationError`). A
        timeout or slow reply is an `APITimeoutError` only for a client whose timeout is below `slow_s`."""
        out = dict(self.model.faults_injected)
        for kind, n in self.network.counts.items():
            name = netfaults.FAULT_ERRORS[kind]
            out[name] = out.get(name, 0) + n
        return out

    def wait_slow(self) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        """Wait `slow_s`; None if the client still waits for its answer, else what to reply instead:
        a 500 if the server is stopping, `CLIENT_GONE` (nothing is sent) if the client gave up."""
        if self._stopping.wait(self.slow_s):
            return error_reply(faults.server_error())
        connection = getattr(self._local, "connection", None)
        if connection is not None and netfaults.peer_closed(connection):
            with self._count_lock:
                self.abandoned += 1
            return CLIENT_GONE, {}, {}
        return None

    def authorised(self, headers: Any) -> bool:
        if self._api_key is None:
            return True
        bearer = str(headers.get("authorization") or "")
        given = str(headers.get("x-api-key") or (bearer[7:] if bearer.lower().startswith("bearer ") else ""))
        return hmac.compare_digest(given.encode(), self._api_key.encode())

    def model_for(self, stream: str | None) -> SimModel:
        """The simulator a request is answered by: a fork of its own for each stream a client names (the
        `x-wva-stream` header: one per trial, as `wva bench` forks in process), else the one shared model."""
        if not stream:
            return self.model
        with self._count_lock:
            fork = self._forks.pop(stream, None)
            if fork is None:
                fork = self.model.fork(stream, tally=True)
                fork.prompt_cache.keep_wall_time()  # a fork's cache is new: on wall time too, or it never reads
            self._forks[stream] = fork  # most recently used last; the oldest streams are forgotten
            while len(self._forks) > MAX_STREAMS:
                self._forks.pop(next(iter(self._forks)))
        return fork

    def respond(self, params: dict[str, Any], stream: str | None = None, *,
                openai: bool = False) -> tuple[int, dict[str, Any], dict[str, str]]:
        """`answer`, through the account's rate limits when it has any (`patterns.sim.ratelimit`), with their
        headers (the OpenAI family's on the chat-completions path, where the limits are OpenAI's)."""
        if not self.account.active:
            return self.answer(params, stream)
        refused, taken = self.account.admit(params, self._prompt_tokens(params, stream, cached=not openai),
                                            openai=openai)
        status, body, headers = error_reply(refused) if refused is not None else self.answer(params, stream)
        if refused is None:
            usage = (body.get("usage") or {}) if status == 200 else {}
            counted = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens"))
            self.account.settle(taken, counted, int(usage.get("output_tokens") or 0))  # cache reads: not counted
        return status, body, {**headers, **self.account.headers(openai=openai)}

    def _prompt_tokens(self, params: dict[str, Any], stream: str | None = None, *, cached: bool = True) -> int | None:
        """The request's prompt tokens as the simulator counts them (the API knows its count at admission too), less
        what its stream's prompt cache would read now when `cached` (cache reads do not count toward the
        input-token limit); None for a request it would refuse anyway."""
        try:
            plain, layout = split(params)
            call = prepare(plain)
        except anthropic.APIStatusError:
            return None
        model = self.model_for(stream)
        total = model.tokens.count_request(system=call.system, tools=call.tools, messages=call.messages)
        return total - model.prompt_cache.peek(call, layout, model.tokens) if cached else total

    def answer(self, params: dict[str, Any], stream: str | None = None, *,
               inject_faults: bool = True) -> tuple[int, dict[str, Any], dict[str, str]]:
        """(status, JSON body, headers) for one request's parameters (on its stream's simulator); a batch's
        requests are answered without the model's transient faults (`patterns.sim.batches`)."""
        model = self.model_for(stream)
        try:
            message = asyncio.run(model.generate(params, inject_faults=inject_faults))
        except anthropic.APITimeoutError:
            instead = self.wait_slow()  # never generate a reply nobody reads: it would move the model's counters
            if instead is not None:
                return instead
            message = asyncio.run(model.generate(params, inject_faults=False))
        except anthropic.APIStatusError as exc:
            return error_reply(exc)
        return 200, message.model_dump(mode="json", exclude_unset=True), {"request-id": f"req_{message.id}"}


def serve(host: str = "127.0.0.1", port: int = 0, *, policies: Sequence[Policy] | None = None,
          **options: Any) -> SimServer:
    """A started SimServer (stop it with `.stop()`)."""
    return SimServer(host, port, policies=policies, **options).start()


def typed_knobs(knobs: dict[str, Any]) -> dict[str, Any]:
    """Knob and option values, converting the ones given as text."""
    out: dict[str, Any] = {}
    for name, value in knobs.items():
        if name in SERVER_OPTIONS:
            out[name] = SERVER_OPTIONS[name](value)
        elif isinstance(value, str) and name in KNOBS and KNOBS[name][0] is not str:
            out.update(parse_knobs({name: value}))
        else:
            out[name] = value
    return out
