"""The sim server's network faults, as the REAL `anthropic` SDK meets them, and `wva sim-server`'s policies.

Every test talks to a `SimServer` on 127.0.0.1 (port 0); nothing in the SDK is patched. For each
fault the test pins down what the bare SDK raises (`anthropic.AsyncAnthropic`) and what
`AnthropicModel` raises, and that `server.faults_injected` names the class the client saw.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import anthropic
import pytest

from patterns.model import AnthropicModel
from patterns.retry import RetryPolicy, retry_after_s
from patterns.sim import Decider, Reply, Request, netfaults
from patterns.sim.server import SimServer, typed_knobs

KEY = "sk-ant-dummy-faults-0000"
MODEL_ID = "claude-sonnet-4-5"

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def ask(text: str) -> dict[str, Any]:
    return {"max_tokens": 64, "messages": [{"role": "user", "content": text}]}


def outcomes(url: str, texts: list[str], *, raw_sdk: bool = False, timeout: float = 5.0) -> list[Any]:
    """What each call returned or raised, through AnthropicModel (or the bare SDK client)."""

    async def main() -> list[Any]:
        model = AnthropicModel(MODEL_ID, base_url=url, api_key=KEY, timeout=timeout)
        out: list[Any] = []
        try:
            for text in texts:
                try:
                    if raw_sdk:
                        out.append(await model.client.messages.create(model=MODEL_ID, **ask(text)))
                    else:
                        out.append(await model.create(**ask(text)))
                except Exception as exc:
                    out.append(exc)
        finally:
            await model.aclose()
        return out

    return asyncio.run(main())


TEXTS = [f"question {i}" for i in range(8)]


def test_a_cut_connection_is_the_sdks_connection_error() -> None:
    with SimServer(disconnect_rate=1.0) as server:
        got = outcomes(server.url, TEXTS[:3])
    assert all(type(exc) is anthropic.APIConnectionError for exc in got), got
    assert all("peer closed connection" in str(exc.__cause__) for exc in got)
    assert server.faults_injected["APIConnectionError"] == 3 == server.network.counts["disconnect"]
    assert server.model.calls == 0  # the model was never asked: a retry sees the same decision


def test_a_slow_reply_is_the_sdks_timeout_error_and_is_never_generated() -> None:
    with SimServer(slow_rate=1.0, slow_s=0.4) as server:
        got = outcomes(server.url, TEXTS[:2], timeout=0.1)
        time.sleep(0.6)  # let the server wake up and notice that nobody waits any more
    assert all(type(exc) is anthropic.APITimeoutError for exc in got), got
    assert server.faults_injected["APITimeoutError"] == 2 == server.abandoned
    assert server.model.calls == 0


def test_a_slow_reply_within_the_clients_timeout_is_just_late() -> None:
    with SimServer(slow_rate=1.0, slow_s=0.2) as server:
        [reply] = outcomes(server.url, ["hello"], timeout=5.0)
    assert isinstance(reply, anthropic.types.Message) and reply.content[0].text == "Answer: hello"
    assert server.abandoned == 0 and server.network.counts["slow"] == 1


def test_the_model_timeout_fault_is_not_generated_for_a_client_that_gave_up() -> None:
    with SimServer(timeout_rate=1.0, slow_s=0.3) as server:
        [exc] = outcomes(server.url, ["hello"], timeout=0.1)
        time.sleep(0.5)
    assert type(exc) is anthropic.APITimeoutError
    assert server.abandoned == 1 and server.model.replies == 0


def test_a_malformed_200_the_bare_sdk_does_not_report_as_an_api_error() -> None:
    """The SDK's own behaviour, which is why AnthropicModel translates it (see the next test)."""
    with SimServer(malformed_rate=1.0, seed=5) as server:
        got = outcomes(server.url, TEXTS, raw_sdk=True)
    decode_errors = [g for g in got if isinstance(g, json.JSONDecodeError)]
    pages = [g for g in got if isinstance(g, str)]
    assert decode_errors and pages and len(decode_errors) + len(pages) == len(TEXTS)
    assert not any(isinstance(g, anthropic.APIError) for g in decode_errors)
    assert all("502 Bad Gateway" in page for page in pages)  # create() returned the HTML as a str


def test_a_malformed_200_is_a_retryable_response_validation_error() -> None:
    with SimServer(malformed_rate=1.0, seed=5) as server:
        got = outcomes(server.url, TEXTS)
    assert all(type(exc) is anthropic.APIResponseValidationError for exc in got), got
    assert all(exc.status_code == 200 and RetryPolicy().is_retryable(exc) for exc in got)
    assert {"not valid JSON" in str(exc) for exc in got} == {True, False}  # both kinds of malformed body
    assert any("text/html" in str(exc) for exc in got)
    assert server.faults_injected["APIResponseValidationError"] == len(TEXTS)


def test_a_529_carries_retry_after_which_the_retry_policy_honours() -> None:
    with SimServer(overloaded_rate=1.0, retry_after_s=3) as server:
        [exc] = outcomes(server.url, ["hello"])
    assert type(exc) is anthropic.OverloadedError and exc.status_code == 529
    assert exc.response.headers["retry-after"] == "3" and retry_after_s(exc) == 3.0
    assert RetryPolicy().delay_s(0, exc, random.Random(0)) == 3.0
    assert server.faults_injected["OverloadedError"] == 1


