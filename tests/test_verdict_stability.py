"""The same sweep at other seeds: the pooled verdict on simulated seeds whose truth is known, the agreement of
each seed's own verdict, and replicate folders read (or refused) through `wva criterion --replicates`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.deciding import decide_task
from benchmarks.criterion.stability import seed_agreement
from tests.synthetic_results import Scenario, write_scenario


def runs(agent: list[float], flow: list[float], cost: tuple[float, float] = (0.01, 0.01)) -> pd.DataFrame:
    """One trial per instance of the agent and `chain`, with the given successes and costs."""
    rows = [{"pattern": p, "instance": f"i{i:03d}", "success": bool(s), "cost_usd": c, "steps": 3,
             "latency_s": 1.0, "run_id": f"{p}{i}"}
            for p, ss, c in (("agent", agent, cost[0]), ("chain", flow, cost[1])) for i, s in enumerate(ss)]
    return pd.DataFrame(rows)


def test_the_agreement_over_seeds_by_hand() -> None:
    reps = pd.DataFrame({"seed": [1, 2, 3, 0], "task": ["t"] * 4, "verdict": ["workflow", "agent", "workflow", "x"]})
    share, seeds = seed_agreement("t", "workflow", 0, reps)  # the row at seed 0 is this run: not counted twice
    assert share == pytest.approx(3 / 4) and seeds == "0,1,2,3"
    assert seed_agreement("other", "workflow", 0, reps) == (pytest.approx(float("nan"), nan_ok=True), "")


def _folder(tmp: Path, name: str, seed: int) -> Path:
    out = write_scenario(tmp / name, Scenario(1, 30, {"agent": 0.9, "chain": 0.5}), seed=seed)
    doc = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(doc | {"instances": 30, "trials": 3}))
    return out


def test_replicates_give_each_verdict_its_agreement_over_seeds(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _folder(tmp_path, "a", 0), _folder(tmp_path, "b", 1)
    assert main(["criterion", str(a), "--replicates", str(b)]) == 0
    reps = pd.read_csv(a / "replicates.csv")
    assert list(reps[["seed", "verdict"]].itertuples(index=False, name=None)) == [(1, "agent"), (-1, "agent")]
    row = pd.read_csv(a / "criterion.csv").iloc[0]
    assert row.verdict == "agent" and row.seed_agreement == 1.0 and row.seeds == "0,1"
    assert row.pooled_verdict == "agent" and row.pooled_instances == 60  # 30 instances of each seed, side by side
    assert "pooled agent; 2 of 2 seeds agree" in capsys.readouterr().out
    # a later read of the folder (wva report, wva criterion) keeps the agreement: it reads replicates.csv
    assert main(["criterion", str(a)]) == 0 and pd.read_csv(a / "criterion.csv").iloc[0].seed_agreement == 1.0


def test_a_folder_that_is_no_replicate_is_one_line_and_exit_2(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    a, same_seed = _folder(tmp_path, "a", 0), _folder(tmp_path, "c", 0)
    other = _folder(tmp_path, "d", 2)
    doc = json.loads((other / "manifest.json").read_text())
    (other / "manifest.json").write_text(json.dumps(doc | {"trials": 5}))
    for bad, says in ((same_seed, "at seed 0"), (other, "another trials"), (tmp_path / "nope", "not a results")):
        capsys.readouterr()
        assert main(["criterion", str(a), "--replicates", str(bad)]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1
        assert not (a / "replicates.csv").exists()


def test_replicates_of_another_code_version_are_refused_and_stale_rows_ignored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _folder(tmp_path, "a", 0), _folder(tmp_path, "b", 1)
    for folder in (a, b):
        doc = json.loads((folder / "manifest.json").read_text())
        (folder / "manifest.json").write_text(json.dumps(doc | {"code_digest": "v1"}))
    assert main(["criterion", str(a), "--replicates", str(b)]) == 0
    assert pd.read_csv(a / "criterion.csv").iloc[0].seed_agreement == 1.0
    doc = json.loads((a / "manifest.json").read_text())
    (a / "manifest.json").write_text(json.dumps(doc | {"code_digest": "v2"}))  # the folder rerun with new code
    assert main(["criterion", str(a)]) == 0
    assert pd.isna(pd.read_csv(a / "criterion.csv").iloc[0].seed_agreement)  # the v1 replicates no longer count
    capsys.readouterr()
    assert main(["criterion", str(a), "--replicates", str(b)]) == 2
    assert "another code_digest" in capsys.readouterr().err


def test_a_replicate_whose_runs_csv_is_cut_off_is_one_line_naming_it_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _folder(tmp_path, "a", 0)
    for name, cut in (("torn", lambda data: data[: len(data) // 2]),  # mid-line: a torn last line
                      ("short", lambda data: data[: data.index(b"\n", len(data) // 2) + 1])):  # whole lines, half
        b = _folder(tmp_path, name, 1)
        doc = json.loads((b / "manifest.json").read_text())
        rows = len(pd.read_csv(b / "runs.csv"))
        (b / "manifest.json").write_text(json.dumps(doc | {"trials_total": rows}))
        assert main(["criterion", str(a), "--replicates", str(b)]) == 0  # whole, it is read
        (b / "runs.csv").write_bytes(cut((b / "runs.csv").read_bytes()))
        (a / "replicates.csv").unlink()
        capsys.readouterr()
        assert main(["criterion", str(a), "--replicates", str(b)]) == 2
        err = capsys.readouterr().err
        assert str(b / "runs.csv") in err and len(err.strip().splitlines()) == 1
        assert not (a / "replicates.csv").exists()


def test_pooled_seeds_reach_the_right_verdict_where_every_seed_agreeing_rarely_happens() -> None:
    """Known truth: the agent 10 points better at the same cost (`agent` is right, `workflow` wrong), four seeds
    of 60 instances x 1 trial each. Each seed alone has little power, so "every seed says agent" is rare; the
    pooled verdict (240 instances, each a cluster within its seed) says `agent` far more often, and never names
    the wrong winner. Over 16 simulated replications: unanimity in at most 3 (measured 0), pooled right in at
    least 6 (measured 12), pooled wrong in none."""
    from benchmarks.criterion.replicates import in_seed
    from tests.synthetic_results import task_runs

    s = Scenario(1, 60, {"agent": 0.80, "chain": 0.70}, trials=1)
    rng = np.random.default_rng(42)
    unanimous = pooled_right = pooled_wrong = 0
    for _ in range(16):
        seeds = {k: task_runs(s, "t", rng) for k in range(4)}
        own = [decide_task(g, ["chain"], "chain").verdict.verdict for g in seeds.values()]
        pooled = pd.concat([in_seed(g, k) for k, g in seeds.items()], ignore_index=True)
        assert pooled["instance"].nunique() == 240  # every seed's instance 0 stays its own cluster
        verdict = decide_task(pooled, ["chain"], "chain").verdict.verdict
        unanimous += all(v == "agent" for v in own)
        pooled_right += verdict == "agent"
        pooled_wrong += verdict == "workflow"
    assert unanimous <= 3 and pooled_right >= 6 and pooled_wrong == 0
