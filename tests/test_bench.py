"""The harness: deterministic, durable across SIGKILL, nothing lost, bad input refused."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import journal
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import load_results
from benchmarks.harness.trial import RUN_COLUMNS

from .conftest import ROOT

TOY = "examples.minimal_family:Capitals"


def bench(out: Path, **kwargs: object) -> None:
    config = BenchConfig(tasks=(TOY,), out=out, **{"instances": 3, "trials": 2, **kwargs})  # type: ignore[arg-type]
    asyncio.run(run_bench(config))


def runs_without_wall(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "runs.csv").drop(columns=["wall_s"])


def test_outputs_have_the_documented_columns_and_one_row_per_trial(tmp_path: Path) -> None:
    bench(tmp_path)
    res = load_results(tmp_path)
    runs = res["runs"]
    assert list(runs.columns) == RUN_COLUMNS
    assert len(runs) == 7 * 3 * 2 and runs["run_id"].is_unique
    assert set(res["summary"]["pattern"]) == set(runs["pattern"])
    assert {"n", "success_rate", "ci_low", "ci_high", "pass_k", "cost_per_success", "latency_p95",
            "terminal_completed"} <= set(res["summary"].columns)
    assert set(res["events"]["run_id"]) <= set(runs["run_id"])
    assert "gen_ai.usage.input_tokens" in res["events"].columns
    manifest = res["manifest"]
    assert manifest["seed"] == 0 and manifest["model"] == "sim:error_rate=0.1" and "git" in manifest
    assert not (tmp_path / journal.NAME).exists()


def test_same_seed_same_runs_and_another_seed_differs(tmp_path: Path) -> None:
    bench(tmp_path / "a", model="sim:error_rate=0.3")
    bench(tmp_path / "b", model="sim:error_rate=0.3", concurrency=1)
    pd.testing.assert_frame_equal(runs_without_wall(tmp_path / "a"), runs_without_wall(tmp_path / "b"))
    bench(tmp_path / "c", model="sim:error_rate=0.3", seed=1)
    assert not runs_without_wall(tmp_path / "a")["run_id"].equals(runs_without_wall(tmp_path / "c")["run_id"])


def test_run_id_is_stable_across_runs(tmp_path: Path) -> None:
    bench(tmp_path / "a")
    bench(tmp_path / "b", instances=4)  # more instances: the first ones keep their ids
    a, b = pd.read_csv(tmp_path / "a" / "runs.csv"), pd.read_csv(tmp_path / "b" / "runs.csv")
    assert set(a["run_id"]) <= set(b["run_id"])


def test_a_torn_last_journal_line_is_dropped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / journal.NAME
    good = json.dumps({"row": {"run_id": "r1"}, "events": []})
    path.write_text(good + "\n" + '{"row": {"run_id": "r2", "pat')
    loaded = journal.load(path)
    assert list(loaded.records) == ["r1"] and "torn" in loaded.warnings[0]
    assert path.read_text() == good + "\n"  # the next append starts on a clean line


def test_resume_after_sigkill_mid_sweep_has_every_trial_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    # 224 trials: the kill lands after 30 (asserted), and the sweep, its resume and the clean reference stay short
    args = [sys.executable, "-m", "benchmarks", "bench", "--tasks", TOY, "--instances", "16", "--trials", "2",
            "--out", str(out), "--quiet", "--concurrency", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        path = out / journal.NAME
        if path.exists() and path.read_bytes().count(b"\n") >= 30:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = journal.load(out / journal.NAME).records
    assert 30 <= len(partial) < 7 * 16 * 2, "the kill should land mid-sweep"
    assert main([*args[3:], "--resume"]) == 0  # the CLI in this process: a second interpreter's imports cost more
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 7 * 16 * 2 and runs["run_id"].is_unique
    reference = tmp_path / "clean"
    bench(reference, instances=16, trials=2)
    pd.testing.assert_frame_equal(runs_without_wall(out), runs_without_wall(reference))
    assert (out / "summary.csv").read_text() == (reference / "summary.csv").read_text()


def test_resume_of_a_finished_folder_runs_nothing_and_changes_no_byte(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--tasks", TOY, "--instances", "2", "--trials", "1", "--out", str(tmp_path), "--quiet"]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert main(["bench", "--tasks", TOY, "--instances", "2", "--trials", "1", "--out", str(tmp_path), "--quiet",
                 "--resume"]) == 0
    out = capsys.readouterr().out
    assert "nothing to do" in out and "capitals" in out and "criterion" in out  # the tables, read from the files
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_crashing_pattern_is_that_trials_error_and_the_sweep_goes_on(tmp_path: Path) -> None:
    asyncio.run(run_bench(BenchConfig(tasks=("tests.broken_family:Broken",), patterns=("single", "chain"),
                                      instances=2, trials=1, out=tmp_path)))
    runs = pd.read_csv(tmp_path / "runs.csv", keep_default_na=False)
    chain, single = runs[runs["pattern"] == "chain"], runs[runs["pattern"] == "single"]
    assert len(chain) == 2 and (chain["terminal"] == "error").all()
    assert (chain["error_kinds"] == "CodeError:ZeroDivisionError").all()
    assert (single["terminal"] == "completed").all()


@pytest.mark.parametrize("argv, needle", [
    (["bench", "--patterns", "single,telepathy"], "unknown pattern 'telepathy'"),
    (["bench", "--tasks", "nosuchtask"], "unknown task 'nosuchtask'"),
    (["bench", "--tasks", "nosuch.module:Family"], "cannot import task module"),
    (["bench", "--tasks", "examples.minimal_family:Nope"], "has no task family"),
    (["bench", "--tasks", "examples.minimal_family:CapitalsPolicy"], "missing"),
    (["bench", "--model", "gpt:4"], "unknown model spec"),
    (["bench", "--model", "sim:eror_rate=0.1"], "unknown sim knob"),
    (["bench", "--trials", "0"], "expected an integer >= 1"),
    (["bench", "--instances", "-3"], "expected an integer >= 1"),
    (["bench", "--concurrency", "x"], "expected an integer >= 1"),
    (["bench", "--bogus"], "unrecognized arguments"),
    (["run", "telepathy", "pipeline"], "unknown pattern 'telepathy'"),
    (["run", "agent", "nosuchtask"], "unknown task"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(argv: list[str], needle: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    extra = ["--out", str(out)] if argv[0] == "bench" else []
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wva: error:") and needle in err, err
    assert "Traceback" not in err and not out.exists()


def test_an_output_folder_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file.txt"
    target.write_text("keep me")
    assert main(["bench", "--tasks", TOY, "--out", str(target)]) == 2
    assert "is not a folder" in capsys.readouterr().err and target.read_text() == "keep me"


def test_a_cassette_that_does_not_match_the_sweep_is_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    cassette = tmp_path / "other.jsonl"
    request = {"messages": [{"role": "user", "content": "something else"}], "max_tokens": 5}
    reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5", "content": [],
             "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    cassette.write_text(json.dumps({"request": request, "response": reply}) + "\n")
    out = tmp_path / "out"
    code = main(["bench", "--tasks", TOY, "--instances", "1", "--trials", "1", "--patterns", "single",
                 "--model", f"replay:{cassette}", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("wva: error: the replay cassette does not match") and err.count("\n") == 1
    assert not out.exists()


def test_load_results_is_on_the_package(tmp_path: Path) -> None:
    import benchmarks

    bench(tmp_path, instances=1, trials=1)
    tables = benchmarks.load_results(tmp_path)
    assert {"runs", "events", "summary", "criterion", "manifest"} <= set(tables)
    assert len(tables["runs"]) == 7
