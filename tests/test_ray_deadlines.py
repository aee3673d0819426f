"""Connecting to a Ray cluster gives up within 30 s: every wait of `connect` has its own bound, checked on a fake
clock (each faked wait takes the whole of its timeout), so a loaded machine cannot make it fail or pass."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace
from typing import Any

import pytest

from benchmarks.harness import ray_cluster
from benchmarks.harness.ray_cluster import ClusterError, connect

LIMIT_S = 30.0  # the promise: docs/scale-out.md gives the two bounds, 5 s to connect and 15 s to a trial connection


class FakeClock:
    """The waits `connect` makes, each taking all of its timeout; a wait without one is a hang, and fails."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, answers: bool, probe: str) -> None:
        self.now = 0.0
        self.answers, self.probe = answers, probe
        monkeypatch.setattr(ray_cluster, "import_ray", lambda: SimpleNamespace(is_initialized=lambda: False))
        monkeypatch.setattr(ray_cluster.socket, "create_connection", self.create_connection)
        monkeypatch.setattr(ray_cluster.subprocess, "run", self.run)

    def wait(self, timeout: float | None) -> None:
        assert timeout is not None and timeout > 0, "a wait without a timeout can hang for ever"
        self.now += timeout

    def create_connection(self, address: Any, timeout: float | None = None) -> Any:
        if not self.answers:  # a host that drops the packets: the whole timeout passes
            self.wait(timeout)
            raise TimeoutError
        return SimpleNamespace(close=lambda: None)

    def run(self, args: list[str], **kwargs: Any) -> Any:
        if self.probe == "hangs":  # Ray retrying a foreign address for minutes: killed at the timeout
            self.wait(kwargs.get("timeout"))
            raise subprocess.TimeoutExpired(args, kwargs["timeout"], stderr=b"retrying...")
        return subprocess.CompletedProcess(args, 3, "", "wva-probe: AuthenticationError: InvalidAuthToken")


@pytest.mark.parametrize(("answers", "probe", "said"), [
    (False, "refused", "no answer from the Ray cluster at 10.0.0.5:6379 within 5 s"),
    (True, "hangs", "no Ray cluster answered at 10.0.0.5:6379 within 15 s"),
    (True, "refused", "the Ray cluster at 10.0.0.5:6379 refused this connection's token"),
])
def test_a_cluster_that_cannot_be_used_is_one_line_within_30_s(monkeypatch: pytest.MonkeyPatch, answers: bool,
                                                                probe: str, said: str) -> None:
    clock = FakeClock(monkeypatch, answers=answers, probe=probe)
    with pytest.raises(ClusterError) as err:
        connect("10.0.0.5:6379")
    assert str(err.value).startswith(said) and "\n" not in str(err.value) and err.value.exit_status == 2
    assert clock.now <= LIMIT_S  # the fake time every wait took, each the whole of its timeout


def test_the_bounds_add_up_to_less_than_the_promise() -> None:
    """The worst case: the TCP connection answers just before its timeout, then the probe hangs to its own."""
    assert ray_cluster.REACH_S + ray_cluster.CONNECT_S <= LIMIT_S
