"""`wva bench` and `wva sweep` print verdicts, so they take the criterion's options too and pass them on."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main

TOY = "examples.minimal_family:Capitals"
OPTIONS = ["--margin", "0.1", "--comparator", "chain", "--cost-margin", "0.25", "--value-per-success", "0.5"]


def _options_of(criterion: Path) -> tuple[object, ...]:
    row = pd.read_csv(criterion).iloc[0]
    return row.margin, row.comparator, row.cost_margin, row.value_per_success


def test_bench_passes_the_verdict_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "--tasks", TOY, "--patterns", "chain,agent", "--instances", "2", "--trials", "1",
            "--out", str(tmp_path), "--quiet", *OPTIONS]
    assert main(argv) == 0
    assert _options_of(tmp_path / "criterion_chain.csv") == (0.1, "chain", 0.25, 0.5)  # a named comparator's file
    assert "criterion (agent vs the comparator workflow, per task):" in capsys.readouterr().out


def test_sweep_passes_the_verdict_options(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    argv = ["sweep", "multihop:hops=1-2", "--param", "depth", "--values", "2,3", "--instances", "2", "--trials", "1",
            "--out", str(out), "--quiet", *OPTIONS]
    assert main(argv) == 0
    table = pd.read_csv(out / "sweep.csv")
    assert (table["cost_margin"] == 0.25).all() and (table["value_per_success"] == 0.5).all()
    assert _options_of(out / str(table["folder"].fillna("").iloc[0]) / "criterion.csv") == (0.1, "chain", 0.25, 0.5)


@pytest.mark.parametrize("command", [["bench", "--tasks", TOY], ["sweep", "multihop", "--param", "hops", "--values",
                                                                   "3"]])
def test_bad_verdict_options_stop_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       command: list[str]) -> None:
    assert main([*command, "--out", str(tmp_path / "out"), "--cost-margin", "2"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "from 0 to below 1" in err
    assert not (tmp_path / "out").exists()
