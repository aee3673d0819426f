"""The sim server speaks the Messages API's HTTP: its JSON, its status codes, its error bodies."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

import pytest

from benchmarks.cli.main import main as cli_main
from patterns.sim import Decider, Reply, Request
from patterns.sim.server import SimServer, typed_knobs

from .fake_loop import TimedWaits

CANARY = "sk-ant-canary-SERVER0000"


def post(url: str, body: Any, headers: dict[str, str] | None = None, raw: bytes | None = None
         ) -> tuple[int, dict[str, Any], dict[str, str]]:
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}/v1/messages", data=data, method="POST",
                                     headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


def hello(**extra: Any) -> dict[str, Any]:
    return {"model": "claude-sim-test", "max_tokens": 64, "messages": [{"role": "user", "content": "hello"}], **extra}


@pytest.fixture(scope="module")
def server() -> Any:
    with SimServer() as running:
        yield running


def test_health_and_unknown_paths(server: SimServer) -> None:
    with urllib.request.urlopen(f"{server.url}/health", timeout=5) as response:
        assert response.status == 200 and json.loads(response.read()) == {"status": "ok"}
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{server.url}/v1/nothing", timeout=5)
    assert info.value.code == 404 and json.loads(info.value.read())["error"]["type"] == "not_found_error"


def test_a_reply_is_the_message_json(server: SimServer) -> None:
    status, body, headers = post(server.url, hello())
    assert status == 200
    assert body["type"] == "message" and body["role"] == "assistant" and body["model"] == "claude-sim-test"
    assert body["content"] == [{"type": "text", "text": "Answer: hello"}]
    assert body["stop_reason"] == "end_turn" and body["stop_sequence"] is None
    assert set(body["usage"]) == {"input_tokens", "output_tokens", "cache_creation_input_tokens",
                                  "cache_read_input_tokens"}
    assert headers["content-type"] == "application/json" and headers["request-id"].startswith("req_")


@pytest.mark.parametrize(("body", "raw", "wording"), [
    (None, b"{not json", "error parsing the body"),
    ({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}, None, "model: Field required"),
    (hello(max_tokens=None), None, "max_tokens: Field required"),
    (hello(messages=[{"role": "user", "content": "a"}, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}, {"role": "user", "content": "no result"}]),
     None, "`tool_use` ids were found without `tool_result` blocks immediately after: t1"),
    (hello(messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]), None, "alternate"),
    (hello(stream=True), None, "stream"),
])
def test_invalid_requests_are_400_invalid_request_error(server: SimServer, body: Any, raw: bytes | None,
                                                        wording: str) -> None:
    status, reply, _ = post(server.url, body, raw=raw)
    assert status == 400 and reply["type"] == "error"
    assert reply["error"]["type"] == "invalid_request_error" and wording in reply["error"]["message"]


def test_prompt_too_long_over_http() -> None:
    with SimServer(context_window=20) as small:
        status, reply, _ = post(small.url, hello(messages=[{"role": "user", "content": "long " * 50}]))
    assert status == 400 and reply["error"]["message"].startswith("prompt is too long: ")


@pytest.mark.parametrize(("knob", "status", "error_type", "retry_after"), [
    ("rate_limit_rate", 429, "rate_limit_error", "3"),
    ("overloaded_rate", 529, "overloaded_error", "3"),
    ("server_error_rate", 500, "api_error", None),
])
def test_faults_have_the_api_status_body_and_retry_after(knob: str, status: int, error_type: str,
                                                         retry_after: str | None) -> None:
    with SimServer(**{knob: 1.0}, retry_after_s=3) as faulty:
        got, reply, headers = post(faulty.url, hello())
    assert got == status and reply["error"]["type"] == error_type
    assert headers.get("retry-after") == retry_after


def test_a_timeout_fault_is_served_late() -> None:
    with SimServer(timeout_rate=1.0, slow_s=0.3) as slow:
        slow._stopping = held = TimedWaits(slow._stopping)  # what the reply was held for (no stopwatch)
        status, reply, _ = post(slow.url, hello())
    assert held.waits == [0.3]
    assert status == 200 and reply["type"] == "message"
    assert slow.model.faults_injected["APITimeoutError"] == 1


def test_required_api_key_and_no_key_in_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="patterns.sim.server")
    with SimServer(require_api_key=CANARY) as guarded:
        bad, bad_reply, _ = post(guarded.url, hello(), headers={"x-api-key": CANARY + "-wrong"})
        good, _, _ = post(guarded.url, hello(), headers={"x-api-key": CANARY})
        bearer, _, _ = post(guarded.url, hello(), headers={"authorization": f"Bearer {CANARY}"})
    assert bad == 401 and bad_reply["error"]["type"] == "authentication_error"
    assert CANARY not in json.dumps(bad_reply)
    assert good == 200 and bearer == 200
    assert "POST /v1/messages" in caplog.text and CANARY not in caplog.text


class Ping:
    def accepts(self, request: Request) -> bool:
        return "PING" in request.first_user_text()

    def respond(self, request: Request, decide: Decider) -> Reply:
        return Reply([{"type": "text", "text": "PONG"}])


def test_the_first_accepting_policy_answers_else_the_generic_one() -> None:
    with SimServer(policies=[Ping()]) as multi:
        _, pong, _ = post(multi.url, hello(messages=[{"role": "user", "content": "PING?"}]))
        _, generic, _ = post(multi.url, hello())
        multi.policies.clear()  # the list is live: unregistering takes effect at once
        _, after, _ = post(multi.url, hello(messages=[{"role": "user", "content": "PING?"}]))
    assert pong["content"][0]["text"] == "PONG"
    assert generic["content"][0]["text"] == "Answer: hello"
    assert after["content"][0]["text"] == "Answer: PING?"


def test_a_broken_policy_is_a_500_not_a_dead_server() -> None:
    class Broken(Ping):
        def respond(self, request: Request, decide: Decider) -> Reply:
            raise RuntimeError("bug")

    with SimServer(policies=[Broken()]) as s:
        status, reply, _ = post(s.url, hello(messages=[{"role": "user", "content": "PING"}]))
        ok, _, _ = post(s.url, hello())
    assert status == 500 and reply["error"]["type"] == "api_error" and ok == 200


def test_cli_knobs_are_typed_and_checked() -> None:
    assert typed_knobs({"error_rate": "0.5", "slow_s": "2", "realtime": "true", "name": "x"}) == {
        "error_rate": 0.5, "slow_s": 2.0, "realtime": True, "name": "x"}
    # the command line is `wva sim-server` alone (patterns/ has no CLI of its own): a bad knob is exit 2
    assert cli_main(["sim-server", "--port", "0", "--knob", "bogus=1"]) == 2
    assert cli_main(["sim-server", "--knob", "error_rate"]) == 2


def test_start_stop_and_url() -> None:
    server = SimServer()
    with pytest.raises(RuntimeError):
        _ = server.url
    server.start()
    assert server.url.startswith("http://127.0.0.1:")
    server.stop()
