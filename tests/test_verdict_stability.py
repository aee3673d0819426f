"""A verdict's stability: the share of resamples of the instances that give the same verdict, checked on
hand-made tasks whose every resample is decided, on simulated tasks whose truth is known, and the agreement
over seeds read from replicate folders through `wva criterion --replicates`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.deciding import decide_task
from benchmarks.criterion.stability import is_stable, seed_agreement, verdict_stability
from tests.synthetic_results import Scenario, simulated_verdicts, task_runs, write_scenario


def runs(agent: list[float], flow: list[float], cost: tuple[float, float] = (0.01, 0.01)) -> pd.DataFrame:
    """One trial per instance of the agent and `chain`, with the given successes and costs."""
    rows = [{"pattern": p, "instance": f"i{i:03d}", "success": bool(s), "cost_usd": c, "steps": 3,
             "latency_s": 1.0, "run_id": f"{p}{i}"}
            for p, ss, c in (("agent", agent, cost[0]), ("chain", flow, cost[1])) for i, s in enumerate(ss)]
    return pd.DataFrame(rows)


def test_a_task_every_resample_decides_the_same_way_is_fully_stable() -> None:
    # the agent always right, the workflow always wrong: every resample reads agent − chain = 1 ± 1/n
    g = runs([1] * 20, [0] * 20)
    assert decide_task(g, ["chain"], "chain").verdict.verdict == "agent"
    assert verdict_stability(g, ["chain"], "chain", "agent") == 1.0
    assert verdict_stability(g, ["chain"], "chain", "workflow") == 0.0
    # equal and always right, the workflow at half the cost: every resample's 90% interval is ±t/n (inside
    # ±0.05 at 40 instances) and the cost ratio 0.5 with no spread: workflow, whatever is resampled
    g = runs([1] * 40, [1] * 40, (0.02, 0.01))
    assert decide_task(g, ["chain"], "chain").verdict.verdict == "workflow"
    assert verdict_stability(g, ["chain"], "chain", "workflow") == 1.0


def test_the_resamples_track_the_verdicts_frequency_at_a_known_truth() -> None:
    """A truth near the rule's boundary (agent 0.80 against 0.70, 60 instances: `agent` in 52% of 4,000
    fresh tasks): the share of resamples that say `agent`, averaged over 12 simulated tasks, is within 0.2
    of that frequency (measured 0.66 on these 12, 0.61 over 40 tasks: resamples are centred on the sample,
    so they lean towards its verdict, as docs/criterion.md says). A clear truth is stable."""
    s = Scenario(1, 60, {"agent": 0.80, "chain": 0.70})
    truth = float((simulated_verdicts(s, 4000, seed=5, comparator="chain") == "agent").mean())
    rng = np.random.default_rng(3)
    shares = [verdict_stability(task_runs(s, "t", rng), ["chain"], "chain", "agent", draws=400) for _ in range(12)]
    assert 0.45 < truth < 0.6 and abs(np.mean(shares) - truth) < 0.2
    clear = task_runs(Scenario(1, 60, {"agent": 0.95, "chain": 0.5}), "t", rng)
    assert verdict_stability(clear, ["chain"], "chain", "agent", draws=400) >= 0.99


def test_stable_and_the_agreement_over_seeds_by_hand() -> None:
    assert is_stable(0.95) and not is_stable(0.89) and is_stable(float("nan")) is None
    assert is_stable(0.95, 1.0) and not is_stable(0.95, 0.75)
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
    assert list(reps[["seed", "verdict"]].itertuples(index=False, name=None)) == [(1, "agent")]
    row = pd.read_csv(a / "criterion.csv").iloc[0]
    assert row.verdict == "agent" and row.seed_agreement == 1.0 and row.seeds == "0,1" and bool(row.stable)
    assert "2 of 2 seeds" in capsys.readouterr().out
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


def test_the_report_sentence_marks_an_unstable_verdict_read_from_a_table() -> None:
    from benchmarks.criterion.render_readings import readings_sentence, stability_text

    df = pd.DataFrame({"verdict": ["workflow", "workflow"], "stability": [0.59, 0.99], "stable": [False, True],
                       "verdict_familywise": ["workflow"] * 2, "familywise_p": [0.04, 0.002], "other_verdict": ""})
    df["stable"] = df["stable"].astype("boolean")  # as criterion.csv's table holds it
    shaky, firm = df.itertuples()
    assert "**unstable**" in readings_sentence(shaky) and stability_text(shaky) == "59% unstable"
    assert "; stable." in readings_sentence(firm) and stability_text(firm) == "99%"


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
