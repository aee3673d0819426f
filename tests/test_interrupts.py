"""Ctrl-C (SIGINT) stops a sweep within seconds, sharded or not, at startup or mid-sweep: exit 130, at most three
lines, every finished trial kept, and the `--resume` command it prints completes the sweep exactly."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import journal
from benchmarks.harness.bench import BenchConfig, run_bench

from .conftest import ROOT
from .test_shard_orphans import gone, live_members

TOY = "examples.minimal_family:Capitals"
MODEL = "sim:error_rate=0.3"
# Enough trials that the interrupt lands mid-sweep (20 of 224 finished, asserted below), few enough that the
# clean reference and each interrupted-then-resumed sweep stay seconds long (40 x 3 cost 40-75 s per test).
INSTANCES, TRIALS = 16, 2
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups")


def argv(out: Path, *extra: str) -> list[str]:
    return ["bench", "--tasks", TOY, "--model", MODEL, "--instances", str(INSTANCES), "--trials", str(TRIALS),
            "--out", str(out), "--quiet", "--concurrency", "2", *extra]


def start(args: list[str]) -> subprocess.Popen[str]:
    """`wva` as a terminal runs it: SIGINT handled (a test runner may have it ignored), in its own group."""
    return subprocess.Popen([sys.executable, "-m", "benchmarks", *args], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def finished(out: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in journal.paths(out) if p.exists()) if out.exists() else 0


def interrupt(proc: subprocess.Popen[str], *, group: bool) -> tuple[int, list[str]]:
    """Its exit status and stderr lines; the wait's timeout only keeps a hang from stalling the suite (tests never
    time a process: a loaded machine is slow, not wrong)."""
    if group:  # Ctrl-C in a terminal: the whole foreground group
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    proc.wait(timeout=120)
    assert proc.stderr is not None
    return proc.returncode, proc.stderr.read().splitlines()


def resume(lines: list[str]) -> None:
    """Run the command the interrupted sweep printed, through the CLI's own entry point in this process: the same
    parse and sweep as a shell would start, without paying a second interpreter's imports per test."""
    command = shlex.split(lines[-1].split("to finish the sweep: ", 1)[1])
    assert command[0] == "wva" and command[-1] == "--resume"
    assert main(command[1:]) == 0


def clean_run(out: Path) -> pd.DataFrame:
    """The sweep run once without an interrupt: what every interrupted-then-resumed sweep must equal."""
    asyncio.run(run_bench(BenchConfig(tasks=(TOY,), model=MODEL, instances=INSTANCES, trials=TRIALS, out=out)))
    return without_wall(out)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    return clean_run(tmp_path_factory.mktemp("clean"))


def without_wall(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "runs.csv").drop(columns=["wall_s"]).sort_values("run_id", ignore_index=True)


def interrupt_mid_sweep_then_resume(out: Path, reference: pd.DataFrame, workers: str, group: bool) -> None:
    """Interrupt a sweep once 20 trials are written: exit 130 in at most three lines, no process of the run left, the
    finished trials kept; then its printed `--resume` command completes it to exactly the clean run's rows."""
    proc = start(argv(out, "--workers", workers))
    deadline = time.monotonic() + 90
    while finished(out) < 20 and time.monotonic() < deadline:
        time.sleep(0.02)
    status, lines = interrupt(proc, group=group)
    assert status == 130, lines
    assert len(lines) <= 3, lines
    assert lines[0] == f"wva: interrupted: the finished trials are kept in {out}/"
    assert gone(proc.pid), live_members(proc.pid)  # no shard, server or tracker left running
    kept = finished(out)
    assert 20 <= kept < 7 * INSTANCES * TRIALS
    resume(lines)
    runs = without_wall(out)
    assert runs["run_id"].is_unique
    pd.testing.assert_frame_equal(runs, reference)


# The one-process Ctrl-C and the Ctrl-C at startup are in test_interrupts_one_process.py: a second file lets the CI's
# `--dist loadfile` run them beside these on the other worker.
@pytest.mark.parametrize("group", [True, False], ids=["sharded-ctrl-c", "sharded-sigint-to-wva-alone"])
def test_ctrl_c_mid_sweep_exits_130_in_three_lines_and_resume_completes_it(
        tmp_path: Path, reference: pd.DataFrame, group: bool) -> None:
    interrupt_mid_sweep_then_resume(tmp_path / "out", reference, "2", group)
