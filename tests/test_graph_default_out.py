"""`wva graph` without --out: the PNG goes to the working directory, and the full path is printed (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.cli.main import main


def test_the_default_file_is_named_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["graph", "chain", "pipeline"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == str(tmp_path / "chain-pipeline.png") and Path(printed).is_file()


def test_the_help_says_where_the_default_goes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", "--help"]) == 0
    assert "PATTERN-TASK.png in the working directory" in " ".join(capsys.readouterr().out.split())
