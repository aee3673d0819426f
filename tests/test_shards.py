"""`wva bench --workers N` and `--executor ray`: the same results as one process, resumable after a kill."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import journal
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.shards import bounds, workers_for

from .conftest import ROOT, one_ray_at_a_time

TOY = "examples.minimal_family:Capitals"
MODEL = "sim:error_rate=0.3"


def bench(out: Path, **kwargs: Any) -> int:
    config = BenchConfig(tasks=(TOY,), out=out, model=MODEL, **{"instances": 4, "trials": 2, **kwargs})
    return asyncio.run(run_bench(config)).ran


def runs_without_wall(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "runs.csv").drop(columns=["wall_s"]).sort_values("run_id", ignore_index=True)


def assert_same_results(a: Path, b: Path) -> None:
    pd.testing.assert_frame_equal(runs_without_wall(a), runs_without_wall(b))
    assert (a / "events.jsonl").read_text() == (b / "events.jsonl").read_text()
    assert (a / "summary.csv").read_text() == (b / "summary.csv").read_text()
    assert not journal.paths(b)[1:] and not (b / journal.NAME).exists()  # no journal left behind


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("single")
    bench(out, workers=1)
    return out


def test_two_workers_give_the_single_process_results(reference: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "--tasks", TOY, "--model", MODEL, "--instances", "4", "--trials", "2", "--out", str(tmp_path),
            "--workers", "2"]
    assert main(argv) == 0
    assert "56 trials (56 run now)" in capsys.readouterr().out
    assert_same_results(reference, tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["workers"] == 2 and manifest["executor"] == "local"
    assert pd.read_csv(tmp_path / "runs.csv")["run_id"].tolist() == pd.read_csv(reference / "runs.csv")[
        "run_id"].tolist()  # the same order, too: the plan's


def test_resume_reads_every_shard_journal(reference: Path, tmp_path: Path) -> None:
    finished = [json.loads(line) for line in (reference / "events.jsonl").read_text().splitlines()]
    runs = pd.read_csv(reference / "runs.csv", keep_default_na=False, na_values=[""])
    rows = [{k: (None if isinstance(v, float) and pd.isna(v) else v) for k, v in r.items()}
            for r in runs.to_dict("records")]
    events = {r["run_id"]: [e for e in finished if e["run_id"] == r["run_id"]] for r in rows}
    with journal.Journal(journal.shard_path(tmp_path, "99-0")) as log:  # as two killed shards left them
        for row in rows[:10]:
            log.append(row, events[row["run_id"]])
    with journal.Journal(journal.shard_path(tmp_path, "99-1")) as log:
        for row in rows[10:15]:
            log.append(row, events[row["run_id"]])
    with journal.shard_path(tmp_path, "99-1").open("a") as f:
        f.write('{"row": {"run_id": "torn')  # killed mid-write
    shutil.copy(reference / "manifest.json", tmp_path)  # the sweep writes its manifest first thing
    assert bench(tmp_path, workers=2, resume=True) == len(rows) - 15
    assert_same_results(reference, tmp_path)


def test_a_killed_sharded_sweep_resumes_with_every_trial_once(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    # 224 trials: the kill lands after 10 (asserted), and the sweep, its resume and the clean reference stay short
    args = [sys.executable, "-m", "benchmarks", "bench", "--tasks", TOY, "--model", MODEL, "--instances", "16",
            "--trials", "2", "--out", str(out), "--quiet", "--workers", "2", "--concurrency", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # its own process group, so that the kill takes the shards down with the parent, as a crash of the job would
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = sum(p.read_bytes().count(b"\n") for p in journal.paths(out) if p.exists()) if out.exists() else 0
        if lines >= 10:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = journal.load_all(out).records
    assert 10 <= len(partial) < 7 * 16 * 2, "the kill should land mid-sweep"
    assert len(journal.paths(out)) >= 2  # shard journals
    assert main([*args[3:], "--resume"]) == 0  # the CLI in this process: a second interpreter's imports cost more
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 7 * 16 * 2 and runs["run_id"].is_unique
    reference = tmp_path / "clean"
    bench(reference, instances=16, trials=2)
    pd.testing.assert_frame_equal(runs_without_wall(out), runs_without_wall(reference))


def test_worker_count_and_the_bounds_each_shard_gets(tmp_path: Path) -> None:
    auto = BenchConfig(tasks=(TOY,), out=tmp_path, workers=None)
    assert workers_for(auto, 40, model_given=False) == 1  # too few trials to pay for a process
    assert workers_for(auto, 100_000, model_given=False) == os.cpu_count()
    assert workers_for(BenchConfig(tasks=(TOY,), out=tmp_path, workers=None, model="replay:x.jsonl"), 10**5,
                       model_given=False) == 1  # a real model: one process unless asked
    assert workers_for(BenchConfig(tasks=(TOY,), out=tmp_path, workers=8), 3, model_given=False) == 3
    with pytest.raises(ValueError, match="this process only"):
        workers_for(BenchConfig(tasks=(TOY,), out=tmp_path, workers=2), 100, model_given=True)
    assert bounds(BenchConfig(tasks=(TOY,), out=tmp_path, concurrency=16, max_in_flight=8), 3) == (6, 2)
    assert bounds(BenchConfig(tasks=(TOY,), out=tmp_path, concurrency=1, max_in_flight=1), 4) == (1, 1)
    with pytest.raises(ValueError, match="--workers"):
        BenchConfig(tasks=(TOY,), out=tmp_path, workers=0)
    with pytest.raises(ValueError, match="executor"):
        BenchConfig(tasks=(TOY,), out=tmp_path, executor="dask")


def test_a_small_ray_sweep_gives_the_single_process_results(reference: Path, tmp_path: Path,
                                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'workflow-vs-agent[ray]')")
    with one_ray_at_a_time(tmp_path_factory):
        ray.init(num_cpus=2, log_to_driver=False, include_dashboard=False)
        try:
            bench(tmp_path, executor="ray", workers=2)
        finally:
            ray.shutdown()
    assert_same_results(reference, tmp_path)
    assert json.loads((tmp_path / "manifest.json").read_text())["executor"] == "ray"
