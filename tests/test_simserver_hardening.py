"""The sim server hardened like a real endpoint: body limit (413), bad Content-Length (400), read deadlines,
a warning off loopback, and the API key from the environment.

The malformed requests no SDK can send go through a raw socket; the rest through `http.client`.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from patterns.sim.server import SimServer

from .fake_loop import TimedWaits

ROOT = Path(__file__).resolve().parent.parent
BODY = json.dumps({"model": "sim", "max_tokens": 32, "messages": [{"role": "user", "content": "hi"}]}).encode()

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(max_body_bytes=4096, read_timeout_s=0.5) as s:
        yield s


def address(server: SimServer) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port)


def raw_exchange(server: SimServer, head: bytes, body: bytes = b"", wait_s: float = 5.0) -> tuple[int, dict[str, Any],
                                                                                                   bool]:
    """(status, JSON body, whether the server then closed the connection) for bytes sent as they are."""
    with socket.create_connection(address(server), timeout=wait_s) as sock:
        sock.sendall(head + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, "the server closed the connection without a reply"
            data += chunk
        headers, _, rest = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"content-length: (\d+)", headers, re.I).group(1))
        while len(rest) < length:
            rest += sock.recv(65536)
        closed = sock.recv(1) == b""
    return int(headers.split()[1]), json.loads(rest[:length]), closed


def post_head(length: str, path: str = "/v1/messages", extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n{extra}\r\n").encode()


def healthy(server: SimServer) -> bool:
    conn = http.client.HTTPConnection(*address(server), timeout=5)
    conn.request("POST", "/v1/messages", body=BODY, headers={"content-type": "application/json"})
    ok = conn.getresponse().status == 200
    conn.close()
    return ok


# --- body size ---------------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_a_413_before_the_body_is_read(server: SimServer) -> None:
    # 100 MB announced and none sent: a server that waited for the body would cut the idle connection, never 413
    status, body, closed = raw_exchange(server, post_head(str(100 * 1024 * 1024)))
    assert status == 413 and body["error"]["type"] == "request_too_large" and closed
    assert healthy(server)


def test_a_body_over_the_limit_is_a_413_through_http_client_on_both_wires(server: SimServer) -> None:
    for path, shape in (("/v1/messages", lambda b: b["error"]["type"]),
                        ("/v1/chat/completions", lambda b: b["error"]["type"])):
        conn = http.client.HTTPConnection(*address(server), timeout=5)
        conn.request("POST", path, body=b"x" * 5000, headers={"content-type": "application/json"})
        response = conn.getresponse()
        assert response.status == 413 and shape(json.loads(response.read())) == "request_too_large"
        conn.close()
    assert healthy(server)


def test_the_default_limit_is_the_messages_api_s_32_mib() -> None:
    with SimServer() as default:
        assert default.max_body_bytes == 32 * 1024 * 1024
        assert raw_exchange(default, post_head(str(32 * 1024 * 1024 + 1)))[0] == 413


# --- Content-Length ----------------------------------------------------------------------------------


@pytest.mark.parametrize("length", ["abc", "-1", "12abc", "1_000", "", " "])
def test_a_bad_content_length_is_a_400_and_the_server_lives_on(server: SimServer, length: str) -> None:
    status, body, closed = raw_exchange(server, post_head(length), BODY)
    assert status == 400 and body["error"]["type"] == "invalid_request_error" and closed
    assert "Content-Length" in body["error"]["message"]
    assert healthy(server)


def test_two_different_content_lengths_are_a_400(server: SimServer) -> None:
    status, _, closed = raw_exchange(server, post_head(str(len(BODY)), extra="Content-Length: 3\r\n"), BODY)
    assert status == 400 and closed


def test_a_chunked_body_is_a_411(server: SimServer) -> None:
    head = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    status, _, closed = raw_exchange(server, head, b"5\r\nhello\r\n0\r\n\r\n")
    assert status == 411 and closed


def test_a_good_request_on_a_raw_socket_is_answered(server: SimServer) -> None:
    status, body, _ = raw_exchange(server, post_head(str(len(BODY))), BODY)
    assert status == 200 and body["type"] == "message"


# --- read deadlines ----------------------------------------------------------------------------------


def threads_settle(target: int, within_s: float) -> int:
    deadline = time.monotonic() + within_s
    while threading.active_count() > target and time.monotonic() < deadline:
        time.sleep(0.05)
    return threading.active_count()


def test_300_slow_sockets_are_cut_and_free_their_threads() -> None:
    server = SimServer(read_timeout_s=2.0).start()
    before = threading.active_count()
    socks = []
    for i in range(300):  # half send part of the request line, half part of the body
        sock = socket.create_connection(address(server), timeout=10)
        sock.sendall(b"POST /v1/mess" if i % 2 else post_head("1000") + b"{")
        socks.append(sock)
    assert threading.active_count() > before + 100  # the server really holds a thread for each (for now)
    cut = 0
    for sock in socks:
        try:
            cut += sock.recv(1) == b""  # the server shut the connection: EOF
        except ConnectionResetError:
            cut += 1
        sock.close()
    assert cut == 300 and server.deadlines.expired >= 300
    assert threads_settle(before, 5.0) <= before + 2  # every handler thread has ended
    assert healthy(server)
    server.stop()


def test_a_client_trickling_a_byte_at_a_time_is_cut_too(server: SimServer) -> None:
    sock = socket.create_connection(address(server), timeout=10)
    sent = 0
    with pytest.raises(OSError):  # BrokenPipe / ConnectionReset once the server has shut it
        for byte in post_head("1000") * 10:
            sock.send(bytes([byte]))
            sent += 1
            time.sleep(0.05)  # each byte well within any per-read timeout
    assert sent < 60  # cut long before the head was sent (no stopwatch: a slower machine sends fewer bytes)
    sock.close()


def test_an_idle_keep_alive_connection_is_closed_after_the_timeout(server: SimServer) -> None:
    conn = http.client.HTTPConnection(*address(server), timeout=5)
    conn.request("POST", "/v1/messages", body=BODY, headers={"content-type": "application/json"})
    assert conn.getresponse().read() and conn.sock is not None
    time.sleep(1.0)
    assert conn.sock.recv(1) == b""
    conn.close()


def test_a_slow_reply_is_not_cut_by_the_read_timeout() -> None:
    with SimServer(read_timeout_s=0.3, slow_rate=1.0, slow_s=0.8) as slow:
        slow._stopping = held = TimedWaits(slow._stopping)  # what the reply was held for (no stopwatch)
        assert healthy(slow)
    assert held.waits == [0.8]  # held past the read timeout, and still answered


def test_the_options_are_checked() -> None:
    with pytest.raises(ValueError, match="read_timeout_s"):
        SimServer(read_timeout_s=0)
    with pytest.raises(ValueError, match="max_body_bytes"):
        SimServer(max_body_bytes=0)


# --- off loopback, and the key from the environment ----------------------------------------------------


def test_loopback_is_told_apart() -> None:
    with SimServer() as local:
        assert local.loopback
    with SimServer(host="0.0.0.0") as everywhere:
        assert not everywhere.loopback


def serve_cli(*argv: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    """`wva sim-server` as a user starts it; its stdout and stderr lines arrive on one queue."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "WVA_SIM_"))}
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks", "sim-server", "--port", "0", "--generic-only",
                             *argv], cwd=ROOT, env={**clean, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    return proc, lines


def stopped(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


def first_lines(lines: queue.Queue[str], n: int) -> list[str]:
    return [lines.get(timeout=30) for _ in range(n)]


def test_the_cli_warns_in_one_line_when_bound_beyond_loopback() -> None:
    proc, lines = serve_cli("--host", "0.0.0.0")
    try:
        url, warning = first_lines(lines, 2)
        assert url.startswith("sim server listening on http://0.0.0.0:")
        assert warning.startswith("wva sim-server: warning: listening on 0.0.0.0") and "WVA_SIM_API_KEY" in warning
    finally:
        stopped(proc)
    proc, lines = serve_cli()  # on 127.0.0.1: no warning
    try:
        assert first_lines(lines, 1)[0].startswith("sim server listening on http://127.0.0.1:")
        time.sleep(0.5)
    finally:
        stopped(proc)
    time.sleep(0.2)
    assert "warning" not in "".join(list(lines.queue))


def test_the_cli_takes_the_api_key_from_the_environment() -> None:
    key = "sk-sim-from-env-0123456789"
    proc, lines = serve_cli(env={"WVA_SIM_API_KEY": key})
    try:
        url = first_lines(lines, 1)[0].split()[4]
        assert key not in " ".join(proc.args)  # what `ps` shows
        host, port = url.removeprefix("http://").split(":")
        for given, status in (("wrong", 401), (key, 200)):
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            conn.request("POST", "/v1/messages", body=BODY, headers={"x-api-key": given})
            assert conn.getresponse().status == status
            conn.close()
    finally:
        stopped(proc)
    assert key not in "".join(list(lines.queue))
