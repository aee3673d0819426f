"""A canary API key in the environment never reaches anything the project writes or prints.

Each test sets `ANTHROPIC_API_KEY` to a canary, does real work — `wva bench` and `wva run --json`
in-process (on the simulator and through the real SDK against the sim server, which insists on
the key), a RecordingModel cassette, a 401 — then greps every file written and everything
captured on stdout/stderr for the canary. Error messages that quote a key are redacted in a
Result's errors and events, whether the key is the environment's or only looks like one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.cli.main import main
from examples.minimal_family import CapitalsPolicy
from patterns import (
    Kind,
    RetryPolicy,
    ScriptedModel,
    Terminal,
    ToolSet,
    arun_agent,
    message,
    run_agent,
    tool,
    tool_use_block,
)
from patterns.model import AnthropicModel
from patterns.replay import RecordingModel, ReplayModel
from patterns.sim.server import SimServer
from patterns.workflows import LLM, Chain, Gate, run_workflow

from .helpers import api_error

CANARY = "sk-ant-canary-secrets-0123456789"
PLAIN_CANARY = "plain-canary-token-42xyz"  # not shaped like a key: only the environment says it is one
TASK = "examples.minimal_family:Capitals"
SDK_MODEL = "anthropic:claude-sonnet-4-5"
FAST = RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def canary(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    # the manifest records the command line: pretend the key was even pasted into it
    monkeypatch.setattr(sys, "argv", ["wva", "bench", f"--note={CANARY}"])
    return CANARY


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    """The sim server, serving the example family, accepting only the canary; the SDK is pointed at it."""
    with SimServer(policies=[CapitalsPolicy()], require_api_key=CANARY) as running:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.url)
        yield running


@pytest.fixture
def wrong_key_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    """A server that wants another key: every SDK call is a 401."""
    with SimServer(policies=[CapitalsPolicy()], require_api_key="sk-ant-canary-someone-elses-key") as running:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.url)
        yield running


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def assert_no_canary(root: Path, *captured: str, secrets: tuple[str, ...] = (CANARY,)) -> list[Path]:
    """Every file under `root` and every captured text is free of the secrets; returns the files checked."""
    files = files_under(root)
    assert files, f"nothing was written under {root}"
    for secret in secrets:
        for path in files:
            assert secret.encode() not in path.read_bytes(), f"{secret} leaked into {path}"
            assert secret not in str(path)
        for text in captured:
            assert secret not in text
    return files


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- the CLI: bench and run ---------------------------------------------------------------------------


def test_a_simulated_bench_writes_no_key(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "r"
    status, stdout, stderr = cli(capsys, "bench", "--tasks", TASK, "--instances", "2", "--trials", "1",
                                 "--out", str(out), "--quiet")
    assert status == 0, stderr
    files = assert_no_canary(tmp_path, stdout, stderr, caplog.text)
    assert {"runs.csv", "events.jsonl", "summary.csv", "manifest.json"} <= {p.name for p in files}
    manifest = json.loads((out / "manifest.json").read_text())
    assert "[REDACTED]" in manifest["command"]  # the pasted key was there, and was redacted
    assert len((out / "runs.csv").read_text().splitlines()) == 1 + 2 * 7  # header + 2 instances x 7 patterns


def test_a_bench_through_the_sdk_with_the_key_writes_no_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, server: SimServer
) -> None:
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "r"
    status, stdout, stderr = cli(capsys, "bench", "--tasks", TASK, "--instances", "2", "--trials", "1",
                                 "--model", SDK_MODEL, "--out", str(out), "--quiet")
    assert status == 0, stderr
    assert server.model.replies > 0  # the key was sent (the server insists on it) and calls were served
    runs = (out / "runs.csv").read_text()
    assert ",error," not in runs and "AuthenticationError" not in runs
    assert_no_canary(tmp_path, stdout, stderr, caplog.text)


@pytest.mark.parametrize("model", ["sim", SDK_MODEL])
def test_wva_run_json_prints_no_key(capsys: pytest.CaptureFixture[str], tmp_path: Path, server: SimServer,
                                    model: str) -> None:
    status, stdout, stderr = cli(capsys, "run", "agent", TASK, "--model", model, "--json")
    assert status == 0, stderr
    doc = json.loads(stdout)
    assert doc["terminal"] == "completed" and doc["score"] == 1.0
    (tmp_path / "run.json").write_text(stdout)
    assert_no_canary(tmp_path, stdout, stderr)


def test_a_401_through_the_sdk_is_reported_without_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wrong_key_server: SimServer
) -> None:
    """The pre-flight request meets the 401: one line naming the variable, exit 2, and never the key."""
    status, stdout, stderr = cli(capsys, "run", "agent", TASK, "--model", SDK_MODEL, "--json")
    assert status == 2 and "401" in stderr and "ANTHROPIC_API_KEY" in stderr
    error = json.loads(stdout)  # with --json the refusal is a JSON document too (docs/json.md)
    assert error["schema"] == "wva.error/1" and error["status"] == 2 and "401" in error["error"]
    out = tmp_path / "r"
    status, bench_out, bench_err = cli(capsys, "bench", "--tasks", TASK, "--instances", "1", "--trials", "1",
                                       "--patterns", "single,agent", "--model", SDK_MODEL, "--out", str(out),
                                       "--quiet")
    assert status == 2 and "401" in bench_err and not out.exists()
    (tmp_path / "run.err").write_text(stderr)
    assert_no_canary(tmp_path, stdout, stderr, bench_out, bench_err)


def test_a_cassette_recorded_through_the_sdk_holds_no_key(tmp_path: Path, server: SimServer) -> None:
    cassette = tmp_path / "cassette.jsonl"

    @tool(timeout_s=None)
    def lookup_capital(country: str) -> str:
        """Return the capital city of a country.

        Args:
            country: the country's name
        """
        return {"France": "Paris"}[country]

    async def record() -> Any:
        inner = AnthropicModel("claude-sonnet-4-5")  # key and base URL from the environment, as the SDK reads them
        try:
            return await arun_agent(RecordingModel(inner, cassette), "[capitals] What is the capital of France?",
                                    tools=ToolSet([lookup_capital]), retry=FAST)
        finally:
            await inner.aclose()

    res = asyncio.run(record())
    assert res.terminal is Terminal.COMPLETED and "Paris" in res.output
    assert len(cassette.read_text().splitlines()) == res.steps == 2
    assert_no_canary(tmp_path, json.dumps(res.to_dict(), default=str))
    replayed = run_agent(ReplayModel(cassette), "[capitals] What is the capital of France?",
                         tools=ToolSet([lookup_capital]), retry=FAST)
    assert replayed.output == res.output and replayed.usage == res.usage


# --- error messages that quote a key are redacted in the Result ----------------------------------------


def dumped(res: Any) -> str:
    return json.dumps(res.to_dict(), default=str)


@pytest.fixture(params=[CANARY, PLAIN_CANARY], ids=["key-shaped", "env-only"])
def secret(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", request.param)
    return str(request.param)


def test_an_api_error_quoting_the_key_is_redacted_in_errors_and_events(secret: str) -> None:
    model = ScriptedModel([api_error(401, f"invalid x-api-key: {secret}")])
    res = run_agent(model, "hi", retry=FAST)
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "AuthenticationError"
    assert "[REDACTED]" in res.errors[0].message and "[REDACTED]" in res.detail
    assert "[REDACTED]" in (next(e for e in res.events if e.kind is Kind.ERROR).error or "")
    assert secret not in dumped(res)


def test_a_retried_error_quoting_the_key_is_redacted_in_the_retry_events(secret: str) -> None:
    model = ScriptedModel([api_error(529, f"overloaded (key {secret})"), message("fine")])
    res = run_agent(model, "hi", retry=FAST)
    assert res.terminal is Terminal.COMPLETED and res.retries == 1
    assert "[REDACTED]" in (next(e for e in res.events if e.kind is Kind.RETRY).error or "")
    assert secret not in dumped(res)


def test_a_workflow_failure_quoting_the_key_is_redacted(secret: str) -> None:
    chain = Chain([LLM("draft"), Gate("no_keys", lambda t: f"the draft quotes {secret}")])
    res = run_workflow(chain, ScriptedModel([message("draft text")]), "go")
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "GateFailed"
    assert "[REDACTED]" in res.errors[0].message
    assert secret not in dumped(res)


def test_a_tool_exception_quoting_the_key_is_redacted_in_the_result_and_the_next_request(secret: str) -> None:
    @tool(timeout_s=None)
    def connect(host: str) -> str:
        """Connect to a host.

        Args:
            host: where to connect
        """
        raise PermissionError(f"login to {host} failed with key {secret}")

    model = ScriptedModel([message(tool_use_block("connect", {"host": "db"})), message("could not connect")])
    res = run_agent(model, "connect", tools=ToolSet([connect]), retry=FAST)
    assert res.terminal is Terminal.COMPLETED and res.tool_calls == 1
    event = next(e for e in res.events if e.kind is Kind.TOOL_CALL)
    assert event.is_error and event.error_type == "PermissionError" and "[REDACTED]" in (event.error or "")
    assert secret not in dumped(res)
    assert secret not in json.dumps(model.requests[1]["messages"], default=str)  # nor sent on to the model


# --- openai:<model> and --otel --------------------------------------------------------------------------

OPENAI_CANARY = "sk-proj-canary-secrets-0123456789"


@pytest.fixture
def openai_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimServer]:
    """The sim server wanting the OpenAI canary as a bearer token; the openai SDK is pointed at its /v1."""
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_CANARY)
    with SimServer(policies=[CapitalsPolicy()], require_api_key=OPENAI_CANARY) as running:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{running.url}/v1")
        yield running


def test_a_bench_through_openai_with_spans_on_the_console_writes_and_prints_no_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, openai_server: SimServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("opentelemetry.sdk")
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "r"
    status, stdout, stderr = cli(capsys, "bench", "--tasks", TASK, "--instances", "2", "--trials", "1",
                                 "--model", "openai:gpt-4.1-mini", "--out", str(out), "--quiet", "--otel",
                                 "--otel-content")
    assert status == 0, stderr
    assert openai_server.model.replies > 0 and ",error," not in (out / "runs.csv").read_text()
    assert '"invoke_agent agent"' in stderr and "gen_ai.input.messages" in stderr  # the spans were printed
    assert_no_canary(tmp_path, stdout, stderr, caplog.text, secrets=(OPENAI_CANARY, CANARY))


def test_a_401_through_openai_is_reported_without_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, openai_server: SimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-canary-not-the-servers-key-98765")
    status, stdout, stderr = cli(capsys, "run", "agent", TASK, "--model", "openai:gpt-4.1-mini", "--json")
    assert status == 2 and "401" in stderr and "OPENAI_API_KEY" in stderr  # the pre-flight request met it
    (tmp_path / "run.err").write_text(stderr)
    assert_no_canary(tmp_path, stdout, stderr, secrets=(OPENAI_CANARY, "sk-proj-canary-not-the-servers-key-98765"))
