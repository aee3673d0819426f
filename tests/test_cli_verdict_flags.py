"""`bench` and `sweep` print verdicts, so they take the verdict's options and apply them; `sweep` takes
`--prompt-cache` as `bench` does."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main

SMALL = ["--instances", "2", "--trials", "1", "--quiet"]


def test_bench_applies_margin_and_comparator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b"
    argv = ["bench", "--tasks", "pipeline", "--margin", "0.1", "--comparator", "selected", "--out", str(out), *SMALL]
    assert main(argv) == 0
    row = pd.read_csv(out / "criterion_selected.csv").iloc[0]  # criterion.csv is the declared comparator's alone
    assert row["comparator_mode"].startswith("selected") and row["margin"] == pytest.approx(0.1)
    assert not (out / "criterion.csv").exists()
    assert "criterion" in capsys.readouterr().out


def test_sweep_applies_margin_comparator_and_prompt_cache(tmp_path: Path) -> None:
    out = tmp_path / "s"
    argv = ["sweep", "pipeline", "--model-knob", "error_rate", "--values", "0,0.2", "--margin", "0.1",
            "--comparator", "selected", "--prompt-cache", "off", "--out", str(out), *SMALL]
    assert main(argv) == 0
    for row in pd.read_csv(out / "sweep.csv").itertuples():
        crit = pd.read_csv(out / row.folder / "criterion.csv").iloc[0]
        assert crit["comparator_mode"].startswith("selected") and crit["margin"] == pytest.approx(0.1)
        manifest = json.loads((out / row.folder / "manifest.json").read_text())
        assert manifest["prompt_cache"] == "off"


@pytest.mark.parametrize("command", ["bench", "sweep"])
def test_a_bad_verdict_option_is_one_line_and_exit_2(command: str, capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    head = ["bench"] if command == "bench" else ["sweep", "pipeline", "--param", "steps", "--values", "2"]
    assert main([*head, "--margin", "0.9", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "between 0 and 0.5" in err
    assert not (tmp_path / "x").exists()
