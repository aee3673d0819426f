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
`GenericPolicy`. `patterns` knows no task family: `wva sim-server` (benchmarks/commands/sim_server.py,
the command line) passes the benchmark's families' policies in.

The server never logs or echoes the `x-api-key` / `authorization` headers: it logs only the
request line and the status, at DEBUG level, to the `patterns.sim.server` logger.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic

from . import chat_wire, faults, netfaults
from .generic import GenericPolicy
from .knobs import KNOBS, parse_knobs
from .model import SimModel
from .policy import FirstAccepting, Policy
from .tokens import TokenCounter

log = logging.getLogger(__name__)
SERVER_OPTIONS = {"slow_s": float, "require_api_key": str, "disconnect_rate": float, "slow_rate": float,
                  "malformed_rate": float}
DEFAULT_SLOW_S = 10.0
CLIENT_GONE = 499  # the status `answer` gives a reply nobody waits for any more (it is never sent)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops the SYNs of a burst of connections: a 1 s stall, a client timeout


class SimServer:
    """`with SimServer(overloaded_rate=1.0) as server: ... server.url ...`"""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, policies: Sequence[Policy] | None = None,
                 slow_s: float = DEFAULT_SLOW_S, require_api_key: str | None = None, disconnect_rate: float = 0.0,
                 slow_rate: float = 0.0, malformed_rate: float = 0.0, **sim_knobs: Any) -> None:
        if slow_s < 0:
            raise ValueError(f"slow_s must be >= 0, got {slow_s!r}")
        self.host, self.port = host, port
        self.policies: list[Policy] = list(policies or [])  # append later to register a task family
        self.model = SimModel(FirstAccepting(self.policies, fallback=GenericPolicy()), **sim_knobs)
        self.model.tokens = TokenCounter(4096)  # every request brings fresh dicts: keep the cache small
        self.model.prompt_cache.keep_wall_time()  # each request runs at virtual time 0 in its own event loop
        self.network = netfaults.NetworkFaults(self.model.seed, disconnect_rate=disconnect_rate,
                                               slow_rate=slow_rate, malformed_rate=malformed_rate)
        self.slow_s = slow_s
        self.abandoned = 0  # slow replies not sent: the client had given up (closed the connection)
        self._api_key = require_api_key
        self._stopping = threading.Event()
        self._local = threading.local()  # the connection of the request a handler thread is answering
        self._count_lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
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
        self._httpd = _HTTPServer((self.host, self.port), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="sim-server", daemon=True)  # a short poll: stop() is quick
        self._thread.start()
        return self

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
            return _error_reply(faults.server_error())
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

    def answer(self, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """(status, JSON body, headers) for one request's parameters."""
        try:
            message = asyncio.run(self.model.generate(params))
        except anthropic.APITimeoutError:
            instead = self.wait_slow()  # never generate a reply nobody reads: it would move the model's counters
            if instead is not None:
                return instead
            message = asyncio.run(self.model.generate(params, inject_faults=False))
        except anthropic.APIStatusError as exc:
            return _error_reply(exc)
        return 200, message.model_dump(mode="json", exclude_unset=True), {"request-id": f"req_{message.id}"}


def _error_reply(exc: anthropic.APIStatusError) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {k: v for k, v in exc.response.headers.items() if k in ("retry-after", "request-id")}
    body = exc.body if isinstance(exc.body, dict) else faults.error_body("api_error", str(exc))
    return exc.status_code, body, headers


def _request_params(server: SimServer, path: str, headers: Any,
                    raw: bytes) -> dict[str, Any] | anthropic.APIStatusError:
    """The request's Messages API params, or the error the API would answer it with."""
    if path.split("?")[0] not in ("/v1/messages", chat_wire.PATH):
        return faults.not_found()
    if not server.authorised(headers):
        return faults.authentication_failed()
    try:
        params = chat_wire.request(path, json.loads(raw or b"null"))
    except ValueError:
        params = None
    if not isinstance(params, dict):
        return faults.invalid_request("There was an error parsing the body of your request")
    if not isinstance(params.get("model"), str):
        return faults.invalid_request("model: Field required")
    return params


def _handler_for(server: SimServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's connection pool expects
        disable_nagle_algorithm = True  # TCP_NODELAY: else headers, then body, wait ~40 ms for a delayed ACK

        def log_message(self, format: str, *args: Any) -> None:  # the request line only, never headers
            log.debug("%s " + format, self.address_string(), *args)

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            if status == CLIENT_GONE:
                self.close_connection = True
                return
            self._send_bytes(*chat_wire.reply(self.path, status, body, headers))  # as it is but on the chat path

        def _send_bytes(self, status: int, data: bytes, content_type: str,
                        headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                self.close_connection = True

        def _send_error(self, exc: anthropic.APIStatusError) -> None:
            self._send(*_error_reply(exc))

        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/health":
                self._send(200, {"status": "ok"})
            else:
                self._send_error(faults.not_found())

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
            params = _request_params(server, self.path, self.headers, raw)
            if isinstance(params, anthropic.APIStatusError):
                return self._send_error(params)
            server._local.connection = self.connection
            fault, rng = server.network.draw(raw)
            if fault == netfaults.DISCONNECT:
                self.close_connection = True
                self.log_request("200-cut")
                return netfaults.cut(self.connection, rng)
            if fault == netfaults.MALFORMED:
                return self._send_bytes(200, *netfaults.malformed_reply(rng))
            if fault == netfaults.SLOW and (instead := server.wait_slow()) is not None:
                return self._send(*instead)
            try:
                self._send(*server.answer(params))
            except Exception:  # a policy's bug: a 500 for the client, the traceback for the log
                log.exception("sim server: the simulated model failed")
                self._send_error(faults.server_error())
            return None

    return Handler


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
