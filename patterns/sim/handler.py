"""The sim server's HTTP side: one handler per connection, on a threading server (`server.SimServer` drives it).

A request is checked before its body is read (`guard.py`), then turned into the Messages API's
params (either wire, `chat_wire.py`), then answered by the `SimServer`: by the network's faults
(`netfaults.py`) or by the simulated model. It logs only the request line and the status, at DEBUG
level, to the `patterns.sim.server` logger: never a header (an API key could be in one).

Every reply the server writes carries a `request-id` header (`req_...`), as every API response does (the
API's errors page), successes, errors, 429s and batch replies alike, and an error body carries the same id
as `request_id` (the API's error shape: `{"type": "error", "error": {"type", "message"}, "request_id"}`).
Only the network's faults (a cut connection, a proxy's page) have none: no API wrote them.
"""

from __future__ import annotations

import json
import logging
import secrets
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic

from ..model import STREAM_HEADER
from . import batches, chat_wire, faults, guard, netfaults

log = logging.getLogger("patterns.sim.server")
CLIENT_GONE = 499  # the status `answer` gives a reply nobody waits for any more (it is never sent)


class HTTPServer(ThreadingHTTPServer):
    """The listening socket and its threads; `sim` is the `SimServer` that answers."""

    daemon_threads = True
    request_queue_size = 128  # the default 5 drops the SYNs of a burst of connections: a 1 s stall, a client timeout

    def __init__(self, address: tuple[str, int], sim: Any) -> None:
        self.sim = sim
        super().__init__(address, Handler)

    def service_actions(self) -> None:  # serve_forever calls it at every poll (50 ms): cut the late readers
        self.sim.deadlines.expire()


def error_reply(exc: anthropic.APIStatusError) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {k: v for k, v in exc.response.headers.items() if k in ("retry-after", "request-id")}
    body = exc.body if isinstance(exc.body, dict) else faults.error_body("api_error", str(exc))
    return exc.status_code, body, headers


def stamped(headers: dict[str, str] | None) -> dict[str, str]:
    """The headers with a `request-id`: the reply's own (a Message's) or a new one."""
    out = dict(headers or {})
    out.setdefault("request-id", f"req_{secrets.token_hex(12)}")
    return out


def request_params(sim: Any, path: str, headers: Any, raw: bytes) -> dict[str, Any] | anthropic.APIStatusError:
    """The request's Messages API params, or the error the API would answer it with."""
    if path.split("?")[0] not in ("/v1/messages", chat_wire.PATH):
        return faults.not_found()
    if not sim.authorised(headers):
        return faults.authentication_failed()
    try:
        params = chat_wire.request(path, json.loads(raw or b"null"))
    except anthropic.APIStatusError as exc:  # a chat-completions parameter OpenAI would refuse
        return exc
    except (ValueError, RecursionError):  # RecursionError: a body nested deeper than the parser goes ([[[[...)
        params = None
    if not isinstance(params, dict):
        return faults.invalid_request("There was an error parsing the body of your request")
    if not isinstance(params.get("model"), str):
        return faults.invalid_request("model: Field required")
    return params


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's connection pool expects
    disable_nagle_algorithm = True  # TCP_NODELAY: else headers, then body, wait ~40 ms for a delayed ACK
    server: HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # the request line only, never headers
        log.debug("%s " + format, self.address_string(), *args)

    def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        if status == CLIENT_GONE:
            self.close_connection = True
            return
        headers = stamped(headers)
        if body.get("type") == "error":
            body = {**body, "request_id": headers["request-id"]}
        self._send_bytes(*chat_wire.reply(self.path, status, body, headers))  # as it is but on the chat path

    def _send_bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
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
        self._send(*error_reply(exc))

    def handle_one_request(self) -> None:  # a deadline for the whole request, idle wait included (guard.py)
        self.server.sim.deadlines.reading(self.connection)
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):  # cut for being too slow, or the client left: no reply
            self.close_connection = True
        finally:
            self.server.sim.deadlines.done(self.connection)

    def do_GET(self) -> None:
        self.server.sim.deadlines.done(self.connection)
        if self.path.split("?")[0] == "/health":
            self._send(200, {"status": "ok"})
        elif self.path.startswith(batches.PREFIX):
            self._batch("GET", b"")
        else:
            self._send_error(faults.not_found())

    def _batch(self, method: str, raw: bytes) -> None:
        """The Message Batches endpoints (`patterns.sim.batches`): no network faults, no rate limits."""
        sim = self.server.sim
        reply = sim.batches.handle(method, self.path, self.headers, raw) if sim.authorised(self.headers) \
            else faults.authentication_failed()
        if isinstance(reply, anthropic.APIStatusError):
            return self._send_error(reply)
        status, body, headers = reply
        if isinstance(body, bytes):
            return self._send_bytes(status, body, headers.pop("content-type"), stamped(headers))
        return self._send(status, body, headers)

    def do_DELETE(self) -> None:
        self.server.sim.deadlines.done(self.connection)
        if self.path.startswith(batches.PREFIX):
            self._batch("DELETE", b"")
        else:
            self._send_error(faults.not_found())

    def do_POST(self) -> None:
        sim = self.server.sim
        limit = sim.max_batch_body_bytes if self.path.startswith(batches.PREFIX) else sim.max_body_bytes
        length = guard.body_length(self.headers, limit)  # before a byte of the body is read
        if isinstance(length, anthropic.APIStatusError):
            self.close_connection = True  # the body is left unread: the connection cannot carry another request
            return self._send_error(length)
        raw = self.rfile.read(length) if length > 0 else b""
        sim.deadlines.done(self.connection)  # the request is in: answering it is not reading it
        if len(raw) < length:  # the client went away, or was cut for being too slow
            self.close_connection = True
            return None
        if self.path.startswith(batches.PREFIX):
            return self._batch("POST", raw)
        params = request_params(sim, self.path, self.headers, raw)
        if isinstance(params, anthropic.APIStatusError):
            return self._send_error(params)
        sim._local.connection = self.connection
        fault, rng = sim.network.draw(raw)
        if fault == netfaults.DISCONNECT:
            self.close_connection = True
            self.log_request("200-cut")
            return netfaults.cut(self.connection, rng)
        if fault == netfaults.MALFORMED:
            return self._send_bytes(200, *netfaults.malformed_reply(rng))
        if fault == netfaults.SLOW and (instead := sim.wait_slow()) is not None:
            return self._send(*instead)
        try:
            self._send(*sim.respond(params, self.headers.get(STREAM_HEADER),
                                    openai=self.path.split("?")[0] == chat_wire.PATH))
        except Exception:  # a policy's bug: a 500 for the client, the traceback for the log
            log.exception("sim server: the simulated model failed")
            self._send_error(faults.server_error())
        return None
