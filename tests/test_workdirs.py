"""A trial's scratch folder: always empty when given, reused only when left empty, never left behind."""

from __future__ import annotations

import os
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
