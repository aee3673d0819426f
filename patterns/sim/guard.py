"""What the sim server checks before it reads a request, so that no client can take its memory or its threads.

- **Body size.** A request's `Content-Length` is read before its body: over `MAX_BODY_BYTES`
  (32 MiB by default, the Messages API's own limit for a request; server option `max_body_bytes`)
  it is answered 413 `request_too_large`, as the API answers it, without reading a byte of the body.
- **Content-Length.** One that is not a plain non-negative integer (`12abc`, `-1`, two different
  values) is a 400 `invalid_request_error`; a chunked body (no Content-Length) is a 411. Either way
  the connection is closed after the reply: where the body ends cannot be known.
- **Read timeout.** A connection has `READ_TIMEOUT_S` (30 s; server option `read_timeout_s`) to
  deliver a whole request (line, headers and body), counted from when the server starts waiting
  for it, so an idle keep-alive connection is closed after that long too. It is a deadline for the
  whole request, not a timeout per socket read, so a client that sends one byte at a time is cut
  all the same; its connection is shut down and its thread is free. Answering (a `slow_s` reply
  included) is not counted.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from typing import Any

import anthropic

from . import faults

MAX_BODY_BYTES = 32 * 1024 * 1024
READ_TIMEOUT_S = 30.0
_LENGTH = re.compile(r"\d{1,19}")


def body_length(headers: Any, limit: int) -> int | anthropic.APIStatusError:
    """The body's length from the request's headers, or the error to answer instead (413, 400 or 411)."""
    if "chunked" in str(headers.get("transfer-encoding") or "").lower():
        return faults.status_error(411, "invalid_request_error",
                                   "Content-Length required: chunked request bodies are not supported")
    values = {str(v).strip() for v in headers.get_all("content-length") or []}
    if not values:
        return 0
    value = values.pop()
    if values or not _LENGTH.fullmatch(value):
        return faults.invalid_request("Content-Length must be one non-negative integer")
    if int(value) > limit:
        return faults.status_error(413, "request_too_large",
                                   f"Request exceeds the maximum allowed number of bytes ({limit}).")
    return int(value)


class Deadlines:
    """The connections waiting for a request, with when each began; `expire()` shuts down the late ones."""

    def __init__(self, seconds: float) -> None:
        if not seconds > 0:
            raise ValueError(f"read_timeout_s must be > 0, got {seconds!r}")
        self.seconds = seconds
        self.expired = 0  # connections shut down for being too slow, since the start
        self._since: dict[socket.socket, float] = {}
        self._lock = threading.Lock()

    def reading(self, sock: socket.socket) -> None:
        with self._lock:
            self._since[sock] = time.monotonic()

    def done(self, sock: socket.socket) -> None:
        with self._lock:
            self._since.pop(sock, None)

    def expire(self) -> int:
        """Shut down every connection past its deadline (its handler's read returns at once); how many."""
        late_after = time.monotonic() - self.seconds
        with self._lock:
            late = [sock for sock, since in self._since.items() if since < late_after]
            for sock in late:
                del self._since[sock]
            self.expired += len(late)
        for sock in late:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # already closed by its handler
                pass
        return len(late)
