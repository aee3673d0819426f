"""Issue 41 §2: a task whose every trial was refused in its own code (none counted) keeps its row in criterion.csv,
with verdict `withheld` and the reason, rather than disappearing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.withheld import WITHHELD, withhold

from ..test_scorer_failures import bench, task_file


def test_a_task_with_no_row_gets_a_withheld_row_with_its_reason() -> None:
    df = pd.DataFrame({"task": ["t"], "verdict": ["agent"], "comparator": ["chain"], "reason": [""], "note": [""],
                       "agent_success": [0.9]})
    out = withhold(df, {"gone": "no verdict: every trial refused"})
    assert list(out["task"]) == ["t", "gone"] and list(out["verdict"]) == ["agent", WITHHELD]
    assert out.loc[1, "reason"] == "no verdict: every trial refused" and pd.isna(out.loc[1, "agent_success"])
    assert list(withhold(df, {})["task"]) == ["t"]  # nothing to withhold: the table as it was


def test_a_task_whose_every_trial_was_refused_stays_in_criterion_csv(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    task = task_file(tmp_path, "boom", scorer="scorers.py:boom")  # the scorer raises on every trial, agent's too
    out = tmp_path / "out"
    main(bench(task, out, "--patterns", "agent,chain", "--no-drawn"))
    capsys.readouterr()
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) and runs["error_kinds"].str.contains("ScorerError").all()
    table = pd.read_csv(out / "criterion.csv")
    row = table[table["task"] == "boom"]
    assert len(row) == 1 and row["verdict"].iloc[0] == WITHHELD
    assert "ScorerError" in row["reason"].iloc[0] and "refused" in row["reason"].iloc[0]
