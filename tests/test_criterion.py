"""The criterion: drawability from recorded walks, the drawn comparator's rows, the paired bootstrap and
the verdict, on synthetic data whose right answer is known by construction."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.drawability import THRESHOLD, drawing_file, drawn_graph, learn_graph, to_json
from benchmarks.criterion.drawability.walks import rounds_by_run, walked_graph, walks_by_instance
from benchmarks.criterion.render import flips_of, format_verdicts
from benchmarks.criterion.table import (
    COLUMNS,
    PAIRS,
    agrees,
    criterion_table,
    criterion_tables,
    predict,
    write_criterion,
)
from benchmarks.criterion.tradeoff import pareto_front
from benchmarks.harness.trial import RUN_COLUMNS
from benchmarks.studies.sweep import parse_values


def write_folder(out: Path, rows: list[dict[str, Any]], events: list[dict[str, Any]] | None = None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    full = [{c: r.get(c, 0) for c in RUN_COLUMNS} for r in rows]
    pd.DataFrame(full, columns=RUN_COLUMNS).to_csv(out / "runs.csv", index=False)
    with (out / "events.jsonl").open("w") as f:
        for e in events or []:
            f.write(json.dumps(e) + "\n")
    (out / "manifest.json").write_text(json.dumps({"model": "sim", "seed": 0, "tasks": []}))
    return out


def trials(pattern: str, instances: int, k: int, success: Any, cost: float, steps: int = 2,
           task: str = "toy") -> list[dict[str, Any]]:
    """`success(i, t) -> bool` decides each trial; ids are unique per (pattern, instance, trial)."""
    return [{"run_id": f"{pattern}-{i}-{t}", "pattern": pattern, "task": task, "instance": f"toy-{i:04d}",
             "trial": t, "success": bool(success(i, t)), "terminal": "completed", "steps": steps,
             "cost_usd": cost, "latency_s": float(steps)} for i in range(instances) for t in range(k)]


def agent_events(run_id: str, tools: list[list[str]]) -> list[dict[str, Any]]:
    """A model call per round (its tool calls follow it), then the final model call."""
    out: list[dict[str, Any]] = []
    for pos, rnd in enumerate(tools):
        out.append({"run_id": run_id, "kind": "model_call", "position": pos})
        out += [{"run_id": run_id, "kind": "tool_call", "gen_ai.tool.name": name} for name in rnd]
    out.append({"run_id": run_id, "kind": "model_call", "position": len(tools)})
    return out


def one(df: pd.DataFrame) -> Any:
    assert len(df) == 1
    return next(df.itertuples())


# --- the verdict on whole small result tables -----------------------------------------------------

def test_a_clear_workflow_win(tmp_path: Path) -> None:
    rows = trials("chain", 20, 3, lambda i, t: True, 0.001) + trials("single", 20, 3, lambda i, t: i % 2, 0.0005) \
        + trials("agent", 20, 3, lambda i, t: i % 3 != 0, 0.004, steps=5)
    r = one(criterion_table(write_folder(tmp_path, rows)))
    assert r.comparator == "chain" and r.verdict == "workflow" and r.comparator_mode.startswith("selected")
    assert r.diff_ci_high < 0 and r.reason.startswith("a workflow is significantly more successful")
    assert r.cost_ratio == pytest.approx(0.25) and r.steps_ratio == pytest.approx(0.4)
    assert r.pareto == "single;chain"  # agent costs more for less success: dominated by chain


def test_a_clear_agent_win(tmp_path: Path) -> None:
    rows = trials("chain", 20, 3, lambda i, t: i < 4, 0.001) + trials("agent", 20, 3, lambda i, t: True, 0.004)
    r = one(criterion_table(write_folder(tmp_path, rows)))
    assert r.verdict == "agent" and r.diff_ci_low > 0
    assert r.success_diff == pytest.approx(0.8)
    assert set(r.pareto.split(";")) == {"chain", "agent"}


def test_an_inconclusive_case_points_to_the_planner(tmp_path: Path) -> None:
    # 3 instances, success differs by instance, the workflow costs more: no significant difference
    rows = trials("chain", 3, 2, lambda i, t: i != 0, 0.01) + trials("agent", 3, 2, lambda i, t: i != 1, 0.001)
    r = one(criterion_table(write_folder(tmp_path, rows)))
    assert r.verdict == "inconclusive" and r.diff_ci_low < 0 < r.diff_ci_high
    assert pd.isna(r.agrees) and "instances_needed" not in r._fields
    assert "'wva plan' on this folder says how many instances would settle it" in r.note


def test_identical_results_over_few_instances_are_not_called_equivalent(tmp_path: Path) -> None:
    # no spread at all: the floor of one discordant instance in n keeps 20 instances from proving ±0.05
    rows = trials("single", 20, 3, lambda i, t: True, 0.001) + trials("agent", 20, 3, lambda i, t: True, 0.001)
    r = one(criterion_table(write_folder(tmp_path, rows)))
    assert r.verdict == "inconclusive" and r.diff_ci_low == pytest.approx(-r.diff_ci_high)
    rows = trials("single", 200, 3, lambda i, t: True, 0.001) + trials("agent", 200, 3, lambda i, t: True, 0.001)
    r = one(criterion_table(write_folder(tmp_path / "many", rows)))
    assert r.verdict == "either"


def test_the_chapter_prediction_and_agreement() -> None:
    assert predict(THRESHOLD) == "workflow" and predict(THRESHOLD - 0.01) == "agent" and predict(math.nan) is None
    assert agrees("workflow", "workflow") is True and agrees("agent", "workflow") is False
    assert agrees("either", "agent") is True and agrees("inconclusive", "agent") is None


# --- the parts ----------------------------------------------------------------------------------

def test_pareto_front() -> None:
    pts = {"a": (0.9, 1.0), "b": (0.9, 2.0), "c": (1.0, 3.0), "d": (0.5, 0.5), "e": (0.4, 0.6), "f": (1.0, math.nan)}
    assert pareto_front(pts) == ["d", "a", "c"]
    assert pareto_front({**pts, "never": (0.0, 0.1)}) == ["d", "a", "c"]  # 0% success: cheapest, yet no trade-off


def test_drawability_from_recorded_traces(tmp_path: Path) -> None:
    rows = trials("chain", 20, 2, lambda i, t: True, 0.001) + trials("agent", 20, 2, lambda i, t: True, 0.002)
    same = [e for r in rows if r["pattern"] == "agent" for e in agent_events(r["run_id"], [["read"], ["write"]])]
    r = one(criterion_table(write_folder(tmp_path / "same", rows, same)))
    assert r.drawability == 1.0 and r.chapter_prediction == "workflow" and r.drawability_d == 10
    # start -> read -> write -> end, each a fixed edge: three code dispatches and no route left to the model
    assert (r.graph_nodes, r.graph_edges, r.graph_loops, r.graph_routes, r.graph_cap) == (2, 3, 0, 0, 3)
    assert r.graph_dispatches == 3
    rng, varied = random.Random(3), []  # every trial its own random walk over four tools: no graph foretells it
    for row in (r2 for r2 in rows if r2["pattern"] == "agent"):
        varied += agent_events(row["run_id"], [[t] for t in rng.choices(["a", "b", "c", "d"], k=rng.randint(2, 6))])
    r = one(criterion_table(write_folder(tmp_path / "varied", rows, varied)))
    assert r.drawability_ci_high < THRESHOLD and r.chapter_prediction == "agent"


def test_no_recorded_walk_is_no_drawability_not_a_perfect_one(tmp_path: Path) -> None:
    rows = trials("chain", 20, 2, lambda i, t: True, 0.001) + trials("agent", 20, 2, lambda i, t: True, 0.002)
    r = one(criterion_table(write_folder(tmp_path, rows)))  # no events at all
    assert math.isnan(r.drawability) and math.isnan(r.graph_nodes) and pd.isna(r.chapter_prediction)
    assert r.verdict in ("workflow", "agent", "either", "inconclusive")


def test_the_drawn_comparator_is_read_from_its_sub_folder(tmp_path: Path) -> None:
    rows = trials("chain", 30, 2, lambda i, t: i % 2, 0.001) + trials("agent", 30, 2, lambda i, t: True, 0.004)
    walk = [["read"], ["write"]]
    events = [e for r in rows if r["pattern"] == "agent" for e in agent_events(r["run_id"], walk)]
    folder = write_folder(tmp_path, rows, events)
    before, before_pairs = criterion_tables(folder)
    chosen, drawing = drawn_graph(walks_by_instance(pd.DataFrame(rows), events))  # as the bench draws it
    tested = [r for r in trials("agent", 30, 2, lambda i, t: True, 0.001) if r["instance"] not in chosen]
    write_folder(folder / "drawn", [r | {"pattern": "drawn", "run_id": "d" + r["run_id"]} for r in tested])
    (folder / "drawn" / drawing_file("toy")).write_text(to_json(drawing, {"drawing_instances": chosen}))
    after, pairs = criterion_tables(folder)
    assert after.drop(columns="note").equals(before.drop(columns="note"))  # the default verdict ignores it
    assert list(pairs["workflow"]) == [*before_pairs["workflow"], "drawn"]
    row = pairs[pairs["workflow"] == "drawn"].iloc[0]
    assert row["instances"] == 20 and row["workflow_success"] == 1.0 and row["agent_success"] == 1.0
    assert row["cost_ratio"] == pytest.approx(0.25) and row["workflow_cost"] == pytest.approx(0.001)
    named = one(criterion_table(folder, comparator="drawn"))
    assert (named.comparator, named.instances, named.verdict) == ("drawn", 20, "inconclusive")
    assert named.pareto == before.iloc[0]["pareto"]  # the drawn graph is never on the sweep's front
    # a drawing the folder's walks no longer give (the bench was run again): its runs are not read
    (folder / "drawn" / drawing_file("toy")).write_text(to_json(learn_graph([tuple(frozenset(r) for r in walk[:1])])))
    stale = one(criterion_table(folder, comparator="drawn"))
    assert stale.note.startswith("no runs of the comparator drawn") and "benchmarks.studies.run_drawn" in stale.note
    assert "drawn" not in set(criterion_tables(folder)[1]["workflow"])


def test_rounds_follow_the_model_calls() -> None:
    events = [*agent_events("r1", [["a", "b"], ["c"]]), {"run_id": "w", "kind": "tool_call",
                                                          "gen_ai.tool.name": "fixed"}]
    rounds = rounds_by_run(events)
    assert [r.tools for r in rounds["r1"]] == [("a", "b"), ("c",)] and [r.tools for r in rounds["w"]] == [("fixed",)]
    walked = walked_graph([[("a",), ("a",)], [("a",)]])
    assert walked.edges["a", "a"]["count"] == 1 and walked.edges["input", "a"]["count"] == 2
    assert walked.nodes["a"]["calls"] == 3


def test_the_csv_has_the_documented_columns_and_the_verdict_lines(tmp_path: Path) -> None:
    rows = trials("chain", 5, 2, lambda i, t: True, 0.001) + trials("agent", 5, 2, lambda i, t: True, 0.002)
    df = write_criterion(write_folder(tmp_path, rows))
    back = pd.read_csv(tmp_path / "criterion.csv")
    assert list(back.columns) == COLUMNS and back["verdict"].isin(["workflow", "agent", "either",
                                                                   "inconclusive"]).all()
    pairs = pd.read_csv(tmp_path / PAIRS)
    assert list(pairs["workflow"]) == ["chain"] and {"diff_sim_low", "cost_sim_high"} <= set(pairs.columns)
    text = format_verdicts(df)
    assert "toy: INCONCLUSIVE" in text and "chain 100% vs agent 100%" in text


def test_sweep_values_and_flips() -> None:
    assert parse_values("3,2-4, 1-6,,1-10") == ["3", "2-4", "1-6", "1-10"]
    with pytest.raises(ValueError):
        parse_values(" , ")
    table = pd.DataFrame({"value": ["3", "2-4", "1-6"], "verdict": ["workflow", "workflow", "agent"]})
    assert flips_of(table) == [("2-4", "1-6", "workflow", "agent")]


# --- bad input: one line, exit 2 -------------------------------------------------------------------

@pytest.mark.parametrize("command", ["criterion", "report"])
def test_a_bad_folder_is_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               command: str) -> None:
    for folder, says in ((tmp_path / "missing", "no such folder"), (tmp_path, "has no runs.csv")):
        assert main([command, str(folder)]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith("wva: error:") and says in err, err


@pytest.mark.parametrize(("argv", "says"), [
    (["sweep", "multihop", "--param", "nope", "--values", "1"], "unknown parameter 'nope'"),
    (["sweep", "nosuchtask", "--param", "hops", "--values", "1"], "unknown task"),
    (["sweep", "multihop", "--param", "hops", "--values", "0"], "bad value"),
    (["sweep", "multihop", "--param", "hops", "--values", "3,3-3"], "the same setting"),
    (["sweep", "multihop", "--param", "hops"], "--values"),
])
def test_sweep_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("wva: error:") and says in err, err
    assert not (tmp_path / "out").exists()  # nothing written before the input was checked
