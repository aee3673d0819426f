"""The breadth × cost-of-a-look map: `wva sweep` moves a trail family's `places` and `call_cost` together, and runs
only the designs `--patterns` names."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchmarks.cli.main import main


def test_a_sweep_over_places_and_call_cost_runs_the_named_designs_at_every_cell(tmp_path: Path) -> None:
    out = tmp_path / "map"
    assert main(["sweep", "explore", "--param", "places", "--values", "10,12", "--by", "call_cost", "--by-values",
                 "0,0.001", "--patterns", "agent,chain", "--instances", "2", "--trials", "1", "--quiet",
                 "--out", str(out)]) == 0
    table = pd.read_csv(out / "sweep.csv", dtype=str)
    assert list(zip(table["value"], table["by_value"], table["task"], strict=True)) == [
        ("10", "0", "explore:places=10"), ("10", "0.001", "explore:call_cost=0.001,places=10"),
        ("12", "0", "explore:places=12"), ("12", "0.001", "explore:call_cost=0.001,places=12")]
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs["pattern"]) == {"agent", "chain"} and len(runs) == 4 * 2 * 2
    events = pd.read_json(out / "events.jsonl", lines=True)
    model_cost = events[events["kind"] == "model_call"].groupby("run_id")["cost_usd"].sum()
    for task, rows in runs.groupby("task"):
        fee = 0.001 if "call_cost" in str(task) else 0.0
        looks = rows["cost_usd"] - rows["run_id"].map(model_cost)
        assert looks.round(9).tolist() == (fee * rows["tool_calls"]).round(9).tolist()  # each look, its fee
        assert rows[rows["pattern"] == "chain"]["tool_calls"].min() >= (12 if "places=12" in str(task) else 10)
