"""Benchmark sweeps under faults lose nothing and account for every fault, by kind.

Through the REAL SDK: `wva bench --model anthropic:<id>` with `ANTHROPIC_BASE_URL` at a sim server on
127.0.0.1 that cuts connections, answers late, sends 200s that are not JSON, 429, 529 and 500. In
process: `wva bench --model sim:fault_rate=0.2`. In both, every trial is a row, and the faults the
server (or SimModel) injected equal the retry and error events recorded, kind by kind.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import load_results
from benchmarks.tasks.base import PATTERNS
from examples.minimal_family import Capitals
from patterns.model import AnthropicModel
from patterns.retry import RetryPolicy
from patterns.sim import SimModel
from patterns.sim.faults import FAULT_KINDS
from patterns.sim.server import SimServer

CAPITALS = "examples.minimal_family:Capitals"
MODEL_ID = "claude-sonnet-4-5"
API_KINDS = {*FAULT_KINDS, "APIConnectionError", "APIResponseValidationError"}
FAST = RetryPolicy(max_retries=8, base_delay_s=0.001, max_delay_s=0.005, max_retry_after_s=0.0)
PATIENT = RetryPolicy(max_retries=10)  # virtual time: waiting costs nothing

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def api_kinds(runs: pd.DataFrame) -> Counter[str]:
    """The API errors a sweep recorded (runs.csv `error_kinds`), by kind; workflow failures left out."""
    return Counter(k for kinds in runs["error_kinds"].fillna("") for k in str(kinds).split(";") if k in API_KINDS)


def event_kinds(events: pd.DataFrame) -> Counter[str]:
    failed = events[events["kind"].isin(["retry", "error"])]
    return Counter(str(k) for k in failed["error.type"] if k in API_KINDS)


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


def assert_every_trial_once(runs: pd.DataFrame, tasks: int, instances: int, trials: int) -> None:
    assert len(runs) == len(PATTERNS) * tasks * instances * trials
    assert runs["run_id"].is_unique
    assert set(runs["pattern"]) == set(PATTERNS)


# --- through the real SDK ---------------------------------------------------------------------------


def test_an_sdk_sweep_against_a_faulty_server_loses_nothing_and_records_every_fault(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    faults = {"disconnect_rate": 0.06, "slow_rate": 0.04, "malformed_rate": 0.06, "overloaded_rate": 0.06,
              "rate_limit_rate": 0.06, "server_error_rate": 0.06}
    with SimServer(policies=[Capitals().policy()], slow_s=2.5, retry_after_s=0, seed=1, **faults) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-sweep")
        config = BenchConfig(tasks=(CAPITALS,), instances=2, trials=1, model=f"anthropic:{MODEL_ID}",
                             out=tmp_path, retry=FAST)
        # the spec cannot carry a client timeout; 1 s is far above a reply's ~10 ms, far below slow_s
        model = AnthropicModel(MODEL_ID, timeout=1.0)

        async def sweep() -> Any:
            try:
                return await run_bench(config, model=model)
            finally:
                await model.aclose()

        asyncio.run(sweep())
        injected = nonzero(server.faults_injected)
    tables = load_results(tmp_path)
    runs, events = tables["runs"], tables["events"]
    assert_every_trial_once(runs, 1, 2, 1)
    assert set(runs["terminal"]) == {"completed"} and runs["success"].all()
    assert set(injected) == {"RateLimitError", "OverloadedError", "InternalServerError", "APITimeoutError",
                             "APIConnectionError", "APIResponseValidationError"}  # every kind met the SDK
    assert dict(api_kinds(runs)) == dict(event_kinds(events)) == injected
    assert runs["retries"].sum() == sum(injected.values())  # each fault was retried, none exhausted
    assert tables["manifest"]["retry"]["max_retries"] == FAST.max_retries


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def test_wva_sim_server_and_wva_bench_as_a_user_runs_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`wva sim-server` (by default the task families' policies; network faults as knobs), then, as from
    another terminal, `wva bench --model anthropic:<id>` with ANTHROPIC_BASE_URL and a dummy key, then
    Ctrl-C. Both commands run in this process (the bench on a thread): no interpreter to start."""
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-cli")
    bench: dict[str, int] = {}

    def user() -> None:
        try:
            wait_until_up(url)
            bench["status"] = main(["bench", "--model", f"anthropic:{MODEL_ID}", "--tasks", "pipeline",
                                    "--instances", "2", "--trials", "1", "--out", str(tmp_path / "http"), "--quiet"])
        finally:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C for the server, which waits in the main thread

    threading.Thread(target=user, daemon=True).start()
    knobs = ["disconnect_rate=0.03", "malformed_rate=0.03", "overloaded_rate=0.03", "rate_limit_rate=0.03",
             "server_error_rate=0.03", "retry_after_s=0", "seed=2"]
    status = main(["sim-server", "--port", url.rsplit(":", 1)[1], *(a for k in knobs for a in ("--knob", k))])
    out, err = capsys.readouterr()
    assert status == 0 and bench.get("status") == 0, err
    assert out.startswith(f"sim server listening on {url}") and "PipelinePolicy" in err
    stopped = next(line for line in out.splitlines() if line.startswith("sim server stopped"))
    injected = {k: int(n) for k, n in re.findall(r"(\w+)=(\d+)", stopped.partition("faults injected:")[2])}
    runs = load_results(tmp_path / "http")["runs"]
    assert_every_trial_once(runs, 1, 2, 1)
    assert sum(injected.values()) > 0 and dict(api_kinds(runs)) == injected
    assert set(runs["terminal"]) == {"completed"}
    # served by the family's own policy: the same outcomes as the in-process simulator (error_rate 0)
    assert main(["bench", "--model", "sim", "--tasks", "pipeline", "--instances", "2", "--trials", "1",
                 "--out", str(tmp_path / "sim"), "--quiet"]) == 0
    local = load_results(tmp_path / "sim")["runs"]
    key = ["pattern", "instance"]
    assert runs.sort_values(key)["success"].tolist() == local.sort_values(key)["success"].tolist()
    assert runs["success"].any()


