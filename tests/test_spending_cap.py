"""`--max-cost`: a sweep through the real SDK against the sim server stops at its cap, says why in its manifest,
and `--resume` with a higher cap finishes it without repeating a trial (benchmarks/harness/spend.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.harness import journal
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.errors import CapReached, SweepCapped, SweepRefused
from benchmarks.harness.outputs import load_results
from benchmarks.harness.spend import Spend
from benchmarks.tasks.registry import load_task
from patterns.pricing import price_for
from patterns.sim.server import SimServer

pytestmark = pytest.mark.timeout(120)
SWEEP = {"tasks": ("pipeline",), "patterns": ("single", "chain", "agent"), "instances": 6, "trials": 1,
         "model": "anthropic:claude-sonnet-4-5", "concurrency": 4, "max_in_flight": 2}


def journal_rows(out: Path) -> list[dict[str, object]]:
    return [record["row"] for path in journal.paths(out) for _, record in journal.scan(path, [])]


def test_a_sweep_stops_at_its_cap_and_resume_with_a_higher_cap_finishes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "capped"
    with SimServer(policies=[load_task("pipeline").policy()]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-cap")
        with pytest.raises(SweepCapped, match=r"stopped at --max-cost \$0.02"):
            asyncio.run(run_bench(BenchConfig(out=out, max_cost_usd=0.02, **SWEEP)))
        doc = json.loads((out / "manifest.json").read_text())
        kept = journal_rows(out)
        recorded = sum(float(row["cost_usd"]) for row in kept)  # type: ignore[arg-type]
        assert doc["stopped"]["reason"] == "max_cost" and doc["stopped"]["max_cost_usd"] == 0.02
        assert 0 < len(kept) < 18
        assert recorded + doc["stopped"]["abandoned_usd"] == pytest.approx(doc["stopped"]["spent_usd"], abs=1e-5)
        assert doc["stopped"]["spent_usd"] <= 0.02 + 2 * 0.005  # past the cap by at most the calls in flight
        asyncio.run(run_bench(BenchConfig(out=out, max_cost_usd=1.0, resume=True, **SWEEP)))
    runs = load_results(out)["runs"]
    assert len(runs) == 18 and runs["run_id"].is_unique
    first = pd.DataFrame(kept).set_index("run_id")["cost_usd"].astype(float)
    assert runs.set_index("run_id").loc[first.index, "cost_usd"].tolist() == pytest.approx(first.tolist())
    final = json.loads((out / "manifest.json").read_text())
    assert "stopped" not in final and final["spend"]["spent_usd"] > doc["stopped"]["spent_usd"]


def test_a_cap_without_a_price_or_on_the_simulator_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(SweepRefused, match=r"--max-cost needs the model's price, and 'claude-opus-4-9' has none"):
        asyncio.run(run_bench(BenchConfig(**{**SWEEP, "model": "anthropic:claude-opus-4-9"}, out=tmp_path / "a",
                                          max_cost_usd=1.0)))
    with pytest.raises(SweepRefused, match=r"--max-cost caps what a provider model bills"):
        asyncio.run(run_bench(BenchConfig(**{**SWEEP, "model": "sim"}, out=tmp_path / "b", max_cost_usd=1.0)))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_call_that_could_pass_the_cap_is_not_sent() -> None:
    """By hand: $3/M input, $15/M output. A 400-character prompt is ~100 tokens, 110 with the 10% margin
    ($0.0004125 at the cache-write price $3.75/M); the output is reserved whole, max_tokens = 1,000 ($0.015)."""
    spend = Spend(0.04, price_for("claude-sonnet-4-5"))  # type: ignore[arg-type]
    params = {"max_tokens": 1000, "messages": [{"role": "user", "content": "x" * 372}]}
    first = spend.reserve(params)
    assert spend.reserved[first] == pytest.approx(0.0004125 + 0.015, rel=0.05)
    spend.reserve(params)
    with pytest.raises(CapReached):
        spend.reserve(params)  # 3 x $0.0154 > $0.04
