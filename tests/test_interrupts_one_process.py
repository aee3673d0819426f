"""Ctrl-C on a one-process sweep mid-sweep, and on a sharded sweep while its shards start (the sharded mid-sweep
cases and the helpers are in test_interrupts.py; two files so that `--dist loadfile` can run them side by side)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from .test_interrupts import argv, clean_run, interrupt, interrupt_mid_sweep_then_resume, start
from .test_shard_orphans import gone, live_members

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    return clean_run(tmp_path_factory.mktemp("clean"))


def test_ctrl_c_mid_sweep_of_one_process_exits_130_in_three_lines_and_resume_completes_it(
        tmp_path: Path, reference: pd.DataFrame) -> None:
    interrupt_mid_sweep_then_resume(tmp_path / "out", reference, "1", True)


def test_ctrl_c_while_the_shards_start_exits_130_without_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = start(argv(out, "--workers", "2"))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and len(live_members(proc.pid)) < 3:  # the tracker and the forkserver: starting
        time.sleep(0.005)
    status, lines = interrupt(proc, group=True)
    assert status == 130, lines
    assert 1 <= len(lines) <= 3 and lines[0].startswith("wva: interrupted"), lines
    assert gone(proc.pid), live_members(proc.pid)
