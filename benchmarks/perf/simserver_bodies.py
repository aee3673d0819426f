"""Peak memory of a sim server while clients POST big bodies at once: what `max_body_bytes` bounds.

    .venv/bin/python -m benchmarks.perf.simserver_bodies [--mb 100 30 8] [--clients 4]

For each size, a fresh server runs in a child process (so the clients' own copies of the body are
not counted); `--clients` connections each POST one body of that many MB to /v1/messages at once,
and the child reports its peak RSS (Linux's VmHWM) before and after. A body over the server's limit (32 MiB by
default) is answered 413 before it is read, so it costs the server nothing.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import threading

CHILD = """
import re, sys
from patterns.sim.server import SimServer
def peak_kb():  # VmHWM: ru_maxrss would count the parent's memory at fork, kept across exec on Linux
    return re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)
server = SimServer().start()
print(server.url, peak_kb(), flush=True)
sys.stdin.readline()
print(peak_kb(), flush=True)
"""


def post(host: str, port: int, body: bytes, statuses: list[str]) -> None:
    with socket.create_connection((host, port)) as sock:
        sock.sendall(f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode())
        try:
            sock.sendall(body)
        except OSError:  # a 413 closes the connection before the body is sent
            pass
        statuses.append(sock.recv(64).split()[1].decode())


def measure(mb: int, clients: int) -> str:
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url, before = child.stdout.readline().split()
    host, port = url.removeprefix("http://").split(":")
    text = "word " * (mb * 1024 * 1024 // 5)
    body = json.dumps({"model": "sim", "max_tokens": 16, "messages": [{"role": "user", "content": text}]}).encode()
    statuses: list[str] = []
    threads = [threading.Thread(target=post, args=(host, int(port), body, statuses)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = child.communicate("done\n")[0].split()[0]
    return (f"{clients} x {len(body) / 2**20:6.1f} MiB bodies: answered {'/'.join(sorted(set(statuses)))}, "
            f"server peak RSS {int(before) / 1024:.0f} MB -> {int(after) / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, nargs="+", default=[100, 30, 8])
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    for mb in args.mb:
        print(measure(mb, args.clients), flush=True)


if __name__ == "__main__":
    main()
