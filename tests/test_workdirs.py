"""A trial's scratch folder: always empty when given, reused only when left empty, never left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.harness import workdirs


def test_a_folder_left_empty_serves_the_next_trial_and_release_removes_it() -> None:
    workdirs.release()
    with workdirs.workdir() as first:
        assert os.listdir(first) == []
    with workdirs.workdir() as second:
        assert second == first and os.listdir(second) == []
    workdirs.release()
    assert not Path(first).exists()


def test_a_folder_written_to_is_removed_and_never_given_again() -> None:
    workdirs.release()
    with workdirs.workdir() as used:
        (Path(used) / "faulty.py").write_text("x = 1\n")
        (Path(used) / "sub").mkdir()
    assert not Path(used).exists()
    with workdirs.workdir() as fresh:
        assert fresh != used and os.listdir(fresh) == []
    workdirs.release()


def test_two_trials_at_once_get_two_folders() -> None:
    workdirs.release()
    with workdirs.workdir() as a, workdirs.workdir() as b:
        assert a != b
    workdirs.release()


def test_importing_registers_nothing_and_the_first_kept_folder_registers_its_cleanup() -> None:
    """No side effect at import: the exit hook comes with the first folder the pool keeps (a fresh interpreter,
    so that no earlier test has imported the module)."""
    code = ("import atexit; n = atexit._ncallbacks(); from benchmarks.harness import workdirs as w; "
            "assert atexit._ncallbacks() == n, 'registered at import'; "
            "exec('with w.workdir():\\n    pass'); assert atexit._ncallbacks() == n + 1; "
            "exec('with w.workdir():\\n    pass'); assert atexit._ncallbacks() == n + 1; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.strip() == "ok", done.stderr
