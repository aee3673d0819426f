"""`wva bench --message-batches` (benchmarks/harness/batching.py) through the real `anthropic` SDK against the sim
server: the same per-trial outcomes as the interactive sweep at half the recorded cost, a failed batch request as
an error row, a resume after a kill between a batch's creation and its results that pays for nothing twice, and
the refusals."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import anthropic
import pytest

from benchmarks.harness.batch_record import NAME, BatchRecord
from benchmarks.harness.batching import BatchCanceled, BatchedModel, rounds
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.outputs import load_results
from benchmarks.report.run_facts import batch_note
from benchmarks.tasks.registry import load_task
from patterns.model import AnthropicModel
from patterns.pricing import batch_price_id, price_for
from patterns.retry import RetryPolicy
from patterns.sim.server import SimServer

from .test_cli import assert_one_error_line, run_cli

pytestmark = pytest.mark.timeout(60)
SWEEP = BenchConfig(tasks=("pipeline",), patterns=("single", "agent"), instances=2, trials=1,
                    model="anthropic:claude-sonnet-4-5", concurrency=8, retry=RetryPolicy(base_delay_s=0.001))
OUTCOME = ["success", "score", "terminal", "steps", "input_tokens", "output_tokens", "error_kinds"]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    with SimServer(policies=[load_task("pipeline").policy()], batch_processing_s=0.02) as running:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-batches")
        yield running


def sweep(config: BenchConfig) -> None:
    asyncio.run(run_bench(config))


def test_a_batched_sweep_has_the_interactive_outcomes_at_half_the_cost(tmp_path: Path, server: SimServer) -> None:
    sweep(replace(SWEEP, out=tmp_path / "interactive"))
    server.batches.processing_s = 0.02
    sweep(replace(SWEEP, out=tmp_path / "batched", message_batches=True, max_cost_usd=1.0))
    plain = load_results(tmp_path / "interactive")["runs"].set_index("run_id")
    batched = load_results(tmp_path / "batched")["runs"].set_index("run_id").loc[plain.index]
    columns = [c for c in OUTCOME if c in plain]
    assert plain[columns].fillna("").astype(str).equals(batched[columns].fillna("").astype(str))
    assert batched["cost_usd"].tolist() == pytest.approx((plain["cost_usd"] / 2).tolist())
    doc = json.loads((tmp_path / "batched" / "manifest.json").read_text())
    assert doc["message_batches"] is True and "message_batches" not in json.loads(
        (tmp_path / "interactive" / "manifest.json").read_text())
    assert doc["spend"]["spent_usd"] == pytest.approx(batched["cost_usd"].sum(), abs=1e-6)  # reserved at half too
    assert sum(server.batches.received.values()) > 0 and max(server.batches.received.values()) == 1
    assert "queue time" in batch_note(doc) and batch_note({"model": "sim"}) == ""


@pytest.mark.parametrize(("knob", "error"), [("batch_expire_rate", "BatchExpired"),
                                             ("batch_error_rate", "InternalServerError")])
def test_a_failed_batch_request_is_an_error_row(tmp_path: Path, server: SimServer, knob: str, error: str) -> None:
    setattr(server.batches, knob.removeprefix("batch_"), 1.0)
    config = replace(SWEEP, patterns=("single",), out=tmp_path / "failed", message_batches=True,
                     retry=RetryPolicy(max_retries=1, base_delay_s=0.001))
    sweep(config)
    runs = load_results(config.out)["runs"]
    assert len(runs) == 2 and (runs["terminal"] == "error").all()
    assert runs["error_kinds"].astype(str).str.contains(error).all()
    retried = 2 if error == "InternalServerError" else 1  # errored is retried as a 500 is, expired never
    assert sorted(server.batches.received.values()) == [retried, retried]


def test_resume_after_a_kill_between_creation_and_results_pays_nothing_twice(tmp_path: Path,
                                                                             server: SimServer) -> None:
    server.batches.processing_s = 60.0  # the first round's batch will not end before the kill
    config = replace(SWEEP, out=tmp_path / "killed", message_batches=True)

    async def killed() -> None:
        task = asyncio.create_task(run_bench(config))
        while not (config.out / NAME).exists():
            await asyncio.sleep(0.01)
        task.cancel()  # as a kill would: the batch is created and recorded, its results never read
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(killed())
    assert BatchRecord(config.out).recorded == 1 and sum(server.batches.received.values()) == 4
    server.batches.processing_s = 0.02
    sweep(replace(config, resume=True))
    runs = load_results(config.out)["runs"]
    assert len(runs) == 4 and (runs["terminal"] == "completed").all()
    assert max(server.batches.received.values()) == 1  # every request reached the server once, over both sessions
    with pytest.raises(SweepRefused, match="run with --message-batches and this sweep is without it"):
        sweep(replace(config, resume=True, message_batches=False))


def test_the_wait_for_a_batch_is_bounded(server: SimServer) -> None:
    server.batches.processing_s = 60.0
    model = BatchedModel(AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key="sk-ant-dummy"),
                         max_wait_s=0.2)

    async def ask() -> None:
        with pytest.raises(BatchCanceled, match=r"waited 0\.2 s for batch"):
            await model.create(max_tokens=20, messages=[{"role": "user", "content": "hi"}])
        await model.aclose()

    asyncio.run(ask())
    assert model.batches_created == 1
    assert model.price_id == "claude-sonnet-4-5+batch"


def test_the_batch_price_is_half_of_every_price() -> None:
    standard, batch = price_for("claude-sonnet-4-5"), price_for(batch_price_id("claude-sonnet-4-5-20250929"))
    assert standard is not None and batch is not None
    assert (batch.input, batch.output, batch.cache_write, batch.cache_read) == (1.5, 7.5, 1.875, 0.15)
    assert price_for("claude-opus-4-9+batch") is None  # unknown stays unknown, never $0
    assert rounds(longest_chain=12, trials=100, concurrency=50) == 24


@pytest.mark.parametrize("model", ["sim", "openai:gpt-4o"])
def test_message_batches_on_a_model_without_the_api_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str) -> None:
    status, _, err = run_cli(capsys, "bench", "--model", model, "--message-batches", "--out", str(tmp_path / "x"),
                             "--quiet")
    assert status == 2
    assert_one_error_line(err)
    assert "--message-batches" in err and "anthropic:<model-id>" in err
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="drop --workers"):
        replace(SWEEP, message_batches=True, workers=2)


def test_a_batch_error_is_the_sdks_exception_for_it(server: SimServer) -> None:
    """An errored result whose error the API would answer 400 is a BadRequestError (not retried)."""
    model = BatchedModel(AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key="sk-ant-dummy"))

    async def ask() -> None:
        with pytest.raises(anthropic.BadRequestError, match=r'messages\.0\.role: first message must use .* of batch '):
            await model.create(max_tokens=20, messages=[{"role": "assistant", "content": "no user turn"}])
        await model.aclose()

    asyncio.run(ask())
