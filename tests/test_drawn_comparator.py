"""The drawn comparator, run: `wva bench` draws each task's graph from the agent's walks, runs it on the
other instances into OUT/drawn/, and `wva criterion --comparator drawn` decides on it; resumable, redone
when the drawing changes, skipped with --no-drawn or a replay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import quote

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.drawability import drawing_file, from_json
from benchmarks.criterion.table import PAIRS, criterion_tables
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.plan import not_offered
from benchmarks.studies.drawn import DrawnTask, run_drawn
from benchmarks.studies.run_drawn import main as run_drawn_main
from benchmarks.tasks.base import task_label
from benchmarks.tasks.registry import load_task

BENCH = ["bench", "--tasks", "pipeline", "--patterns", "chain,agent", "--instances", "14", "--trials", "2",
         "--workers", "1", "--quiet"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("drawn") / "out"
    assert main([*BENCH, "--out", str(out)]) == 0
    return out


def test_the_bench_runs_the_drawing_on_the_instances_it_was_not_drawn_from(folder: Path) -> None:
    about = json.loads((folder / "drawn" / drawing_file("pipeline")).read_text())["about"]
    assert about["spec"] == "pipeline" and len(about["drawing_instances"]) == 10 and about["seed"] == 0
    drawn = pd.read_csv(folder / "drawn" / "runs.csv")
    agent = pd.read_csv(folder / "runs.csv").query("pattern == 'agent'")
    assert set(drawn["pattern"]) == {"drawn"} and set(drawn["task"]) == {"pipeline"} and len(drawn) == 4 * 2
    assert set(drawn["instance"]) == set(agent["instance"]) - set(about["drawing_instances"])
    assert set(pd.read_csv(folder / "runs.csv")["pattern"]) == {"chain", "agent"}  # the bench's own rows: unchanged


def test_wva_criterion_gives_the_drawn_verdict_and_its_pair_row(folder: Path, capsys: pytest.CaptureFixture[str]) \
        -> None:
    capsys.readouterr()
    assert main(["criterion", str(folder), "--comparator", "drawn"]) == 0
    out = capsys.readouterr().out
    assert "pipeline: " in out and "drawn " in out and "vs agent" in out
    row = pd.read_csv(folder / "criterion_drawn.csv").iloc[0]  # its own file: criterion.csv stays the declared one
    assert pd.read_csv(folder / "criterion.csv").iloc[0]["comparator"] == "chain"
    assert row["comparator"] == "drawn" and row["instances"] == 4 and row["verdict"] in ("workflow", "agent",
                                                                                         "either", "inconclusive")
    pairs = pd.read_csv(folder / PAIRS)
    drawn = pairs[pairs["workflow"] == "drawn"].iloc[0]
    assert drawn["instances"] == 4 and 0 <= drawn["workflow_success"] <= 1 and drawn["workflow_cost"] > 0
    assert drawn["diff_ci_low"] <= drawn["success_diff"] <= drawn["diff_ci_high"]


def test_the_default_verdict_still_reads_the_declared_comparator_and_lists_drawn_in_the_pairs(folder: Path) -> None:
    df, pairs = criterion_tables(folder)
    assert df.iloc[0]["comparator"] == "chain" and list(pairs["workflow"]) == ["chain", "drawn"]


def test_a_second_bench_has_nothing_to_do_and_the_drawn_folder_is_not_touched(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: p.stat().st_mtime_ns for p in (folder / "drawn").iterdir()}
    assert main([*BENCH, "--out", str(folder)]) == 0
    assert "(0 run now)" in capsys.readouterr().out
    assert {p: p.stat().st_mtime_ns for p in (folder / "drawn").iterdir()} == before


def test_a_drawing_that_changed_is_run_again_from_scratch(folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("runs.csv", "events.jsonl", "manifest.json"):
        (copy / name).write_bytes((folder / name).read_bytes())
    (copy / "drawn").mkdir()
    for p in (folder / "drawn").iterdir():
        (copy / "drawn" / p.name).write_bytes(p.read_bytes())
    runs = pd.read_csv(copy / "runs.csv")  # the agent walked something else on one drawing instance
    drawn_from = json.loads((copy / "drawn" / drawing_file("pipeline")).read_text())["about"]["drawing_instances"]
    victim = runs[(runs["pattern"] == "agent") & (runs["instance"] == drawn_from[0])]["run_id"]
    events = [json.loads(line) for line in (copy / "events.jsonl").read_text().splitlines()]
    extra = [{"run_id": rid, "kind": "tool_call", "gen_ai.tool.name": "fix_format"} for rid in victim] * 2
    (copy / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events + extra))
    old = (copy / "drawn" / drawing_file("pipeline")).read_text()
    outcome, _ = run_drawn(copy, run_bench)
    assert outcome.ran == 8 and (copy / "drawn" / drawing_file("pipeline")).read_text() != old


def test_the_drawn_task_is_the_task_with_one_design(folder: Path) -> None:
    path = folder / "drawn" / drawing_file("pipeline")
    task = load_task(f"benchmarks.studies.drawn:DrawnTask:drawing={quote(str(path), safe='')}")
    inner = load_task("pipeline")
    assert task_label(task) == task_label(inner) == "pipeline"
    assert len(task.instances(14, 0)) == 4 and "drawn" not in not_offered(task) and "agent" in not_offered(task)
    assert "drawn" in not_offered(inner)  # a built-in family never offers it
    env = task.environment(task.instances(14, 0)[0], path.parent)
    spec = task.design("drawn", env)
    assert spec.drawing == from_json(path.read_text())
    with pytest.raises(ValueError, match="changed since"):
        DrawnTask(drawing=quote(str(path), safe=""), digest="0" * 16)
    with pytest.raises(ValueError, match="not a drawing"):
        DrawnTask(drawing=quote(str(folder / "runs.csv"), safe=""))


def test_no_drawn_flag_replay_and_small_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "small"
    assert main(["bench", "--tasks", "pipeline", "--patterns", "chain,agent", "--instances", "3", "--trials", "1",
                 "--workers", "1", "--quiet", "--out", str(out)]) == 0
    assert "pipeline: not drawn (fewer than 12 instances with agent walks)" in capsys.readouterr().out
    assert not (out / "drawn").exists()
    skipped = tmp_path / "skipped"
    assert main([*BENCH, "--no-drawn", "--instances", "12", "--out", str(skipped)]) == 0
    assert not (skipped / "drawn").exists()
    assert run_drawn(skipped, run_bench, BenchConfig(model="replay:x.jsonl"))[0] is None
    assert run_drawn_main([str(tmp_path / "nowhere")]) == 2
    assert "run_drawn: error:" in capsys.readouterr().err


def test_the_harness_accepts_drawn_only_from_a_family_that_designs_it(tmp_path: Path) -> None:
    config = BenchConfig(patterns=("drawn",), tasks=("pipeline",), instances=2, trials=1, out=tmp_path / "x")
    outcome = asyncio.run(run_bench(config))
    assert outcome.trials == 0


def test_the_drawn_run_does_not_warn_that_its_tasks_hold_fewer_instances(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Each drawn task runs its instances minus the drawing set by design: no "has only N" warning for it."""
    assert main([*BENCH, "--out", str(tmp_path / "o")]) == 0
    assert "has only" not in capsys.readouterr().err


def test_the_drawn_run_spends_nothing_on_instances_the_agent_did_not_run(tmp_path: Path) -> None:
    """A sweep stopped early (--until-decided) holds fewer agent instances than its maximum: the drawing runs on
    the agent's instances it did not see, never on instances with no agent row to pair with."""
    out = tmp_path / "u"
    assert main(["bench", "--tasks", "multihop", "--patterns", "single,agent", "--until-decided", "--max-instances",
                 "40", "--batch", "20", "--trials", "1", "--workers", "1", "--quiet", "--out", str(out)]) == 0
    agent = set(pd.read_csv(out / "runs.csv").query("pattern == 'agent'")["instance"])
    drawn = set(pd.read_csv(out / "drawn" / "runs.csv")["instance"])
    about = json.loads((out / "drawn" / drawing_file("multihop")).read_text())["about"]
    assert len(agent) == 20 and drawn == agent - set(about["drawing_instances"])
