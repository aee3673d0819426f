"""Reading a results folder: the success column in every form pandas or a user writes it, and one clear
line naming the file and line for anything else."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.read import load_inputs
from tests.test_criterion import trials, write_folder


def _folder(tmp_path: Path, values: list[str]) -> Path:
    rows = trials("chain", len(values), 1, lambda i, t: True, 0.001) + trials("agent", len(values), 1,
                                                                               lambda i, t: True, 0.002)
    out = write_folder(tmp_path, rows)
    runs = pd.read_csv(out / "runs.csv", dtype=str, keep_default_na=False)
    runs.loc[: len(values) - 1, "success"] = values  # the chain's rows, in file order
    runs.to_csv(out / "runs.csv", index=False)
    return out


@pytest.mark.parametrize(("values", "expected"), [
    (["True", "False"], [True, False]),
    (["true", "FALSE"], [True, False]),
    (["1", "0"], [True, False]),
    (["1.0", "0.0"], [True, False]),
    ([" 1.0", "0.0 "], [True, False]),
])
def test_the_success_column_is_read(tmp_path: Path, values: list[str], expected: list[bool]) -> None:
    runs, _, _ = load_inputs(_folder(tmp_path, values))
    assert list(runs["success"].iloc[:2]) == expected and runs["success"].dtype == bool
    assert runs["success"].iloc[2:].all()


@pytest.mark.parametrize(("values", "line", "shown"), [
    (["1.0", ""], 3, "a blank"),
    (["yes", "0"], 2, "'yes'"),
    (["1", "0.5"], 3, "'0.5'"),
    (["1", "nan"], 3, "a blank"),
])
def test_anything_else_names_the_file_and_line(tmp_path: Path, values: list[str], line: int, shown: str) -> None:
    out = _folder(tmp_path, values)
    with pytest.raises(ValueError, match=rf"runs\.csv line {line}: success must be true/false/1/0, not {shown}"):
        load_inputs(out)


def test_a_line_number_counts_quoted_newlines(tmp_path: Path) -> None:
    out = _folder(tmp_path, ["1", "0", "x"])
    runs = pd.read_csv(out / "runs.csv", dtype=str, keep_default_na=False)
    runs.loc[0, "detail"] = "a traceback\nover two lines"
    runs.to_csv(out / "runs.csv", index=False)
    with pytest.raises(ValueError, match=r"line 5: success"):  # header, a two-line row, a row, then row 3
        load_inputs(out)


@pytest.mark.parametrize("command", ["criterion", "report"])
def test_a_bad_success_value_is_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      command: str) -> None:
    out = _folder(tmp_path, ["1", ""])
    assert main([command, str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "runs.csv line 3: success must be true/false/1/0, not a blank" in err
    assert not (out / "criterion.csv").exists()
