"""The default `wva bench` decides: a pilot of every design, then each task's agent and declared workflow run on
into OUT/decided/ under a group-sequential design; the folder's manifest records the cap and the looks, and the
criterion reads the decided rows at the look each task stopped at."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli._common import UsageError
from benchmarks.cli.main import main
from benchmarks.cli.until_decided import decided_design
from benchmarks.names import DECIDED_BATCH, DECIDED_CAP, DEFAULT_INSTANCES, DEFAULT_TRIALS


def _args(**given: object) -> argparse.Namespace:
    base = {"fixed": False, "until_decided": False, "max_instances": None, "batch": None, "spending": None,
            "instances": DEFAULT_INSTANCES, "fixed_size": False, "model": "sim:error_rate=0.1"}
    return argparse.Namespace(**(base | given))


def test_the_default_is_sequential_with_the_documented_cap_and_one_trial() -> None:
    d = decided_design(_args())
    assert (d.batch, d.max_instances, d.spending) == (DECIDED_BATCH, DECIDED_CAP, "obf") and DEFAULT_TRIALS == 1
    assert d.looks == (200, 400, 600, 800, 1000)
    assert decided_design(_args(fixed=True)) is None  # the old fixed-size run
    assert decided_design(_args(fixed_size=True, instances=100)) is None  # --instances N: as asked
    assert decided_design(_args(fixed_size=True, max_instances=300)).max_instances == 300  # N the pilot, a cap
    assert decided_design(_args(model="anthropic:claude-x")) is None  # money: only with --max-instances
    with pytest.raises(UsageError, match="--max-cost caps one sweep"):  # a second sweep the cap would not cover
        decided_design(_args(model="anthropic:claude-x", max_instances=300, max_cost=1.0))


def test_the_decided_phase_is_recorded_and_read_at_its_stopping_look(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    argv = ["bench", "--tasks", "pipeline", "--patterns", "single,chain,agent", "--instances", "20",
            "--max-instances", "60", "--batch", "20", "--workers", "1", "--no-drawn", "--out", str(out)]
    assert main(argv) == 0
    said = capsys.readouterr()
    assert "at most 60 instances (looks at 20, 40, 60; obf spending" in said.err
    pilot = pd.read_csv(out / "runs.csv")
    assert set(pilot["pattern"]) == {"single", "chain", "agent"} and pilot["instance"].nunique() == 20
    grown = pd.read_csv(out / "decided" / "runs.csv")
    assert set(grown["pattern"]) == {"chain", "agent"}  # the agent and the declared workflow only
    totals = [line for line in said.out.splitlines() if line.startswith(f"  + the decided phase ({out}/decided/): $")]
    assert len(totals) == 1 and totals[0].endswith(f"over {len(grown):,} trials")  # what the run cost says it all
    record = json.loads((out / "manifest.json").read_text())["decided"]
    assert (record["cap"], record["batch"], record["spending"], record["folder"]) == (60, 20, "obf", "decided")
    last = record["looks"][-1]
    assert last["task"] == "pipeline" and last["instances"] == grown["instance"].nunique()
    inner = json.loads((out / "decided" / "manifest.json").read_text())["until_decided"]
    assert inner["max_instances"] == 60 and inner["looks"] == record["looks"]
    row = pd.read_csv(out / "criterion.csv").iloc[0]
    assert row.verdict == last["verdict"] and row.instances == last["instances"]
    assert row.diff_level == pytest.approx(last["levels"]["win"])  # read at the look it stopped at
    # a first trial of the decided phase is the pilot's own trial, run again (the same run id, the same outcome)
    both = pilot.merge(grown, on="run_id", suffixes=("_pilot", "_decided"))
    assert len(both) == 2 * 20 and (both["success_pilot"] == both["success_decided"]).all()
    # the same command again has nothing to do and changes nothing
    before = {p: p.read_bytes() for p in out.rglob("*.csv")}
    assert main(argv) == 0 and {p: p.read_bytes() for p in out.rglob("*.csv")} == before


def test_fixed_runs_one_fixed_size_sweep(tmp_path: Path) -> None:
    out = tmp_path / "f"
    assert main(["bench", "--tasks", "pipeline", "--patterns", "chain,agent", "--fixed", "--workers", "1",
                 "--no-drawn", "--quiet", "--out", str(out)]) == 0
    assert not (out / "decided").exists() and "decided" not in json.loads((out / "manifest.json").read_text())
    assert pd.read_csv(out / "runs.csv")["instance"].nunique() == DEFAULT_INSTANCES


@pytest.mark.parametrize(("trials", "missing"), [(1, True), (3, False)])
def test_the_pass_k_chart_says_when_pass_k_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      trials: int, missing: bool) -> None:
    import matplotlib.pyplot as plt

    from benchmarks.report.charts import curves

    said: dict[str, str] = {}

    def finish(fig: object, title: str, path: Path) -> Path:
        said["title"] = title
        plt.close(fig)  # type: ignore[arg-type]
        return path

    monkeypatch.setattr(curves, "finish", finish)
    runs = pd.DataFrame([{"task": "t", "pattern": p, "instance": f"i{i}", "trial": k, "success": (i + k) % 3 > 0}
                         for p in ("agent", "chain") for i in range(6) for k in range(trials)])
    curves.pass_k_chart(runs, tmp_path)
    assert ("MISSING for k > 1" in said["title"]) is missing
    assert ("wva bench --trials 3" in said["title"]) is missing
