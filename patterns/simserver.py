"""The simulated Messages API server: SimModel over HTTP, for any Anthropic client.

`POST /v1/messages` answers with the Message JSON the API sends, or with the API's error bodies
and status codes: 400 `invalid_request_error` (including a conversation the API would reject,
see `patterns.conversation`, and "prompt is too long"), 401 `authentication_error` when the
server requires a key, 429 and 529 with `retry-after`, 500 `api_error`. `GET /health` says ok.
An injected timeout is served as a slow reply: the request is answered `slow_s` seconds late
(set it above the client's timeout to see the client time out). Each request picks the first
of `policies` whose `accepts(request)` is true, falling back to `GenericPolicy`.

The server never logs or echoes the `x-api-key` / `authorization` headers: it logs only the
request line and the status, at DEBUG level, to the `patterns.simserver` logger.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import logging
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic

from .sim import faults
from .sim.generic import GenericPolicy
from .sim.knobs import KNOBS, parse_knobs
from .sim.model import SimModel
from .sim.policy import FirstAccepting, Policy
from .sim.tokens import TokenCounter

log = logging.getLogger("patterns.simserver")
SERVER_OPTIONS = {"slow_s": float, "require_api_key": str}
DEFAULT_SLOW_S = 10.0


class SimServer:
    """`with SimServer(overloaded_rate=1.0) as server: ... server.url ...`"""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, policies: Sequence[Policy] | None = None,
                 slow_s: float = DEFAULT_SLOW_S, require_api_key: str | None = None, **sim_knobs: Any) -> None:
        if slow_s < 0:
            raise ValueError(f"slow_s must be >= 0, got {slow_s!r}")
        self.host, self.port = host, port
        self.policies: list[Policy] = list(policies or [])  # append later to register a task family
        self.model = SimModel(FirstAccepting(self.policies, fallback=GenericPolicy()), **sim_knobs)
        self.model.tokens = TokenCounter(4096)  # every request brings fresh dicts: keep the cache small
        self.slow_s = slow_s
        self._api_key = require_api_key
        self._stopping = threading.Event()
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
        self._httpd = ThreadingHTTPServer((self.host, self.port), _handler_for(self))
        self._httpd.daemon_threads = True
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
            if self._stopping.wait(self.slow_s):
                return _error_reply(faults.server_error())
            message = asyncio.run(self.model.generate(params, inject_faults=False))
        except anthropic.APIStatusError as exc:
            return _error_reply(exc)
        return 200, message.model_dump(mode="json", exclude_unset=True), {"request-id": f"req_{message.id}"}


def _error_reply(exc: anthropic.APIStatusError) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {k: v for k, v in exc.response.headers.items() if k in ("retry-after", "request-id")}
    body = exc.body if isinstance(exc.body, dict) else faults.error_body("api_error", str(exc))
    return exc.status_code, body, headers


def _handler_for(server: SimServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's connection pool expects

        def log_message(self, format: str, *args: Any) -> None:  # the request line only, never headers
            log.debug("%s " + format, self.address_string(), *args)

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
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
            if self.path.split("?")[0] != "/v1/messages":
                return self._send_error(faults.not_found())
            if not server.authorised(self.headers):
                return self._send_error(faults.authentication_failed())
            try:
                params = json.loads(raw or b"null")
            except ValueError:
                params = None
            if not isinstance(params, dict):
                return self._send_error(faults.invalid_request("There was an error parsing the body of your request"))
            if not isinstance(params.get("model"), str):
                return self._send_error(faults.invalid_request("model: Field required"))
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


def _typed(knobs: dict[str, Any]) -> dict[str, Any]:
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


def run_server_cli(host: str, port: int, knobs: dict[str, Any]) -> int:
    """Serve until Ctrl-C; `knobs` are SimModel knobs plus the server options `slow_s`, `require_api_key`."""
    server = SimServer(host, port, **_typed(knobs)).start()
    print(f"sim server listening on {server.url}  (export ANTHROPIC_BASE_URL={server.url})", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("sim server stopped", flush=True)
    finally:
        server.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wva sim-server", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--knob", action="append", default=[], metavar="NAME=VALUE",
                        help=f"a SimModel knob ({', '.join(KNOBS)}) or {', '.join(SERVER_OPTIONS)}")
    args = parser.parse_args(argv)
    knobs: dict[str, Any] = {}
    for item in args.knob:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"bad --knob {item!r}: write NAME=VALUE")
        knobs[name.strip()] = value.strip()
    try:
        return run_server_cli(args.host, args.port, knobs)
    except ValueError as exc:  # a bad knob: before anything is served
        parser.error(str(exc))
