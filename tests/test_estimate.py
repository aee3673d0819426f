"""The estimate before a paid sweep (benchmarks/harness/estimate.py): a hand-computed case, an unknown price, the
batch rounds, and `wva bench` printing it against `wva sim-server` with a price; a resume estimates from the
folder's finished trials; runs.csv keeps the estimate beside the bill."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.estimate_text import estimate_lines
from benchmarks.cli.main import main
from benchmarks.cli.plan import estimate_text
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.estimate import Estimate, as_calls_in_flight, cell_counts, estimate
from benchmarks.harness.outputs import load_results
from benchmarks.harness.plan import Plan
from benchmarks.studies.plan_estimate import plan_estimate
from benchmarks.tasks.registry import load_task
from patterns.pricing import Price
from patterns.sim.server import SimServer

pytestmark = pytest.mark.timeout(60)
PRICE = Price("test-model", input=3.0, output=15.0, cache_write=3.75, cache_read=0.3)
SWEEP = {"tasks": ("pipeline",), "patterns": ("single", "agent"), "instances": 2, "trials": 1,
         "model": "anthropic:claude-sonnet-4-5", "concurrency": 4, "max_in_flight": 2}


def basis() -> pd.DataFrame:
    """Two instances of one task × design: (1,000 in, 100 out, 2 calls, 10 s) and (3,000 in, 300 out, 4 calls, 30 s)."""
    rows = [{"task": "t", "instance": i, "pattern": "p", "input_tokens": n, "output_tokens": n // 10,
             "cache_read_tokens": 0, "cache_write_tokens": 0, "steps": calls, "latency_s": latency}
            for i, n, calls, latency in (("a", 1000, 2, 10.0), ("b", 3000, 4, 30.0))]
    return pd.DataFrame(rows)


def test_the_estimate_of_a_hand_computed_case() -> None:
    est = estimate(basis(), {("t", "p"): 10}, model="anthropic:test-model", price=PRICE, in_flight=4)
    # a: 1000 × $3/M + 100 × $15/M = $0.0045; b: $0.0135; mean $0.009 a trial, × 10 trials
    assert est.cost_usd == pytest.approx(0.09)
    # resampling 2 instances: both a (1 in 4), both b (1 in 4) or one of each: the 5th and 95th percentiles are the
    # all-a and all-b totals
    assert (est.cost_low_usd, est.cost_high_usd) == (pytest.approx(0.045), pytest.approx(0.135))
    assert (est.tokens, est.calls, est.rounds, est.trials) == (22_000, 30, 4, 10)
    assert est.wall_s == pytest.approx(10 * 20.0 / 4) and est.wall_basis == "calls in flight"  # 200 s over 4 in flight
    assert est.cell_cost("t", "p") == pytest.approx(0.009) and est.cell_cost("t", "q") is None
    assert est.cell_tokens("t", "p") == pytest.approx(2200)
    # an account of 6,000 input tokens a minute, its bucket full at the start: of 20,000 prompt tokens the 14,000
    # past the first minute's take 140 s, longer than the calls' 50 s (all-a: 10,000 → 40 s; all-b: 30,000 → 240 s)
    limited = estimate(basis(), {("t", "p"): 10}, model="m", price=PRICE, in_flight=4, itpm=6000.0)
    assert limited.wall_s == pytest.approx(140.0) and limited.wall_basis == "input tokens per minute"
    assert (limited.wall_low_s, limited.wall_high_s) == (pytest.approx(40.0), pytest.approx(240.0))


def test_cache_reads_do_not_count_toward_the_input_token_limit() -> None:
    """The hand-computed case again, each trial now also reading 5,000 tokens from the cache and writing 500: an
    input-token limit counts input and cache writes only (the API's cache-aware ITPM), so 10 trials count
    20,000 + 5,000 = 25,000 prompt tokens, 19,000 past the first minute's 6,000: 190 s, not the 690 s that
    counting the 50,000 cache reads would give."""
    rows = basis().assign(cache_read_tokens=5000, cache_write_tokens=500)
    limited = estimate(rows, {("t", "p"): 10}, model="m", price=PRICE, in_flight=4, itpm=6000.0)
    assert limited.wall_s == pytest.approx(190.0) and limited.wall_basis == "input tokens per minute"
    assert limited.tokens == 22_000 + 55_000  # every token still counts in the tokens and the cost
    assert limited.cost_usd == pytest.approx(0.09 + 10 * 1e-6 * (5000 * 0.3 + 500 * 3.75))


def test_an_unknown_price_is_an_unknown_cost_never_zero() -> None:
    est = estimate(basis(), {("t", "p"): 10}, model="anthropic:claude-opus-4-9", price=None, in_flight=4)
    assert est.cost_usd is None and est.cost_low_usd is None and est.cell_cost("t", "p") is None
    text = "\n".join(estimate_lines(est))
    assert "cost unknown: anthropic:claude-opus-4-9 has no price" in text and "$0" not in text
    assert est.to_dict()["cost_usd"] is None and est.tokens == 22_000


def test_the_batch_rounds_are_said_only_for_a_batched_sweep() -> None:
    plain = estimate(basis(), {("t", "p"): 10}, model="m", price=PRICE, in_flight=4)
    batched = estimate(basis(), {("t", "p"): 10}, model="m", price=PRICE, in_flight=4, batched=True)
    assert not any("batched" in line for line in estimate_lines(plain))
    line = next(line for line in estimate_lines(batched) if "batched" in line)
    assert "needs 4 rounds" in line and "up to 96 h" in line and batched.to_dict()["rounds"] == 4


def test_cell_counts_are_the_plans_trials_per_task_and_design() -> None:
    plan = Plan(BenchConfig(tasks=("pipeline", "support"), patterns=("single", "chain"), instances=3, trials=2))
    counts = cell_counts(plan, range(len(plan)))
    assert counts == {(t, p): 6 for t in ("pipeline", "support") for p in ("single", "chain")}
    assert cell_counts(plan, [0, 1, 2]) == {("pipeline", "single"): 2, ("pipeline", "chain"): 1}


@pytest.fixture(scope="module")
def paid(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(a folder `wva bench --json` wrote through the real SDK from `wva sim-server` with a price, what it said on
    stderr, its JSON document)."""
    out = tmp_path_factory.mktemp("estimate") / "paid"
    with SimServer(policies=[load_task("pipeline").policy()]) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_BASE_URL", server.url)
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-estimate")
        err, doc = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(doc):
            code = main(["bench", "--model", "anthropic:claude-sonnet-4-5", "--tasks", "pipeline", "--patterns",
                         "single,agent", "--instances", "2", "--trials", "1", "--out", str(out), "--no-drawn",
                         "--max-in-flight", "2", "--json"])
    assert code == 0, err.getvalue()
    return out, err.getvalue(), doc.getvalue()


def test_wva_bench_prints_the_estimate_against_the_sim_server_and_records_it_beside_the_bill(
        paid: tuple[Path, str, str]) -> None:
    out, err, _ = paid
    assert "wva: estimate for this sweep: 4 trials on anthropic:claude-sonnet-4-5, from a pilot of 4 trials" in err
    assert "wva:   cost $" in err and "at claude-sonnet-4-5's prices" in err and "wva:   wall time " in err
    assert "batched" not in err
    runs = load_results(out)["runs"]
    assert set(runs["cost_source"]) == {"billed"}
    assert runs[["estimated_cost_usd", "estimated_tokens"]].notna().all().all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["estimate"]["source"] == "pilot" and manifest["estimate"]["trials"] == 4
    # the pilot ran the server's own simulator in process: per design, the estimate is near the bill
    by = runs.groupby("pattern")[["cost_usd", "estimated_cost_usd"]].mean()
    assert by["estimated_cost_usd"].to_numpy() == pytest.approx(by["cost_usd"].to_numpy(), rel=0.5)


def test_bench_json_carries_the_estimate_it_printed(paid: tuple[Path, str, str]) -> None:
    out, err, stdout = paid
    doc = json.loads(stdout)
    manifest = json.loads((out / "manifest.json").read_text())
    assert doc["estimate"] == manifest["estimate"] and doc["estimate"]["trials"] == 4
    assert f"${doc['estimate']['cost_usd']:.3g}" in err  # the figure printed on stderr is the one in the document


def test_wva_plan_prints_the_estimate_for_the_size_it_recommends(
        paid: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    out, _, _ = paid
    assert main(["plan", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    needed = doc["tasks"][0]["instances_needed"]
    assert doc["estimate"]["trials"] == needed * 2 and doc["estimate"]["source"] == "finished"
    per_trial = load_results(out)["runs"]["cost_usd"].mean()  # two trials a design: the cells' mean is the mean
    assert doc["estimate"]["cost_usd"] == pytest.approx(needed * 2 * per_trial, rel=1e-6)
    plans = [SimpleNamespace(task="pipeline", needed=needed)]
    text = "\n".join(estimate_text(*plan_estimate(out, plans, "anthropic:claude-opus-4-9")))
    assert f"estimate for the recommended run: {needed * 2:,} trials on anthropic:claude-opus-4-9" in text
    assert "cost unknown" in text


def test_a_resume_estimates_from_the_folders_finished_trials_and_reads_the_accounts_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "paid"
    seen: list[Estimate] = []
    with SimServer(policies=[load_task("pipeline").policy()], rate_limit_itpm=50_000) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-estimate")
        asyncio.run(run_bench(BenchConfig(out=out, **SWEEP), on_estimate=seen.append))
        first = load_results(out)["runs"]
        asyncio.run(run_bench(BenchConfig(out=out, resume=True, **{**SWEEP, "instances": 3}), on_estimate=seen.append))
    fresh, resumed = seen
    assert fresh.source == "pilot" and resumed.source == "finished"
    assert resumed.trials == 2 and resumed.basis_trials == 4  # the third instance's two trials, from the first four
    mean: dict[Any, float] = first.groupby("pattern")["cost_usd"].mean().to_dict()
    assert resumed.cell_cost("pipeline", "agent") == pytest.approx(mean["agent"])
    assert resumed.cost_usd == pytest.approx(sum(mean.values()))
    assert resumed.input_tokens_per_minute == 50_000 == fresh.input_tokens_per_minute


def test_on_the_simulator_the_cost_is_the_estimate_and_no_estimate_is_made(tmp_path: Path) -> None:
    seen: list[Estimate] = []
    asyncio.run(run_bench(BenchConfig(out=tmp_path / "sim", **{**SWEEP, "model": "sim"}), on_estimate=seen.append))
    runs = load_results(tmp_path / "sim")["runs"]
    assert not seen and set(runs["cost_source"]) == {"estimated"} and runs["estimated_cost_usd"].isna().all()
    assert runs["estimated_tokens"].isna().all()
    assert runs["cost_usd"].gt(0).all()


def test_a_measured_latency_is_spread_over_the_trials_in_flight_a_simulated_one_over_the_calls() -> None:
    rows = pd.DataFrame({"model": ["anthropic:claude-sonnet-4-5", "sim:error_rate=0.1"], "latency_s": [16.0, 16.0]})
    # 16 trials in flight, 8 calls: the measured 16 s (its waits for a call slot in it) count as 8 s over 8 calls
    assert as_calls_in_flight(rows, 16, 8)["latency_s"].tolist() == [8.0, 16.0]
