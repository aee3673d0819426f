"""`wva tasks` and the refusals that list the task names, as a new user meets them (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.cli.main import main
from benchmarks.names import DEFAULT_TASKS, EXTRA_TASKS


def test_tasks_lists_every_family_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # a new user's folder, not the clone's
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    families = dict.fromkeys(name.split(":")[0] for name in (*DEFAULT_TASKS, *EXTRA_TASKS))
    listed = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert [name for name in listed if name in families] == list(families)  # each family once, presets folded in
    assert "explore:readable=true: the family with those parameters" in out


def test_an_unknown_task_says_what_walks_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "agent", "nosuchtask"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown task 'nosuchtask'" in err
    assert "walks (agent walks of known drawability, for checking the measure; not in the default run)" in err
