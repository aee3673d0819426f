"""The network's faults, as the sim server injects them, and what the official SDK raises for each.

A status fault (429, 529, 500) is an answer; these are not: the connection or the body is broken.
Each is a server knob, a per-request probability in [0, 1] (their sum at most 1), drawn before
the model is asked, so a request hit by one never reaches the policy and its retry gets the
decision it would have had without the fault (as with SimModel's own faults).

- `disconnect_rate`: the server sends a 200's status line, headers announcing the whole body and
  part of the body, then closes the connection. SDK: `anthropic.APIConnectionError` ("Connection
  error."), its `__cause__` the HTTP library's `RemoteProtocolError` ("peer closed connection
  without sending complete message body").
- `slow_rate`: the server waits `slow_s` before answering, and answers only if the client is still
  waiting. SDK: `anthropic.APITimeoutError` (cause: `ReadTimeout`) when `slow_s` is longer than the
  client's timeout; otherwise just a late reply.
- `malformed_rate`: a 200 whose body is not JSON, half the time cut-off JSON sent as
  `application/json`, half the time a proxy's HTML page sent as `text/html`. SDK: for the first,
  `json.JSONDecodeError` — a `ValueError`, NOT an `anthropic.APIError`, so an `except APIError`
  (and a retry policy) never sees it; for the second no error at all: `messages.create` returns
  the body as a `str`.

`AnthropicModel.create` turns both malformed cases into `anthropic.APIResponseValidationError`,
which the retry policy retries (see `patterns.retry`). `FAULT_ERRORS` names the exception the
client records for each kind, so a server's count can be compared with a run's `error_type`s.
Draws are seeded: sha256(seed, a digest of the request body, n), n counting the requests with
that same body, so they do not depend on the order in which concurrent requests arrive.
"""

from __future__ import annotations

import hashlib
import json
import random
import select
import socket
import threading
from typing import Any

DISCONNECT, SLOW, MALFORMED = "disconnect", "slow", "malformed"
RATES = {"disconnect_rate": DISCONNECT, "slow_rate": SLOW, "malformed_rate": MALFORMED}
FAULT_ERRORS = {DISCONNECT: "APIConnectionError", SLOW: "APITimeoutError", MALFORMED: "APIResponseValidationError"}

_CUT_JSON = b'{"id": "msg_sim_malformed", "type": "message", "role": "assistant", "content": [{"type": "te'
_PROXY_PAGE = (b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
               b"</center><hr><center>sim-proxy</center></body></html>\n")


class NetworkFaults:
    """Seeded draws of the network faults, and how many of each were injected (`counts`)."""

    def __init__(self, seed: int = 0, *, disconnect_rate: float = 0.0, slow_rate: float = 0.0,
                 malformed_rate: float = 0.0) -> None:
        given = {"disconnect_rate": disconnect_rate, "slow_rate": slow_rate, "malformed_rate": malformed_rate}
        for name, rate in given.items():
            if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be a number in [0, 1], got {rate!r}")
        if sum(given.values()) > 1.0 + 1e-9:
            raise ValueError("disconnect_rate + slow_rate + malformed_rate must not exceed 1")
        self.seed = seed
        self.rates = {RATES[name]: float(rate) for name, rate in given.items()}
        self.counts: dict[str, int] = dict.fromkeys(self.rates, 0)
        self._seen: dict[bytes, int] = {}
        self._lock = threading.Lock()

    def draw(self, body: bytes) -> tuple[str | None, random.Random]:
        """The fault for one request (or None) and a random stream for the details of serving it."""
        digest = hashlib.sha256(body).digest()
        with self._lock:
            n = self._seen.get(digest, 0)
            self._seen[digest] = n + 1
        key = f"{self.seed}|net|{n}|".encode() + digest
        rng = random.Random(int(hashlib.sha256(key).hexdigest()[:32], 16))
        u = rng.random()
        for kind, rate in self.rates.items():
            if u < rate:
                with self._lock:
                    self.counts[kind] += 1
                return kind, rng
            u -= rate
        return None, rng


def disconnect_bytes(rng: random.Random) -> bytes:
    """A 200's status line and headers announcing the whole body, then only part of the body."""
    body = json.dumps({"id": "msg_sim_cut", "type": "message", "role": "assistant",
                       "content": [{"type": "text", "text": "cut " * 40}], "stop_reason": "end_turn"}).encode()
    head = (f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: keep-alive\r\n\r\n").encode()
    return head + body[: rng.randrange(0, len(body) // 2)]


def cut(sock: socket.socket, rng: random.Random) -> None:
    """Send `disconnect_bytes` on `sock`, then shut the connection down."""
    try:
        sock.sendall(disconnect_bytes(rng))
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # the client is already gone: nothing more to cut
        pass


def malformed_reply(rng: random.Random) -> tuple[bytes, str]:
    """(body, content-type) of a 200 that is not JSON: cut-off JSON, or a proxy's HTML page."""
    if rng.random() < 0.5:
        return _CUT_JSON, "application/json"
    return _PROXY_PAGE, "text/html"


def peer_closed(sock: Any) -> bool:
    """True when the client has closed its end of the connection (it gave up waiting)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):  # reset, or already closed
        return True
