"""A task file end to end: the worked example on sim, replayed from its cassette, through the real SDK,
with a model-graded scorer, a user's design override, and no routes."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import load_results
from benchmarks.names import PATTERNS
from benchmarks.tasks.base import Family
from benchmarks.tasks.dataset import SIM_WARNING, DatasetTask

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tickets"
TOML = str(EXAMPLE / "tickets.toml")


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["bench", *argv, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def copy_example(folder: Path, toml: str | None = None) -> Path:
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("cassette.jsonl", "__pycache__"))
    if toml is not None:
        (folder / "tickets.toml").write_text(toml)
    return folder / "tickets.toml"


def test_the_example_is_a_family_like_the_built_ins() -> None:
    task = DatasetTask.from_file(TOML)
    assert isinstance(task, Family) and task.name == "tickets" and len(task.instances(100, 0)) == 30
    assert set(task.tools.tools) == {"get_invoice", "track_order", "get_account"}
    assert list(task.file.routes) == ["billing", "shipping", "account"] and task.not_offered() == {}


def test_the_example_benches_on_sim_with_every_pattern_and_one_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = bench(capsys, "--tasks", TOML, "--instances", "5", "--trials", "1", "--out", str(tmp_path))
    assert status == 0, err
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 7 * 5 and runs.groupby("pattern").size().to_dict() == dict.fromkeys(PATTERNS, 5)
    assert err.splitlines() == [f"wva: warning: {SIM_WARNING}"]  # once, on one line
    assert (runs["tool_calls"] > 0).any() and "tickets" in out


def test_without_routes_route_is_not_offered_and_the_table_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = (EXAMPLE / "tickets.toml").read_text().split("[routes]")[0]
    path = copy_example(tmp_path / "noroutes", toml)
    status, out, _ = bench(capsys, "--tasks", str(path), "--instances", "2", "--trials", "1",
                           "--out", str(tmp_path / "out"))
    assert status == 0
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert len(runs) == 6 * 2 and "route" not in set(runs["pattern"])
    assert "route: not offered for tickets: tickets.toml has no [routes] table" in out
    assert main(["run", "route", str(path)]) == 2
    assert "no [routes]" in capsys.readouterr().err


def test_run_agent_prints_a_result_with_tool_calls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "agent", TOML, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tool_calls"] > 0 and doc["task"] == TOML and doc["instance"] == "T-001"
    assert any(e["kind"] == "tool_call" for e in doc["events"])


def test_the_replayed_example_gives_real_success_and_a_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = bench(capsys, "--tasks", TOML, "--instances", "30", "--trials", "1", "--out", str(tmp_path),
                           "--model", f"replay:{EXAMPLE / 'cassette.jsonl'}")
    assert status == 0, err
    assert "meaningless" not in err  # the warning is for sim only
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 7 * 30 and runs["success"].mean() > 0
    assert status == 0 and main(["criterion", str(tmp_path)]) == 0
    criterion = pd.read_csv(tmp_path / "criterion.csv")
    assert criterion.loc[criterion["task"] == "tickets", "verdict"].item() in ("workflow", "agent", "either",
                                                                                "inconclusive")


def test_a_fresh_recording_replays_to_the_same_success(tmp_path: Path) -> None:
    sys.path.insert(0, str(EXAMPLE))
    try:
        import record_cassette
    finally:
        sys.path.remove(str(EXAMPLE))
    cassette = tmp_path / "c.jsonl"
    recorded = record_cassette.record(cassette, instances=3)
    config = BenchConfig(tasks=(TOML,), instances=3, trials=1, model=f"replay:{cassette}", out=tmp_path / "out")
    replayed = asyncio.run(run_bench(config)).summary
    assert list(recorded["success_rate"]) == list(replayed["success_rate"]) and (replayed["success_rate"] == 1).all()


def test_a_model_graded_scorer_is_its_own_events_and_cost(tmp_path: Path) -> None:
    toml = (EXAMPLE / "tickets.toml").read_text().replace('scorer = "includes"',
                                                          'scorer = "model:quotes the looked-up fact"')
    path = copy_example(tmp_path / "graded", toml)

    async def sweep(spec: str, out: str, **kw: Any) -> pd.DataFrame:
        config = BenchConfig(tasks=(spec,), patterns=("single", "agent"), instances=3, trials=1,
                             out=tmp_path / out, **kw)
        return (await run_bench(config)).runs

    graded = asyncio.run(sweep(str(path), "g"))
    plain = asyncio.run(sweep(TOML, "p"))
    assert (graded["grader_cost_usd"] > 0).all() and plain["grader_cost_usd"].isna().all()
    assert list(graded["cost_usd"]) == list(plain["cost_usd"])  # the grader's cost is not the pattern's
    events = load_results(tmp_path / "g")["events"]
    graders = events[events["kind"] == "grader_model_call"]
    assert len(graders) == len(graded) and set(graders["name"]) == {"grader"}
    other = asyncio.run(sweep(str(path), "o", grader_model="sim:error_rate=1"))
    assert (other["score"] == 0).all() and (other["cost_usd"] == graded["cost_usd"]).all()


def test_a_user_design_overrides_only_its_patterns(tmp_path: Path) -> None:
    toml = (EXAMPLE / "tickets.toml").read_text() + ""
    toml = toml.replace('scorer = "includes"', 'scorer = "includes"\ndesign = "mine.py"')
    path = copy_example(tmp_path / "mine", toml)
    (tmp_path / "mine" / "mine.py").write_text(
        "from patterns.workflows import Single\n\n"
        "def design(pattern, env):\n"
        "    if pattern == 'single':\n"
        "        return Single(prompt='{task}', system='[task:tickets] Mine.', tools=env.tools, name='mine')\n")
    task = DatasetTask.from_file(path)
    env = task.environment(task.instances(1, 0)[0], tmp_path)
    assert task.design("single", env).name == "mine"
    assert type(task.design("chain", env)).__name__ == "Chain"


def test_the_sweep_runs_through_the_real_sdk_against_the_sim_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from patterns.model import AnthropicModel
    from patterns.sim.server import SimServer

    task = DatasetTask.from_file(TOML)
    with SimServer(policies=[task.policy()]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-tickets")
        config = BenchConfig(tasks=(TOML,), instances=2, trials=1, model="anthropic:claude-sonnet-4-5",
                             out=tmp_path)
        model = AnthropicModel("claude-sonnet-4-5", timeout=10.0)

        async def sweep() -> Any:
            try:
                return await run_bench(config, model=model)
            finally:
                await model.aclose()

        runs = asyncio.run(sweep()).runs
    assert len(runs) == 7 * 2 and set(runs["pattern"]) == set(PATTERNS)
    assert set(runs["terminal"]) <= {"completed", "error"} and (runs["terminal"] == "completed").mean() > 0.5
    assert runs["input_tokens"].gt(0).all() and runs["tool_calls"].sum() > 0


def test_sim_server_serves_a_task_files_policy_first(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.cli import sim_server

    served: list[Any] = []

    def run_server_cli(host: str, port: int, knobs: dict[str, Any], **extra: Any) -> int:
        served.extend(extra["policies"](print))
        return 0

    monkeypatch.setattr(sim_server, "run_server_cli", run_server_cli)  # the server loop, without a socket
    assert main(["sim-server", "--tasks", TOML, "--port", "0"]) == 0
    assert type(served[0]).__name__ == "DatasetPolicy" and served[0].marker == "[task:tickets]" and len(served) > 1
    assert main(["sim-server", "--tasks", TOML + "x"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_run_gives_the_same_trial_wherever_the_task_file_lives(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The simulated trial is keyed by the task's label, not its path: a copy elsewhere (another checkout, another
    folder) runs the same trial, so an outcome never depends on where the repository was cloned."""
    docs = []
    for toml in (TOML, str(copy_example(tmp_path / "elsewhere" / "tickets"))):
        assert main(["run", "agent", toml, "--json", "--model", "sim:error_rate=0.3"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    here, there = ({k: v for k, v in d.items() if k not in ("task", "latency_s")} for d in docs)
    assert here == there
