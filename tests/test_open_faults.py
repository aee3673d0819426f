"""The faults an attacker found (issue 35, part 4): a server that never answers, absurd sizes, a huge task-file row,
Ctrl-C during the startup imports, bodies the sim server must refuse, and a garbage runs.csv."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import anthropic
import pytest

from benchmarks.cli import main as cli
from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.preflight import preflight
from benchmarks.tasks.base import iter_instances
from benchmarks.tasks.dataset.rows import MAX_ROW_CHARS, read_rows
from benchmarks.tasks.pipeline import Pipeline
from patterns import Kind, RetryPolicy
from patterns.deadline import Deadline, with_deadline
from patterns.model import AnthropicModel
from patterns.run import Run
from patterns.sim import SimModel
from patterns.sim.server import SimServer

from .fake_loop import FakeClockLoop

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def silent() -> Iterator[str]:
    """A server that accepts connections and never answers a byte."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.05)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    sock.close()


def test_an_attempt_past_its_deadline_is_an_api_timeout_error(silent: str) -> None:
    model = with_deadline(AnthropicModel("claude-sonnet-4-5", base_url=silent, api_key="x"), 0.3)
    assert isinstance(model, Deadline)

    async def call() -> None:
        try:
            await model.create(max_tokens=1, messages=[{"role": "user", "content": "hi"}])
        finally:
            await model.aclose()

    loop = FakeClockLoop()  # the deadline, not the SDK's own 600 s read timeout, ends it: 0.3 fake seconds
    with pytest.raises(anthropic.APITimeoutError), asyncio.Runner(loop_factory=lambda: loop) as runner:
        runner.run(call())
    assert loop.time() == pytest.approx(0.3)


def test_a_simulated_model_gets_no_deadline() -> None:
    sim = SimModel()
    assert with_deadline(sim, 1.0) is sim


def test_a_pre_flight_against_a_server_that_never_answers_is_refused_in_one_line(silent: str) -> None:
    model = AnthropicModel("claude-sonnet-4-5", base_url=silent, api_key="x")
    policy = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.01)
    with pytest.raises(SweepRefused, match=r"no answer within 0.2 s, 3 times \(base URL http://127.0.0.1:"):
        asyncio.run(preflight(model, "anthropic:claude-sonnet-4-5", policy, timeout_s=0.2))


def test_a_call_s_retries_stop_at_their_total_bound() -> None:
    """529s that each ask for 1 s: four retries unbounded; with 2.5 s for the whole call, two (virtual time)."""

    def retries(policy: RetryPolicy) -> int:
        run = Run(SimModel(overloaded_rate=1.0, retry_after_s=1.0), retry=policy)
        with pytest.raises(anthropic.APIStatusError):
            asyncio.run(run.sample(messages=[{"role": "user", "content": "hi"}]))
        return sum(e.kind is Kind.RETRY for e in run.events)

    assert retries(RetryPolicy(max_total_s=None)) == 4
    assert retries(RetryPolicy(max_total_s=2.5)) == 2


def test_absurd_instances_exit_2_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--instances", "99999999999999999999", "--out", "never-written"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["wva: error: argument --instances: expected at most 100,000 instances per task, got "
                   "99999999999999999999 (see 'wva bench --help')"]
    assert not Path("never-written").exists()


def test_instances_are_made_lazily_and_are_the_same() -> None:
    family = Pipeline()
    made = iter_instances(family, 10**12, seed=3)  # a generator: nothing is made until asked for
    assert [next(made).id for _ in range(3)] == [i.id for i in family.instances(3, 3)]


def test_a_task_file_row_past_the_limit_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"input": "ok", "target": "x"}) + "\n" + json.dumps({"input": "a" * MAX_ROW_CHARS}))
    with pytest.raises(ValueError, match=r"rows.jsonl: line 2 is longer than 4,194,304 characters"):
        read_rows(path)
    csv_path = tmp_path / "rows.csv"
    csv_path.write_text("input,target\nok,x\n" + "a" * (MAX_ROW_CHARS + 1) + ",x\n")
    with pytest.raises(ValueError, match=r"rows.csv: line 3 is longer than"):
        read_rows(csv_path)


def test_ctrl_c_while_the_commands_import_exits_130_without_parsing_again(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls = []

    def interrupted() -> None:
        calls.append(1)
        raise KeyboardInterrupt  # as if the user pressed Ctrl-C while a command's module was being imported

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["bench", "--out", "x"]) == 130
    assert calls == [1]  # the handler did not build the parser (import the modules) again
    assert capsys.readouterr().err.strip() == "wva: interrupted"


def test_the_sim_server_refuses_a_deeply_nested_body_and_an_absurd_max_tokens() -> None:
    import http.client

    with SimServer() as server:
        host, port = server.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("POST", "/v1/messages", body=b"[" * 100_000, headers={"content-type": "application/json"})
        reply = conn.getresponse()
        assert reply.status == 400
        assert json.loads(reply.read())["error"]["type"] == "invalid_request_error"
        client = anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0)
        with pytest.raises(anthropic.BadRequestError, match=r"max_tokens: 64001 > 64000, which is the maximum"):
            client.messages.create(model="claude-sonnet-4-5", max_tokens=64_001,
                                   messages=[{"role": "user", "content": "hi"}], timeout=30.0)  # else the SDK refuses


def test_a_garbage_runs_csv_is_one_line_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs.csv").write_bytes(b'\x00garbage"\n"a,b\n1,2,3\n')
    assert cli.main(["criterion", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{tmp_path / 'runs.csv'}: cannot be read as a table" in err[0], err


def test_the_sim_server_emulates_a_rate_limited_account_with_the_api_s_headers() -> None:
    import re

    import httpx

    with SimServer(rate_limit_rpm=3, rate_limit_itpm=1000, rate_limit_otpm=500) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0)
        params = {"model": "claude-sonnet-4-5", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}
        raw = client.messages.with_raw_response.create(**params)  # type: ignore[call-overload]
        stamp = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")  # RFC 3339
        for kind in ("requests", "input-tokens", "output-tokens", "tokens"):
            assert raw.headers[f"anthropic-ratelimit-{kind}-limit"] in ("3", "1000", "500")
            assert int(raw.headers[f"anthropic-ratelimit-{kind}-remaining"]) >= 0
            assert stamp.fullmatch(raw.headers[f"anthropic-ratelimit-{kind}-reset"])
        assert raw.headers["anthropic-ratelimit-requests-remaining"] == "2"
        client.messages.create(**params)
        client.messages.create(**params)
        with pytest.raises(anthropic.RateLimitError) as caught:  # the fourth request within the minute
            client.messages.create(**params)
        assert int(caught.value.response.headers["retry-after"]) >= 1
        assert caught.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
        assert "3 requests per minute" in caught.value.body["error"]["message"]  # type: ignore[index]
        reply = httpx.post(f"{server.url}/v1/chat/completions", json={**params, "model": "sim"})
        assert reply.status_code == 429 and reply.headers["x-ratelimit-limit-requests"] == "3"
        assert reply.headers["x-ratelimit-reset-tokens"].endswith("s")
        assert server.account.limited == 2