# --- in process: sim:fault_rate ---------------------------------------------------------------------


class Tally(SimModel):
    """A SimModel that keeps every trial's fork, so that the faults it injected can be summed by kind."""

    def fork(self, stream: str) -> SimModel:
        twin = super().fork(stream)
        self.twins.append(twin)
        return twin

    def injected(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for twin in self.twins:
            total.update(twin.faults_injected)
        return nonzero(dict(total))


TASKS = (CAPITALS, "pipeline")


def sim_sweep(out: Path, spec: str, *, model: Any = None, retry: RetryPolicy = PATIENT) -> dict[str, Any]:
    config = BenchConfig(tasks=TASKS, instances=3, trials=2, model=spec, out=out, retry=retry)
    asyncio.run(run_bench(config, model=model))
    return load_results(out)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return sim_sweep(tmp_path_factory.mktemp("clean"), "sim:error_rate=0.2")


def test_a_faulty_sim_sweep_loses_nothing_and_agrees_with_the_fault_free_run(
        tmp_path: Path, clean: dict[str, Any]) -> None:
    faulty = sim_sweep(tmp_path, "sim:error_rate=0.2,fault_rate=0.2")
    runs = faulty["runs"]
    assert_every_trial_once(runs, len(TASKS), 3, 2)
    assert (runs["terminal"] == "error").sum() == (clean["runs"]["terminal"] == "error").sum()  # none ran out
    per_trial = runs["error_kinds"].fillna("").map(lambda ks: sum(k in API_KINDS for k in ks.split(";")))
    assert (runs["faults_injected"] == per_trial).all() and (runs["faults_injected"] == runs["retries"]).all()
    assert runs["faults_injected"].sum() > 0.1 * runs["steps"].sum()  # about one call in five failed
    assert set(api_kinds(runs)) == set(FAULT_KINDS) and dict(api_kinds(runs)) == dict(event_kinds(faulty["events"]))
    # a different model spec is a different random stream: the success rates agree statistically
    both = clean["summary"].merge(faulty["summary"], on=["task", "pattern"], suffixes=("_clean", "_faulty"))
    assert len(both) == len(PATTERNS) * len(TASKS)
    for row in both.itertuples():
        assert row.ci_low_clean <= row.ci_high_faulty and row.ci_low_faulty <= row.ci_high_clean, row
    for task, group in runs.groupby("task"):  # two samples of one rate: their difference's 99% interval holds 0
        base = clean["runs"][clean["runs"]["task"] == task]
        p, n1, n2 = pd.concat([base, group])["success"].mean(), len(base), len(group)
        se = (p * (1 - p) * (1 / n1 + 1 / n2)) ** 0.5
        assert abs(group["success"].mean() - base["success"].mean()) <= 2.58 * max(se, 1 / (n1 + n2)), task


def test_a_fault_does_not_change_any_decision(tmp_path: Path, clean: dict[str, Any]) -> None:
    """Same random stream (the same spec labels both runs): every trial ends exactly as without faults."""
    model = Tally(error_rate=0.2, fault_rate=0.2)
    model.twins = []
    runs = sim_sweep(tmp_path, "sim:error_rate=0.2", model=model)["runs"]
    base = clean["runs"]
    assert runs["run_id"].tolist() == base["run_id"].tolist()
    for column in ("success", "score", "terminal", "steps", "tool_calls", "input_tokens", "output_tokens"):
        assert runs[column].tolist() == base[column].tolist(), column
    assert (runs["retries"] > 0).any() and (base["retries"] == 0).all()
    assert (runs["latency_s"] >= base["latency_s"]).all()  # the retries' waits, in virtual time
    assert dict(api_kinds(runs)) == model.injected() and set(model.injected()) == set(FAULT_KINDS)


@pytest.fixture(scope="module")
def exhausted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Tally]:
    """Half the calls fail and a call is tried at most twice: many trials run out of retries."""
    model = Tally(fault_rate=0.5)
    model.twins = []
    out = tmp_path_factory.mktemp("exhausted")
    return sim_sweep(out, "sim:fault_rate=0.5", model=model, retry=RetryPolicy(max_retries=1)), model