def test_every_fault_is_counted_by_the_class_the_client_saw() -> None:
    with SimServer(disconnect_rate=0.15, malformed_rate=0.15, overloaded_rate=0.1, rate_limit_rate=0.1,
                   server_error_rate=0.1, retry_after_s=0, seed=11) as server:
        got = outcomes(server.url, [f"q{i}" for i in range(60)])
    seen: dict[str, int] = {}
    for item in got:
        if isinstance(item, Exception):
            seen[type(item).__name__] = seen.get(type(item).__name__, 0) + 1
    assert set(seen) == {"APIConnectionError", "APIResponseValidationError", "OverloadedError", "RateLimitError",
                         "InternalServerError"}
    assert {k: v for k, v in server.faults_injected.items() if v} == seen
    assert server.model.replies == len(got) - sum(seen.values())


def test_network_faults_are_seeded() -> None:
    def pattern(seed: int) -> list[str]:
        with SimServer(disconnect_rate=0.3, malformed_rate=0.3, seed=seed) as server:
            return [type(g).__name__ for g in outcomes(server.url, TEXTS)]

    assert pattern(1) == pattern(1)
    assert pattern(1) != pattern(2)


class Coin:
    """A policy whose every answer is one decision: `heads` when correct, `tails` when wrong."""

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        return Reply([{"type": "text", "text": "heads" if decide.correct() else "tails"}])


def test_a_retried_request_gets_the_decision_it_would_have_had_without_the_fault() -> None:
    """(A slow reply or a model timeout is never generated for a client that gave up: tested above.)"""
    async def answers(url: str) -> list[str]:
        model = AnthropicModel(MODEL_ID, base_url=url, api_key=KEY)
        out = []
        try:
            for text in TEXTS:
                while True:  # retry until it comes through
                    try:
                        out.append((await model.create(**ask(text))).content[0].text)
                        break
                    except anthropic.APIError:
                        continue
        finally:
            await model.aclose()
        return out

    with SimServer(policies=[Coin()], error_rate=0.5, seed=3) as clean:
        expected = asyncio.run(answers(clean.url))
    with SimServer(policies=[Coin()], error_rate=0.5, seed=3, disconnect_rate=0.2, malformed_rate=0.2,
                   overloaded_rate=0.1, server_error_rate=0.1) as faulty:
        got = asyncio.run(answers(faulty.url))
    assert got == expected and set(expected) == {"heads", "tails"}
    assert sum(faulty.faults_injected.values()) > 0


@pytest.mark.parametrize("knobs", [{"disconnect_rate": 1.5}, {"slow_rate": -0.1}, {"malformed_rate": "x"},
                                   {"disconnect_rate": 0.6, "malformed_rate": 0.6}])
def test_bad_network_fault_rates_are_value_errors(knobs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="_rate"):
        SimServer(**knobs)


def test_network_fault_options_are_typed_from_text() -> None:
    assert typed_knobs({"disconnect_rate": "0.25", "slow_rate": "0", "malformed_rate": "1"}) == {
        "disconnect_rate": 0.25, "slow_rate": 0.0, "malformed_rate": 1.0}


def test_the_fault_kinds_name_sdk_classes() -> None:
    assert set(netfaults.FAULT_ERRORS) == set(netfaults.RATES.values())
    for name in netfaults.FAULT_ERRORS.values():
        assert issubclass(getattr(anthropic, name), anthropic.APIError)


# --- wva sim-server: the task families' policies ---------------------------------------------------


def test_task_policies_load_every_family_that_imports_and_warn_for_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.cli.sim_server import task_policies
    from benchmarks.tasks import registry

    monkeypatch.setitem(registry.BUILTIN, "capitals", "examples.minimal_family:Capitals")
    monkeypatch.setitem(registry.BUILTIN, "ghost", "benchmarks.tasks.no_such_family:Ghost")
    warnings: list[str] = []
    policies = task_policies(warnings.append)
    assert len(warnings) == 1 and "'ghost' is not served" in warnings[0] and "\n" not in warnings[0]
    assert "CapitalsPolicy" in [type(p).__name__ for p in policies]
    assert len(policies) <= len(registry.BUILTIN) - 1


def test_a_served_family_answers_its_own_prompts_the_generic_policy_the_rest() -> None:
    from examples.minimal_family import MARK, Capitals

    with SimServer(policies=[Capitals().policy()]) as server:
        got = outcomes(server.url, [f"{MARK} Classify (geography or other): What is the capital of Peru?", "hi"])
    assert [m.content[0].text for m in got] == ["geography", "Answer: hi"]


@pytest.mark.parametrize(("argv", "loader"), [([], True), (["--generic-only"], False)])
def test_sim_server_passes_the_task_policies_unless_generic_only(
        monkeypatch: pytest.MonkeyPatch, argv: list[str], loader: bool) -> None:
    from benchmarks.cli import sim_server
    from benchmarks.cli.main import main
    from benchmarks.cli.sim_server import task_policies

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(sim_server, "run_server_cli", lambda host, port, knobs, **kw: calls.append(kw) or 0)
    assert main(["sim-server", "--port", "0", *argv]) == 0
    assert calls == ([{"policies": task_policies}] if loader else [{}])


def test_a_burst_of_new_connections_is_not_a_burst_of_timeouts() -> None:
    """A listen backlog of 5 (http.server's default) drops the SYNs of a burst; the client retries a
    SYN after 1 s, so a short client timeout would report faults that nobody injected."""

    async def burst(url: str) -> list[Any]:
        model = AnthropicModel(MODEL_ID, base_url=url, api_key=KEY, timeout=0.5)
        try:
            return await asyncio.gather(*(model.create(**ask(f"b{i}")) for i in range(40)), return_exceptions=True)
        finally:
            await model.aclose()

    with SimServer() as server:
        got = asyncio.run(burst(server.url))
    assert [type(g).__name__ for g in got if isinstance(g, BaseException)] == []
