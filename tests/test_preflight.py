"""A paid run never fails silently: the pre-flight request, the circuit breaker, an unwritable --out and a
sweep whose every trial failed — through the real SDKs against `wva sim-server` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import journal
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.breaker import TRIPS_AFTER, Breaker
from benchmarks.harness.errors import SweepStopped
from benchmarks.harness.preflight import preflight
from benchmarks.tasks.registry import load_task
from patterns.model import AnthropicModel
from patterns.retry import RetryPolicy
from patterns.sim.server import SimServer

RIGHT, WRONG = "sk-ant-right-key-0123456789", "sk-ant-wrong-key-9876543210"
SMALL = ["--tasks", "pipeline", "--instances", "1", "--trials", "1", "--quiet"]


class Revoking(SimServer):
    """A sim server whose key stops working after `after` requests (a key revoked mid-sweep)."""

    def __init__(self, after: float, **options: Any) -> None:
        super().__init__(policies=[load_task("pipeline").policy()], require_api_key=RIGHT, **options)
        self.after, self.seen, self._lock = after, 0, threading.Lock()

    def authorised(self, headers: Any) -> bool:
        with self._lock:
            self.seen += 1
            return self.seen <= self.after and super().authorised(headers)


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wva: error:") and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("command", ["bench", "run"])
@pytest.mark.parametrize("provider, variable", [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_no_key_is_exit_2_naming_the_variable_within_seconds_and_nothing_written(
        command: str, provider: str, variable: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    if provider == "openai":
        pytest.importorskip("openai")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out"
    argv = ["bench", "--model", f"{provider}:model-x", *SMALL, "--out", str(out)] if command == "bench" else \
        ["run", "single", "pipeline", "--model", f"{provider}:model-x"]
    assert main(argv) == 2
    err = one_line(capsys)
    assert variable in err and not out.exists()  # refused before anything ran (no stopwatch: tests never time)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_wrong_key_is_exit_2_with_the_providers_message_and_no_secret(
        provider: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    if provider == "openai":
        pytest.importorskip("openai")
    out = tmp_path / "out"
    with Revoking(after=float("inf")) as server:
        prefix = provider.upper()
        monkeypatch.setenv(f"{prefix}_BASE_URL", server.url + ("/v1" if provider == "openai" else ""))
        monkeypatch.setenv(f"{prefix}_API_KEY", WRONG)
        code = main(["bench", "--model", f"{provider}:model-x", *SMALL, "--out", str(out)])
        calls = server.model.calls
    err = one_line(capsys)
    assert code == 2 and "401" in err and f"{prefix}_API_KEY" in err and WRONG not in err
    assert calls == 0 and not out.exists()  # the pre-flight's request alone, before any trial


def test_a_wrong_base_url_is_exit_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with Revoking(after=float("inf")) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"{server.url}/not-the-api")
        monkeypatch.setenv("ANTHROPIC_API_KEY", RIGHT)
        assert main(["bench", "--model", "anthropic:model-x", *SMALL, "--out", str(tmp_path / "out")]) == 2
    err = one_line(capsys)
    assert "404" in err and "ANTHROPIC_BASE_URL" in err and "/not-the-api" in err
    assert not (tmp_path / "out").exists()


def test_an_unreachable_provider_stops_the_sweep_after_the_retries_and_writes_nothing(tmp_path: Path) -> None:
    with Revoking(after=float("inf")) as server:
        url = server.url  # stopped on leaving: nothing listens there any more
    config = BenchConfig(tasks=("pipeline",), instances=1, trials=1, model="anthropic:model-x", out=tmp_path / "out",
                         retry=RetryPolicy(max_retries=2, base_delay_s=0.01))
    model = AnthropicModel("model-x", base_url=url, api_key=RIGHT)
    with pytest.raises(SweepStopped, match="failed 3 times"):
        asyncio.run(run_bench(config, model=model))
    assert not (tmp_path / "out").exists()


def test_a_good_key_passes_with_one_request() -> None:
    async def check(url: str) -> Any:
        model = AnthropicModel("model-x", base_url=url, api_key=RIGHT)
        try:
            return await preflight(model, "anthropic:model-x")
        finally:
            await model.aclose()

    with Revoking(after=float("inf")) as server:
        assert asyncio.run(check(server.url)) == {"attempts": 1, "errors": []}
        assert server.model.calls == 1
    assert asyncio.run(preflight(None, "sim:error_rate=0.1")) is None  # the simulator needs none


def test_the_breaker_holds_back_a_streak_and_drops_it_when_it_trips() -> None:
    recorded: list[str] = []
    breaker = Breaker(lambda spec, row, events: recorded.append(spec))
    failed = {"terminal": "error", "error_kinds": "AuthenticationError"}
    hard = [{"kind": "error", "error.type": "AuthenticationError"}]
    for i in range(5):
        breaker(f"f{i}", failed, hard)
    breaker("ok", {"terminal": "completed"}, [])
    assert recorded == ["f0", "f1", "f2", "f3", "f4", "ok"]  # a streak that broke is ordinary results
    breaker("retried out", {"terminal": "error", "error_kinds": "OverloadedError"},
            [{"kind": "error", "error.type": "OverloadedError"}])  # a transient fault is not a hard error
    for i in range(TRIPS_AFTER):
        assert breaker.keep_going()
        breaker(f"g{i}", failed, hard)
    assert not breaker.keep_going() and "AuthenticationError" in str(breaker.tripped)
    assert recorded[-1] == "retried out" and breaker.dropped == TRIPS_AFTER


def test_a_key_revoked_mid_sweep_trips_the_breaker_then_resume_completes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    argv = ["bench", "--model", "anthropic:model-x", "--tasks", "pipeline", "--instances", "12", "--trials", "1",
            "--concurrency", "1", "--quiet", "--out", str(out)]
    with Revoking(after=60) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", RIGHT)
        assert main(argv) == 1
        err = one_line(capsys)
        assert f"{TRIPS_AFTER} trials in a row failed with AuthenticationError" in err and "--resume" in err
        kept = journal.load_all(out).records
        assert 0 < len(kept) < 84 and not (out / "runs.csv").exists()
        assert all(r["row"]["terminal"] != "error" for r in kept.values())  # the streak was not recorded
        server.after = float("inf")  # the key works again
        assert main([*argv, "--resume"]) == 0
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 84 and runs["run_id"].is_unique and (runs["terminal"] != "error").all()


def test_a_sweep_whose_every_trial_failed_exits_1_and_gives_no_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with Revoking(after=1) as server:  # the pre-flight passes, then every call is refused
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", RIGHT)
        code = main(["bench", "--model", "anthropic:model-x", "--tasks", "pipeline", "--instances", "2", "--trials",
                     "1", "--patterns", "single,chain,agent", "--quiet", "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 1 and "every trial failed" in captured.err and "AuthenticationError" in captured.err
    assert "pipeline: no data (no model call succeeded" in captured.out and "drawability" not in captured.out
    criterion = pd.read_csv(tmp_path / "out" / "criterion.csv")
    assert criterion["verdict"].tolist() == ["no data"] and criterion["drawability"].isna().all()


@pytest.mark.parametrize("where", ["file/below", "file"])
def test_an_out_that_cannot_be_written_is_exit_2_before_any_work(
        where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("keep me")
    assert main(["bench", *SMALL, "--out", str(tmp_path / where)]) == 2
    err = one_line(capsys)
    assert "--out" in err and (tmp_path / "file").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_an_out_on_a_read_only_place_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc")
    assert main(["bench", *SMALL, "--out", "/proc/self/wva-results"]) == 2
    assert "cannot be created" in one_line(capsys)


def test_a_grader_on_a_paid_model_is_checked_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["bench", *SMALL, "--grader-model", "anthropic:grader-x", "--out", str(out)]) == 2
    assert "anthropic:grader-x: no API key: set ANTHROPIC_API_KEY" in one_line(capsys) and not out.exists()
