"""A task file on sim gets no verdict (withheld, with its reason), and the oracle template records, for any task
file, a cassette whose replay gets one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.render import verdict_line
from benchmarks.criterion.withheld import REASON, WITHHELD, withhold
from examples.oracle import record

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = ["--trials", "1", "--quiet", "--workers", "1", "--no-drawn"]


def test_withhold_replaces_only_the_named_tasks_verdicts_and_keeps_their_figures() -> None:
    df = pd.DataFrame({"task": ["mine", "pipeline", "broken"], "verdict": ["agent", "workflow", "no data"],
                       "comparator": ["chain", "chain", ""],
                       "reason": ["r"] * 3, "note": ["n"] * 3, "agrees": pd.array([False, True, None], "boolean"),
                       "success_diff": [0.44, 0.0, None]})
    out = withhold(df, ["mine", "broken"])
    assert out["verdict"].tolist() == [WITHHELD, "workflow", "no data"]  # "no data" is already no verdict
    assert out.loc[0, "reason"] == REASON and pd.isna(out.loc[0, "agrees"]) and out.loc[0, "success_diff"] == 0.44
    assert df["verdict"].tolist() == ["agent", "workflow", "no data"]  # the input is left as it was


def test_a_task_file_on_sim_gives_no_verdict_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = str(EXAMPLES / "tickets" / "tickets.toml")
    out = tmp_path / "t"
    assert main(["bench", "--tasks", toml, "--patterns", "route,agent", "--instances", "6", "--out", str(out),
                 *SMALL]) == 0
    text = capsys.readouterr().out
    row = pd.read_csv(out / "criterion.csv").iloc[0]
    assert row["verdict"] == WITHHELD and pd.isna(row["agrees"]) and "no ground truth" in row["reason"]
    assert "tickets: WITHHELD" in text and "AGENT" not in text and "WORKFLOW" not in text
    assert "WITHHELD" in verdict_line(row)
    assert main(["plan", str(out), "--max-instances", "100"]) == 0
    plan = capsys.readouterr().out
    assert "verdict is withheld at any size" in plan and "the task has only 30 instances" in plan


def test_the_oracle_records_any_task_file_and_its_replay_is_judged(tmp_path: Path) -> None:
    folder = tmp_path / "invoices"  # not the bundled tickets: a task file with a [workflow] and no routes
    shutil.copytree(EXAMPLES / "invoices", folder, ignore=shutil.ignore_patterns("__pycache__"))
    cassette = tmp_path / "cassette.jsonl"
    summary = record(folder / "invoices.toml", cassette, instances=3).set_index("pattern")
    assert summary.loc["agent", "success_rate"] == 1.0 and summary.loc["chain", "success_rate"] == 1.0
    assert summary.loc["single", "success_rate"] == 0.0  # one round of tools cannot look up, then convert
    out = tmp_path / "r"
    assert main(["bench", "--tasks", str(folder / "invoices.toml"), "--patterns", "chain,agent", "--instances", "3",
                 "--model", f"replay:{cassette}", "--out", str(out), *SMALL]) == 0
    row = pd.read_csv(out / "criterion.csv").iloc[0]
    assert row["verdict"] != WITHHELD and row["workflow_success"] == row["agent_success"] == 1.0


def test_until_decided_stops_a_task_file_on_sim_at_its_first_look(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "u"
    argv = ["bench", "--tasks", str(EXAMPLES / "tickets" / "tickets.toml"), "--patterns", "route,agent",
            "--until-decided", "--batch", "5", "--max-instances", "15", "--out", str(out), *SMALL]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "whose verdict is withheld" in captured.err and "it stops at its first look" in captured.err
    assert pd.read_csv(out / "runs.csv")["instance"].nunique() == 5  # one batch, not three
    assert pd.read_csv(out / "criterion.csv")["verdict"].tolist() == [WITHHELD]
