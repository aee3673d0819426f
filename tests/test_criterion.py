"""The criterion: predictability, the paired bootstrap, the graph fit and the verdict, on synthetic data
whose right answer is known by construction."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion import predictability as pr
from benchmarks.criterion.render import flips_of, format_verdicts
from benchmarks.criterion.table import (
    COLUMNS,
    PAIRS,
    agrees,
    criterion_table,
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
    assert r.verdict == "either" and bool(r.agrees) is True


def test_the_chapter_prediction_and_agreement() -> None:
    assert predict(0.9) == "workflow" and predict(0.1) == "agent" and predict(math.nan) is None
    assert agrees("workflow", "workflow") is True and agrees("agent", "workflow") is False
    assert agrees("either", "agent") is True and agrees("inconclusive", "agent") is None


# --- the parts ----------------------------------------------------------------------------------

def test_pareto_front() -> None:
    pts = {"a": (0.9, 1.0), "b": (0.9, 2.0), "c": (1.0, 3.0), "d": (0.5, 0.5), "e": (0.4, 0.6), "f": (1.0, math.nan)}
    assert pareto_front(pts) == ["d", "a", "c"]


def small_chain() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_node("input", kind="io")
    g.add_node("read", kind="tool", tools=("read",))
    g.add_node("think", kind="llm")
    g.add_node("act", kind="tool", tools=("write", "check"))
    g.add_node("output", kind="io")
    nx.add_path(g, ["input", "read", "think", "act", "output"])
    return g


def test_graph_fit_on_a_chain() -> None:
    g = small_chain()
    assert pr.fits(g, ["read", "write"]) and pr.fits(g, [["read"], ["write", "check"]])
    assert not pr.fits(g, ["write", "read"])  # wrong order
    assert not pr.fits(g, ["read"])  # stopped short of a fixed step
    assert not pr.fits(g, ["read", "write", "check"])  # one round more than the graph has
    assert not pr.fits(g, ["read", "delete"])  # a tool the node does not offer
    assert not pr.fits(g, [])


def test_graph_fit_with_a_loop_a_dynamic_node_and_an_optional_branch() -> None:
    loop = nx.DiGraph()
    loop.add_nodes_from([("input", {"kind": "io"}), ("gen", {"kind": "llm"}), ("output", {"kind": "io"}),
                         ("t", {"kind": "tool", "tools": ("x",)}), ("judge", {"kind": "code"})])
    nx.add_path(loop, ["input", "gen", "t", "judge", "output"])
    loop.add_edge("judge", "gen")
    assert pr.fits(loop, ["x", "x", "x"])
    dyn = small_chain()
    dyn.nodes["read"]["dynamic"] = True
    assert pr.fits(dyn, ["read", "read", "read", "check"])
    dyn.add_edge("think", "output")  # the model may answer without acting
    assert pr.fits(dyn, ["read"])


def test_predictability_is_high_for_identical_paths_and_low_for_varied_ones() -> None:
    same = [[("lookup",), ("answer",)]] * 12
    assert pr.path_entropy([pr.shape(w) for w in same]) == 0.0
    assert pr.steps_cv([3] * 12) == 0.0
    assert pr.score(0.0, 0.0, 1.0) == 1.0
    varied = [[("lookup",)] * (1 + i % 6) for i in range(12)] + [[("a",), ("b",)], [("b",), ("a",)]]
    entropy = pr.path_entropy([pr.shape(w) for w in varied])
    cv = pr.steps_cv([len(w) + 1 for w in varied])
    assert entropy > 0.6 and cv > 0.3
    assert pr.score(cv, entropy, 0.1) < 0.35
    assert pr.score(0.5, math.log(2), math.nan) == pytest.approx(0.5)  # the fit unknown: the mean of the rest


def test_the_path_entropy_is_chao_shen_corrected() -> None:
    # by hand: counts (3, 3): coverage 1, p = 1/2, each term -p ln p / (1 - (1 - p)^6)
    assert pr.chao_shen([3, 3]) == pytest.approx(2 * (0.5 * math.log(2)) / (1 - 0.5 ** 6))
    # counts (2, 1): one singleton in 3, coverage 2/3, so p = 4/9 and 2/9, each weighted by 1 / (1 - (1 - p)^3)
    assert pr.chao_shen([2, 1]) == pytest.approx(1.0662, abs=1e-4)
    assert pr.chao_shen([7]) == 0.0 and pr.chao_shen([1]) == 0.0
    assert pr.effective_paths(pr.chao_shen([1000, 1000])) == pytest.approx(2, abs=0.01)


def test_the_path_part_does_not_drift_with_the_number_of_runs() -> None:
    # a known distribution of 8 paths: its true effective number is exp(entropy)
    rng = random.Random(7)
    probs = [0.4, 0.2, 0.12, 0.1, 0.08, 0.05, 0.03, 0.02]
    truth = 1 / math.exp(-sum(p * math.log(p) for p in probs))

    def mean_part(n: int, reps: int) -> float:
        parts = [1 / pr.effective_paths(pr.path_entropy(rng.choices(range(8), probs, k=n))) for _ in range(reps)]
        return sum(parts) / reps

    small, large = mean_part(60, 300), mean_part(600, 100)
    assert abs(small - large) < 0.03 and abs(large - truth) < 0.02, (small, large, truth)


def test_the_score_interval_resamples_instances() -> None:
    same = [(str(i % 10), 3.0, ("a",), 1.0) for i in range(30)]
    assert pr.score_interval(same) == (1.0, 1.0)
    mixed = [(str(i % 10), 2.0 + i % 4, ("a",) * (i % 3), float(i % 2)) for i in range(60)]
    low, high = pr.score_interval(mixed)
    assert low < pr.measure(mixed)[3] < high
    assert math.isnan(pr.score_interval(same[:1])[0])  # one instance: nothing to resample


def test_predictability_from_recorded_traces(tmp_path: Path) -> None:
    rows = trials("chain", 10, 2, lambda i, t: True, 0.001) + trials("agent", 10, 2, lambda i, t: True, 0.002)
    same = [e for r in rows if r["pattern"] == "agent" for e in agent_events(r["run_id"], [["read"], ["write"]])]
    r = one(criterion_table(write_folder(tmp_path / "same", rows, same)))
    assert r.steps_cv == 0 and r.path_entropy == 0 and r.predictability == 1.0  # the fit: unknown family
    varied, agent = [], []
    for j, row in enumerate(r2 for r2 in rows if r2["pattern"] == "agent"):
        walk = [["read"]] * (1 + j % 5) + ([["write", "check"]] if j % 2 else [["check"]])
        agent.append({**row, "steps": len(walk) + 1})
        varied += agent_events(row["run_id"], walk)
    rows2 = [r2 for r2 in rows if r2["pattern"] != "agent"] + agent
    r = one(criterion_table(write_folder(tmp_path / "varied", rows2, varied)))
    assert r.predictability < 0.5 and r.chapter_prediction == "agent"


def test_rounds_follow_the_model_calls() -> None:
    events = [*agent_events("r1", [["a", "b"], ["c"]]), {"run_id": "w", "kind": "tool_call",
                                                          "gen_ai.tool.name": "fixed"}]
    assert pr.rounds_by_run(events) == {"r1": [("a", "b"), ("c",)], "w": [("fixed",)]}
    walked = pr.walked_graph([[("a",), ("a",)], [("a",)]])
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