def api_entries(kinds: Any) -> int:
    return sum(k in API_KINDS for k in str(kinds).split(";"))


def test_a_trial_whose_retries_run_out_is_a_row_with_terminal_error(exhausted: tuple[dict[str, Any], Tally]) -> None:
    tables, model = exhausted
    runs, events = tables["runs"], tables["events"]
    assert_every_trial_once(runs, len(TASKS), 3, 2)
    failed = runs[runs["terminal"] == "error"]
    assert len(failed) > 0 and not failed["success"].any()
    last = failed["error_kinds"].map(lambda ks: [k for k in ks.split(";") if k in API_KINDS][-1])
    assert set(last) <= set(FAULT_KINDS)
    assert failed["detail"].str.contains("|".join([*FAULT_KINDS, "AllBranchesFailed"])).all()
    assert failed["steps"].notna().all() and failed["input_tokens"].notna().all()  # partial usage kept
    # every failed attempt of a model call is one retry/error event (one with an attempt number)
    attempts = events[events["kind"].isin(["retry", "error"]) & events["attempt"].notna()]
    per_trial = attempts.groupby("run_id").size().reindex(runs["run_id"], fill_value=0)
    assert per_trial.tolist() == runs["faults_injected"].tolist()
    assert dict(Counter(attempts["error.type"])) == model.injected()
    # and runs.csv's error_kinds holds one entry per injected fault (a dropped vote branch: see below)
    votes = runs["pattern"] == "parallel"
    assert (runs.loc[~votes, "error_kinds"].map(api_entries) == runs.loc[~votes, "faults_injected"]).all()


def test_a_dropped_vote_branch_is_one_entry_in_error_kinds(exhausted: tuple[dict[str, Any], Tally]) -> None:
    runs = exhausted[0]["runs"]
    votes = runs[runs["pattern"] == "parallel"]
    assert (votes["error_kinds"].map(api_entries) == votes["faults_injected"]).all()
