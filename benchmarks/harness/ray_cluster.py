"""Connecting to a Ray cluster for `wva bench --executor ray`: within a time limit, or one clear line.

- No `--address` (and no `RAY_ADDRESS`): a local Ray instance is started in this process.
- `--address HOST:PORT`, `ray://HOST:PORT` (Ray Client) or `auto` (the cluster `ray start` left on this
  machine, or `RAY_ADDRESS`): first a TCP connection to HOST:PORT (`REACH_S`), then a trial connection
  in a throwaway process, killed after `CONNECT_S`: Ray itself retries a dead or foreign address for
  minutes, and writes a line per retry on stderr. Only when that succeeds does this process connect.

Every failure is a `ClusterError` whose `exit_status` is 2 (nothing has run, nothing is written: no
cluster, an address that does not answer, a missing or wrong token, a `ray://` address without Ray
Client); a cluster lost mid-run is status 1 and `resumable` (the finished trials are kept).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import subprocess
import sys
from typing import Any
from urllib.parse import urlsplit

REACH_S = 5.0
CONNECT_S = 15.0
TOKEN_HINT = ("if the cluster uses token authentication (Ray's default for local clusters since 2.59), set "
              "RAY_AUTH_MODE=token here and give its token: RAY_AUTH_TOKEN, or the file ~/.ray/auth_token "
              "(`ray get-auth-token` on the head prints it)")
START_HINT = "start one with `ray start --head` and pass the address it prints (HOST:6379)"


class ClusterError(RuntimeError):
    """A Ray cluster that cannot be used; `exit_status` and `resumable` tell the command line what to do."""

    def __init__(self, message: str, *, exit_status: int = 2, resumable: bool = False) -> None:
        super().__init__(message)
        self.exit_status = exit_status
        self.resumable = resumable


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ClusterError("--executor ray needs Ray: pip install 'workflow-vs-agent[ray]'") from None
    return ray


def shown(address: str | None) -> str:
    """The address as the manifest and messages show it: no user, password or token, no query."""
    if not address:
        return "local"
    if "://" not in address:
        return address
    parts = urlsplit(address)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"


def effective(address: str | None) -> str | None:
    """The address Ray will use: `RAY_ADDRESS` stands in for none or `auto`, as in `ray.init`."""
    if address in (None, "", "auto"):
        return os.environ.get("RAY_ADDRESS") or address or None
    return address


def connect(address: str | None) -> bool:
    """Connect this process to the cluster (see the module's docstring); True if it connected now."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    target = effective(address)
    if target is not None:
        if target.startswith("ray://") and importlib.util.find_spec("grpc") is None:
            raise ClusterError(f"--address {shown(target)} goes through Ray Client, which is not installed: "
                               "pip install 'workflow-vs-agent[ray]' (it brings ray[client]), or give the "
                               "cluster's HOST:6379 address")
        if target != "auto":
            _reach(target)
        _probe(address)
    try:
        ray.init(address=address or None, log_to_driver=False, logging_level=logging.ERROR)
    except Exception as exc:  # the probe passed: a race with the cluster's end, or a bug of Ray's
        raise ClusterError(f"cannot connect to the Ray cluster at {shown(target)}: {_last_line(str(exc))}") from None
    return True


def _reach(target: str) -> None:
    host, _, port = target.split("://", 1)[-1].rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise ClusterError(f"--address {target!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        socket.create_connection((host, int(port)), timeout=REACH_S).close()
    except TimeoutError:
        raise ClusterError(f"no answer from the Ray cluster at {shown(target)} within {REACH_S:g} s: is the "
                           f"address right and the port open? ({START_HINT})") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterError(f"cannot reach the Ray cluster at {shown(target)} ({reason.lower()}): is it running? "
                           f"({START_HINT})") from None


PROBE = """import logging, sys
import ray
try:
    ray.init(address=sys.argv[1] or None, log_to_driver=False, logging_level=logging.ERROR)
except BaseException as exc:
    print(f"wva-probe: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    sys.exit(3)
"""


def _probe(address: str | None) -> None:
    """A trial connection in a throwaway process: it cannot hang this one, and its stderr says why it failed."""
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, address or ""], capture_output=True, text=True,
                              timeout=CONNECT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        said = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        raise ClusterError(reason(address, said, timed_out=True)) from None
    if done.returncode != 0:
        raise ClusterError(reason(address, done.stderr, timed_out=False))


def reason(address: str | None, stderr: str, *, timed_out: bool) -> str:
    """One line saying why a connection failed, from what Ray wrote while it tried."""
    where = shown(effective(address))
    if "Could not find any running Ray instance" in stderr:
        return f"no Ray cluster is running on this machine for --address auto: {START_HINT}"
    if any(word in stderr for word in ("InvalidAuthToken", "AuthenticationError", "Unauthenticated")):
        return f"the Ray cluster at {where} refused this connection's token: {TOKEN_HINT}"
    if timed_out:
        return (f"no Ray cluster answered at {where} within {CONNECT_S:g} s: is it a Ray cluster's address "
                f"(HOST:6379, or ray://HOST:10001 with Ray Client)? {TOKEN_HINT}")
    said = [line for line in stderr.splitlines() if line.startswith("wva-probe: ")]
    why = said[-1].removeprefix("wva-probe: ") if said else _last_line(stderr)
    return f"cannot connect to the Ray cluster at {where}: {why}; {TOKEN_HINT}"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no reason given"


def cluster_facts(ray: Any, address: str | None, workers: int) -> dict[str, Any]:
    """What the manifest records of a Ray run: the executor's address (no token), its nodes and tasks at once."""
    nodes = sum(1 for node in ray.nodes() if node.get("Alive", node.get("alive")))
    cpus = int(ray.cluster_resources().get("CPU", 0))
    return {"workers": workers, "ray": {"address": shown(effective(address)), "nodes": nodes, "cpus": cpus}}
