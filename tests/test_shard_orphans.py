"""Shards die with the `wva` process: killed alone (not its group), it leaves no process of the run behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.harness import journal

from .conftest import ROOT

TOY = "examples.minimal_family:Capitals"
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")


def live_members(group: int) -> list[int]:
    """Pids of the processes of process group `group` still running (a zombie has ended: it is not counted)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended while we looked
            continue
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state not in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


def gone(group: int, within: float = 10.0) -> bool:
    """Whether every process of `group` has ended within `within` seconds."""
    deadline = time.monotonic() + within
    while live_members(group) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not live_members(group)


def sweep(out: Path) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "benchmarks", "bench", "--tasks", TOY, "--model", "sim:error_rate=0.3",
            "--instances", "200", "--trials", "3", "--out", str(out), "--quiet", "--workers", "2",
            "--concurrency", "2"]
    # its own process group: every process of the run is in it, so the test can see (and clean up) them all
    return subprocess.Popen(args, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def wait_for_trials(out: Path, n: int) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        shards = [p for p in journal.paths(out)[1:] if p.exists()] if out.exists() else []
        if len(shards) == 2 and sum(p.read_bytes().count(b"\n") for p in shards) >= n:
            return
        time.sleep(0.05)
    raise AssertionError("the shards did not start writing")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_wva_alone_leaves_no_process_of_the_run_alive(tmp_path: Path, sig: signal.Signals) -> None:
    out = tmp_path / "out"
    proc = sweep(out)
    try:
        wait_for_trials(out, 20)
        assert len(live_members(proc.pid)) >= 5  # wva, the forkserver, the resource tracker, 2 shards
        os.kill(proc.pid, sig)  # the process alone: its shards, the forkserver and the tracker are not signalled
        proc.wait()
        assert gone(proc.pid, within=10.0), live_members(proc.pid)
        written = sum(p.read_bytes().count(b"\n") for p in journal.paths(out) if p.exists())
        time.sleep(1)  # nothing is still writing
        assert sum(p.read_bytes().count(b"\n") for p in journal.paths(out) if p.exists()) == written < 7 * 200 * 3
    finally:
        for pid in live_members(proc.pid):  # only on failure: what this test started
            os.kill(pid, signal.SIGKILL)
