"""A task's own code that raises or hangs (a scorer, a design) is a marked error, apart from the model's failures:
the run it scored is kept, the first one is said on one line naming the file, and `wva bench` exits 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import code_errors

from .conftest import ROOT

SCORERS = '''import json
import time


def boom(instance, output):
    return 1 / 0


def parse(instance, output):
    return json.loads("not json")


def slow(instance, output):
    time.sleep(3600)
    return 1.0
'''
DESIGNS = '''def design(pattern, env):
    if pattern == "chain":
        raise KeyError("no chain here")
    return None
'''


def task_file(folder: Path, name: str, **keys: str) -> Path:
    rows = [{"id": f"r{i}", "input": f"What is {i} + {i}?", "target": str(2 * i)} for i in range(2)]
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "scorers.py").write_text(SCORERS)
    (folder / "designs.py").write_text(DESIGNS)
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\ndataset = "data.jsonl"\n' + "".join(f'{k} = "{v}"\n' for k, v in keys.items()))
    return path


def bench(task: Path, out: Path, *extra: str) -> list[str]:
    return ["bench", "--tasks", str(task), "--instances", "2", "--trials", "1", "--workers", "1", "--quiet",
            "--out", str(out), *extra]


def test_a_scorer_that_raises_keeps_the_run_says_where_and_exits_1(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    task = task_file(tmp_path, "boom", scorer="scorers.py:boom")
    assert main(bench(task, tmp_path / "out")) == 1
    err = capsys.readouterr().err
    first = [line for line in err.splitlines() if "error in the task's code" in line]
    assert len(first) == 1 and "scorers.py:6: division by zero" in first[0]  # the line of `return 1 / 0`
    assert "12 of 12 trials failed in the task's own code" in err
    runs = pd.read_csv(tmp_path / "out" / "runs.csv", keep_default_na=False, na_values=[""])
    assert (runs["error_kinds"] == "ScorerError:ZeroDivisionError").all()
    assert not runs["success"].any() and runs["score"].isna().all()
    assert (runs["steps"] > 0).all() and runs["cost_usd"].notna().all() and (runs["cost_usd"] > 0).all()
    assert (runs["terminal"] == "completed").all()  # the run itself ended well: only its score is missing
    events = pd.read_json(tmp_path / "out" / "events.jsonl", lines=True)
    assert set(events["run_id"]) == set(runs["run_id"])
    per_run = events[events["kind"] == "model_call"].groupby("run_id")["cost_usd"].sum()
    assert per_run.loc[runs["run_id"]].to_numpy() == pytest.approx(runs["cost_usd"].to_numpy())
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert (summary["code_errors"] == summary["n"]).all() and (summary["error_rate"] == 0).all()


def test_the_place_named_is_the_users_line_not_the_standard_librarys(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    task = task_file(tmp_path, "parse", scorer="scorers.py:parse")
    assert main(bench(task, tmp_path / "out", "--patterns", "single")) == 1
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert runs["detail"].str.startswith("ScorerError:JSONDecodeError at ").all()
    assert runs["detail"].str.contains("scorers.py:10: Expecting value").all()


def test_a_design_that_raises_is_a_code_error_naming_the_design_file(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    task = task_file(tmp_path, "designed", design="designs.py")
    assert main(bench(task, tmp_path / "out", "--patterns", "single,chain")) == 1
    assert "designs.py:3: 'no chain here'" in capsys.readouterr().err
    runs = pd.read_csv(tmp_path / "out" / "runs.csv", keep_default_na=False).set_index("pattern")
    assert (runs.loc["chain", "error_kinds"] == "CodeError:KeyError").all()
    assert (runs.loc["single", "error_kinds"] == "").all()
    summary = pd.read_csv(tmp_path / "out" / "summary.csv").set_index("pattern")
    assert summary.loc["chain", "code_errors"] == 2 and summary.loc["single", "code_errors"] == 0


def test_a_sweep_without_code_errors_exits_0_with_none_counted(tmp_path: Path) -> None:
    task = task_file(tmp_path, "fine", scorer="includes")
    assert main(bench(task, tmp_path / "out")) == 0
    assert (pd.read_csv(tmp_path / "out" / "summary.csv")["code_errors"] == 0).all()


def test_a_scorer_that_hangs_times_out_and_the_sweep_and_process_finish(tmp_path: Path) -> None:
    task = task_file(tmp_path, "slow", scorer="scorers.py:slow")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "benchmarks", *bench(task, out, "--score-timeout", "0.5")], cwd=ROOT,
                          capture_output=True, text=True, timeout=240)  # a hang's guard, not a timing: never timed
    assert done.returncode == 1, done.stderr
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["error_kinds"] == "ScorerError:Timeout").all() and (runs["steps"] > 0).all()
    assert runs["detail"].str.contains(r"scorers.py:14: still running after 0.5 s", regex=False).all()
    assert (out / "criterion.csv").exists()


def test_error_kinds_of_the_tasks_code_are_told_apart_from_the_models() -> None:
    assert code_errors.is_code_error("RateLimitError;ScorerError:Timeout")
    assert code_errors.is_code_error("CodeError:KeyError")
    assert not code_errors.is_code_error("ToolTimeout;RateLimitError")
    assert not code_errors.is_code_error(float("nan"))  # an empty cell read back by pandas
    assert code_errors.count(["", "CodeError:X", None, "ScorerError:Y", "OverloadedError"]) == 2


@pytest.mark.parametrize(("task", "what"), [
    ("tests.broken_family:RaisingScorer", "the task's scorer raised KeyError"),
    ("tests.broken_family:Broken", "environment or design raised ZeroDivision"),
])
def test_wva_run_names_a_bug_in_the_task_in_one_line(task: str, what: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "chain", task]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and what in err and "tests/broken_family.py:" in err and "internal" not in err
