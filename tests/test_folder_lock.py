"""One sweep at a time per folder: a second run is refused naming the first's pid, and the first finishes intact."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import journal
from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.folder import LOCK, FolderLock

from .conftest import ROOT

TOY = "examples.minimal_family:Capitals"


def test_a_second_run_on_a_live_folder_is_refused_and_the_first_finishes_intact(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "live"
    # 420 trials one at a time: still going through the three refusals (asserted), done in seconds after them
    args = ["bench", "--tasks", TOY, "--instances", "20", "--trials", "3", "--out", str(out), "--quiet",
            "--concurrency", "1", "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen([sys.executable, "-m", "benchmarks", *args], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
            (out / journal.NAME).exists() and (out / journal.NAME).read_bytes().count(b"\n") >= 5):
        time.sleep(0.02)
    assert first.poll() is None, "the first run should still be going"
    for extra in ([], ["--resume"], ["--overwrite"]):
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert f"in use by another wva run (pid {first.pid})" in err and err.count("\n") == 1
    assert first.wait(timeout=120) == 0, first.stderr.read() if first.stderr else ""
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 7 * 20 * 3 and runs["run_id"].is_unique
    assert not (out / LOCK).exists() and not (out / journal.NAME).exists()


def test_a_stale_lock_is_taken_over_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    out = tmp_path / "stale"
    out.mkdir()
    (out / LOCK).write_text(f"{gone.pid}\n")  # left by a run killed with -9
    assert main(["bench", "--tasks", TOY, "--instances", "1", "--trials", "1", "--quiet", "--out", str(out)]) == 0
    assert f"took over a stale lock on {out}/ (pid {gone.pid} is gone)" in capsys.readouterr().err
    assert not (out / LOCK).exists()


def test_the_lock_is_one_holder_at_a_time_and_released_for_the_next(tmp_path: Path) -> None:
    held = FolderLock(tmp_path).acquire()
    with pytest.raises(SweepRefused, match=f"pid {os.getpid()}"):
        FolderLock(tmp_path).acquire()
    held.release()
    again = FolderLock(tmp_path).acquire()
    assert again.warning is None and (tmp_path / LOCK).read_text() == f"{os.getpid()}\n"
    again.release()
    assert not (tmp_path / LOCK).exists()
