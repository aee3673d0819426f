"""The default `wva bench`'s repeats phase: on a sweep of fewer than 3 trials per instance the agent alone runs
3 trials on each task's first instances into OUT/repeats/, recorded in the folder's manifest, and the criterion
reads drawability there. On a process whose answer is known (a random walk over 2 tools: not drawable), one trial
per instance reads as drawn and the repeats read it right."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.drawability import THRESHOLD, D, drawing_file, drawn_graph, to_json
from benchmarks.criterion.read import read_manifest
from benchmarks.criterion.repeats_runs import RepeatsRuns, readable, repeated_walks
from benchmarks.harness.config import BenchConfig
from benchmarks.names import REPEATS, REPEATS_INSTANCES, REPEATS_TRIALS
from benchmarks.studies.repeats import phase

TASK = "walks:process=random_walk,tools=2"  # the agent's next tool a coin: not drawable (tests/test_known_walks.py)
BENCH = ["bench", "--tasks", TASK, "--patterns", "single,agent", "--model", "sim:error_rate=0.05", "--instances",
         "16", "--no-drawn", "--workers", "1"]


def drawability(out: Path) -> float:
    return float(pd.read_csv(out / "criterion.csv").set_index("task").loc[TASK, "drawability"])


def test_the_phase_runs_only_where_it_adds_what_drawability_needs() -> None:
    pilot = BenchConfig(tasks=("pipeline", "walks"), patterns=("chain", "agent"), instances=60, trials=1,
                        model="sim", out=Path("o"))
    p = phase(pilot)
    assert p.config is not None and p.skipped is None
    c = p.config
    assert (c.out, c.patterns, c.instances, c.trials) == (Path("o") / REPEATS, ("agent",), REPEATS_INSTANCES, 3)
    assert c.tasks == ("pipeline", "walks") and c.patterns_by_task == () and c.instances_by_task == ()
    assert phase(pilot, instances=100).config.instances == 60  # never past the pilot's instances
    silent = [BenchConfig(trials=REPEATS_TRIALS, model="sim"), BenchConfig(patterns=("chain",), trials=1, model="sim"),
              BenchConfig(instances=D + 1, trials=1, model="sim")]  # its own trials; no agent; too few instances
    assert all(phase(s).config is None and phase(s).skipped is None for s in silent)
    assert phase(BenchConfig(instances=D + 2, trials=1, model="sim")).config.instances == D + 2
    skipped = phase(pilot, skip=True)
    assert skipped.config is None and "--no-repeats" in skipped.skipped and skipped.forget == pilot
    paid = BenchConfig(tasks=("pipeline",), patterns=("chain", "agent"), trials=1, model="anthropic:claude-x")
    assert phase(paid).config is None and "--repeats runs it" in phase(paid).skipped  # money: only when asked
    assert phase(paid, paid=True).config is not None
    capped = BenchConfig(tasks=("pipeline",), patterns=("chain", "agent"), trials=1, model="sim", max_cost_usd=1.0)
    assert phase(capped).config is None and "--max-cost" in phase(capped).skipped


def test_drawability_is_read_from_the_repeats_and_resume_does_not_rerun_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    argv = [*BENCH, "--out", str(out)]
    assert main([*argv, "--no-repeats", "--quiet"]) == 0
    assert not (out / REPEATS).exists() and REPEATS not in read_manifest(out)
    assert math.isnan(drawability(out))  # one trial an instance: a coin's choice cannot be told from the instance's
    reason = pd.read_csv(out / "criterion.csv").set_index("task").loc[TASK, "drawability_reason"]
    assert str(reason).startswith("not measured")
    capsys.readouterr()

    assert main([*argv, "--resume", "--json"]) == 0  # the pilot has nothing to do; the phase runs
    said = capsys.readouterr()
    doc = json.loads(said.out)
    assert "the repeats phase: the agent alone, 3 trials" in said.err
    assert any(n.startswith("repeats: 48 agent trials (48 run now)") for n in doc["notes"])
    assert doc["repeats_totals"]["trials"] == 48 and doc["totals"]["trials"] == 32
    runs = pd.read_csv(out / REPEATS / "runs.csv")
    assert set(runs["pattern"]) == {"agent"} and runs["instance"].nunique() == 16 and set(runs["trial"]) == {0, 1, 2}
    record = read_manifest(out)[REPEATS]
    assert (record["folder"], record["instances"], record["trials_per_instance"], record["tasks"]) == (
        REPEATS, 16, 3, [TASK]) and "drawability is read here" in record["why"]
    pilot = pd.read_csv(out / "runs.csv")  # an instance's first trial is the pilot's own, run again
    both = pilot.merge(runs, on="run_id", suffixes=("_pilot", "_repeats"))
    assert len(both) == 16 and (both["success_pilot"] == both["success_repeats"]).all()
    assert drawability(out) < THRESHOLD  # the repeats show the choice does not follow the instance: not drawn
    assert doc["criterion"][0]["drawability"] == pytest.approx(drawability(out))

    before = (out / REPEATS / "runs.csv").read_bytes()
    assert main([*argv, "--resume", "--quiet"]) == 0
    said = capsys.readouterr()
    assert "repeats: 48 agent trials (0 run now)" in said.out and said.err == ""
    assert (out / REPEATS / "runs.csv").read_bytes() == before

    assert main([*argv, "--resume", "--no-repeats", "--quiet"]) == 0  # skipped: the record goes, the pilot is read
    assert REPEATS not in read_manifest(out)
    assert main(["criterion", str(out)]) == 0 and math.isnan(drawability(out))  # not measured again


def test_overwrite_runs_the_phase_again_and_a_stale_folder_is_not_read(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    argv = [*BENCH, "--out", str(out), "--quiet", "--fixed"]
    assert main(argv) == 0
    assert main([*argv, "--overwrite"]) == 0
    assert "repeats: 48 agent trials (48 run now)" in capsys.readouterr().out
    manifest = read_manifest(out)
    assert RepeatsRuns(out, manifest).of(TASK) is not None
    walks = repeated_walks(out, manifest)[TASK]  # what the report's learning curve reads, as the criterion does
    assert len(walks) == 16 and {len(w) for w in walks.values()} == {3} and all(map(all, walks.values()))
    for stale in ({"trials": REPEATS_TRIALS}, {"seed": 1}, {"code_digest": "another"}, {REPEATS: None}):
        assert RepeatsRuns(out, {**manifest, **stale}).of(TASK) is None, stale  # drawability reads the folder
        assert not readable(out, {**manifest, **stale}), stale  # ... and the report does not say it read repeats/
    assert main(["report", str(out)]) == 0  # the report says which walks drawability and the drawn graph read
    assert ("Drawability, and the drawn graph with its picture, read the repeats phase's walks (`repeats/`: the "
            "agent alone at 3 trials on the first 16 instances)") in (out / "REPORT.md").read_text()


def test_repeats_with_a_cost_cap_is_refused_before_anything_runs(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c"
    assert main([*BENCH, "--out", str(out), "--repeats", "--max-cost", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-cost caps one sweep" in err[0] and not out.exists()
    assert main([*BENCH, "--out", str(out), "--repeats", "--no-repeats"]) == 2  # one or the other
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not allowed with argument --repeats" in err[0] and not out.exists()


def test_the_drawn_comparator_is_drawn_from_the_walks_drawability_reads(tmp_path: Path) -> None:
    """The drawn graph, its picture and the drawn runs come from the repeats phase's walks when it ran (one trial
    per instance reads a step the agent leaves one time in five as a rule), and the criterion reads those runs."""
    task = "walks:process=pipeline,shortest=3,longest=3"
    out = tmp_path / "d"
    assert main(["bench", "--tasks", task, "--patterns", "single,agent", "--model", "sim:error_rate=0.05",
                 "--instances", "48", "--workers", "1", "--fixed", "--quiet", "--out", str(out)]) == 0
    about = json.loads((out / "drawn" / drawing_file(task)).read_text())["about"]
    walks = repeated_walks(out, read_manifest(out))[task]
    chosen, drawing = drawn_graph(walks, D, 0)
    assert len(walks) == REPEATS_INSTANCES < 48 and about["drawing_instances"] == chosen  # drawn among the 40
    written = json.loads((out / "drawn" / drawing_file(task)).read_text())
    assert written["nodes"] == json.loads(to_json(drawing))["nodes"]
    pairs = pd.read_csv(out / "criterion_pairs.csv")
    assert (pairs["workflow"] == "drawn").sum() == 1  # its runs are read: the drawing is the one these walks give
