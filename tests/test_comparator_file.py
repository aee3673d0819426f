"""`--comparator path/to/design.py:function`: its table is written inside the folder, under a file name (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.table import criterion_file

TOY = "examples.minimal_family:Capitals"
DESIGN = '''
from patterns.workflows import Single

def my_design(family, env):
    return Single(prompt="{task}", tools=env.tools)
'''


def test_a_design_files_path_names_a_file_in_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = tmp_path / "designs" / "mine.py"
    design.parent.mkdir()
    design.write_text(DESIGN)
    spec, out = f"{design.resolve()}:my_design", tmp_path / "r"
    assert main(["bench", "--tasks", TOY, "--patterns", f"agent,{spec}", "--instances", "2", "--trials", "1",
                 "--no-drawn", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["criterion", str(out), "--comparator", spec]) == 0
    written = out / criterion_file(spec)
    assert written.parent == out and written.name.startswith("criterion_mine.py:my_design-")
    assert f"written to {written}" in capsys.readouterr().out
    assert pd.read_csv(written)["comparator"].tolist() == [spec]


def test_plain_names_keep_their_documented_file() -> None:
    assert [criterion_file(c) for c in (None, "declared", "chain", "route:ladder", "mine.py:fn")] == [
        "criterion.csv", "criterion.csv", "criterion_chain.csv", "criterion_route:ladder.csv",
        "criterion_mine.py:fn.csv"]
    assert criterion_file("/a/mine.py:fn") != criterion_file("/b/mine.py:fn")  # two files, two tables
    assert "/" not in criterion_file("../x/mine.py:fn") and not criterion_file("..").startswith("criterion_.")
