"""`openai:<model>` end to end: the REAL `openai` SDK against the sim server's /v1/chat/completions.

The same scripted policy and tapped server as the Anthropic path's tests (`sdk_harness`); every
retry, fault and recovery those tests pin down through /v1/messages is checked here through
`OpenAIModel`, which must give the loop the same Messages, the same exceptions and the same events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import pytest

from patterns import Kind, RequestOptions, Result, RetryPolicy, Terminal, Usage
from patterns.compaction import CLEARED
from patterns.openai_model import OpenAIModel
from patterns.retry import retry_after_s
from patterns.sim import Reply, chat_wire
from patterns.sim.server import SimServer
from patterns.workflows import LLM, Chain

from .sdk_harness import FAST, TOOLS, Tapped, agent, finished, kinds, say, use, workflow

pytest.importorskip("openai")
pytestmark = pytest.mark.timeout(60)
KEY = "sk-openai-canary-e2e-0123456789"
MODEL_ID = "gpt-4.1-mini"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)


def run(server: SimServer, body: Callable[[Any], Awaitable[Result]], *, key: str = KEY, **client: Any) -> Result:
    """`body(model)` with an OpenAIModel on the server's chat endpoint, opened and closed in one event loop."""

    async def main() -> Result:
        model = OpenAIModel(MODEL_ID, base_url=f"{server.url}/v1", api_key=key, **client)
        try:
            return await body(model)
        finally:
            await model.aclose()

    return asyncio.run(main())


def accounted(result: Result, server: Tapped) -> None:
    """Steps, usage and retries are what the server saw and reported; the key is nowhere in the result."""
    assert result.steps == len(server.replies) == len(kinds(result, Kind.MODEL_CALL))
    assert result.usage == server.usage and result.usage.input_tokens > 0
    assert server.posts == result.steps + result.retries + len(kinds(result, Kind.ERROR))
    assert result.cost_usd is not None and result.cost_usd > 0  # gpt-4.1-mini is priced
    assert KEY not in json.dumps(result.to_dict(), default=str)


def test_an_agent_with_a_tool_completes_with_ids_system_and_tools_carried() -> None:
    with Tapped(Reply([say("Adding."), use("add", {"a": 2, "b": 3})]), "It is 5.") as server:
        res = run(server, agent("What is 2+3?", system="Be terse.", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "It is 5." and res.steps == 2 and res.tool_calls == 1
    second = server.script.requests[1]
    assert second.system == "Be terse." and second.tool_names() == ["add", "echo", "page"]
    tool_id = res.messages[1]["content"][1]["id"]
    assert tool_id.startswith("toolu_") and second.last_tool_results() == [
        {"tool_use_id": tool_id, "content": "5", "is_error": False}]
    assert second.tool_uses() == [{"type": "tool_use", "id": tool_id, "name": "add", "input": {"a": 2, "b": 3}}]
    assert [e.stop_reason for e in kinds(res, Kind.MODEL_CALL)] == ["tool_use", "end_turn"]
    accounted(res, server)


def test_parallel_tool_calls_and_an_error_result_come_back_in_order_with_is_error() -> None:
    finished.clear()
    blocks = [use("echo", {"text": "first", "delay_ms": 30}), use("add", {"a": "x", "b": 1}),
              use("echo", {"text": "third", "delay_ms": 0})]
    with Tapped(Reply(blocks), "done") as server:
        res = run(server, agent(tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.tool_calls == 3
    results = server.script.requests[1].last_tool_results()
    assert [r["is_error"] for r in results] == [False, True, False]  # is_error survives chat completions
    assert results[0]["content"] == "FIRST" and results[1]["content"].startswith("Error: invalid input")
    assert [r["tool_use_id"] for r in results] == [b["id"] for b in res.messages[1]["content"]]
    accounted(res, server)


def test_the_overloaded_fault_is_openai_s_503_retried_as_a_server_error() -> None:
    """OpenAI has no 529: the simulator's overloaded fault comes as its 503, which the client retries as any 5xx."""
    with Tapped(Reply([use("add", {"a": 1, "b": 1})]), "2", overloaded_rate=0.5, retry_after_s=0, seed=3) as server:
        res = run(server, agent(tools=TOOLS, retry=RetryPolicy(max_retries=8, base_delay_s=0.001)))
    retries = kinds(res, Kind.RETRY)
    assert res.terminal is Terminal.COMPLETED and res.output == "2"
    assert len(retries) == server.model.faults_injected["OverloadedError"] >= 1
    assert {e.error_type for e in retries} == {"InternalServerError"}
    assert all("503" in (e.error or "") and "currently overloaded" in (e.error or "") for e in retries)
    accounted(res, server)


def test_every_attempt_failing_ends_after_max_retries_plus_one_requests() -> None:
    with Tapped(rate_limit_rate=1.0, retry_after_s=0) as server:
        res = run(server, agent(retry=RetryPolicy(max_retries=2, base_delay_s=0.001)))
    assert res.terminal is Terminal.ERROR and res.steps == 0 and res.usage == Usage()
    assert server.posts == 3  # the SDK's own retries are off: every attempt is one of ours
    assert [(e.kind, e.error_type, e.attempt) for e in res.events if e.kind in (Kind.RETRY, Kind.ERROR)] == [
        (Kind.RETRY, "RateLimitError", 1), (Kind.RETRY, "RateLimitError", 2), (Kind.ERROR, "RateLimitError", 3)]


def test_a_401_ends_the_run_at_once_and_the_key_is_never_recorded() -> None:
    with Tapped("never", require_api_key="sk-openai-the-right-one") as server:
        res = run(server, agent(tools=TOOLS))
    assert res.terminal is Terminal.ERROR and res.retries == 0 and server.posts == 1
    assert [(e.kind, e.error_type) for e in res.events] == [(Kind.ERROR, "AuthenticationError")]
    assert "401" in res.detail and KEY not in json.dumps(res.to_dict(), default=str)


@pytest.mark.parametrize(("knob", "cls", "status"), [
    ("rate_limit_rate", anthropic.RateLimitError, 429), ("overloaded_rate", anthropic.InternalServerError, 503),
    ("server_error_rate", anthropic.InternalServerError, 500)])
def test_status_faults_keep_their_class_status_and_retry_after(knob: str, cls: type, status: int) -> None:
    with SimServer(retry_after_s=7, **{knob: 1.0}) as server:
        exc = one_call(server)
    assert type(exc) is cls and exc.status_code == status
    assert retry_after_s(exc) == (None if status == 500 else 7.0)
    assert server.faults_injected["OverloadedError" if status == 503 else cls.__name__] == 1


@pytest.mark.parametrize(("knob", "cls"), [
    ("disconnect_rate", anthropic.APIConnectionError), ("malformed_rate", anthropic.APIResponseValidationError),
    ("slow_rate", anthropic.APITimeoutError)])
def test_network_faults_are_the_anthropic_sdks_exceptions(knob: str, cls: type) -> None:
    with SimServer(slow_s=0.5, **{knob: 1.0}) as server:
        exc = one_call(server, timeout=0.2)
    assert type(exc) is cls and server.faults_injected[cls.__name__] == 1
    assert RetryPolicy().is_retryable(exc)


def one_call(server: SimServer, **client: Any) -> Any:
    async def main() -> Any:
        model = OpenAIModel(MODEL_ID, base_url=f"{server.url}/v1", api_key=KEY, **client)
        try:
            return await model.create(max_tokens=64, messages=[{"role": "user", "content": "hi"}])
        except Exception as exc:
            return exc
        finally:
            await model.aclose()

    return asyncio.run(main())


def test_a_sweep_of_mixed_faults_retries_each_and_ends_every_run_completed() -> None:
    faults = {"disconnect_rate": 0.1, "malformed_rate": 0.1, "overloaded_rate": 0.1, "rate_limit_rate": 0.1,
              "server_error_rate": 0.1}
    with Tapped(*[Reply([use("add", {"a": i, "b": 1})]) for i in range(6)], "done", retry_after_s=0, seed=5,
                **faults) as server:
        res = run(server, agent(tools=TOOLS, retry=RetryPolicy(max_retries=10, base_delay_s=0.001)))
        injected: dict[str, int] = {}
        for name, n in server.faults_injected.items():  # an overloaded fault is OpenAI's 503 on this wire
            name = "InternalServerError" if name == "OverloadedError" else name
            injected[name] = injected.get(name, 0) + n
        injected = {k: v for k, v in injected.items() if v}
    assert res.terminal is Terminal.COMPLETED and res.steps == 7
    recorded: dict[str, int] = {}
    for e in kinds(res, Kind.RETRY):
        recorded[e.error_type or ""] = recorded.get(e.error_type or "", 0) + 1
    assert recorded == injected and sum(injected.values()) >= 2


def test_prompt_too_long_compacts_and_recovers_as_on_the_messages_wire() -> None:
    rounds = [Reply([use("page", {"n": n})]) for n in (1, 2, 3)]
    with Tapped(*rounds, "summary", context_window=1100) as server:
        res = run(server, agent("Read three pages.", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "summary" and server.script.done
    [error] = kinds(res, Kind.ERROR)
    assert error.error_type == "BadRequestError" and "prompt is too long" in (error.error or "")
    assert "tokens > 1100 maximum" in (error.error or "")  # the sizes OpenAI's wording carried
    assert len(kinds(res, Kind.COMPACTION)) == 1
    contents = [r["content"] for r in server.script.requests[-1].tool_results()]
    assert contents[:2] == [CLEARED, CLEARED] and contents[2].startswith("page 3: lorem")
    accounted(res, server)


def test_a_prompt_that_cannot_be_compacted_ends_in_context_overflow() -> None:
    with Tapped("never", context_window=10) as server:
        res = run(server, agent("This first prompt alone is longer than ten tokens.", retry=FAST))
    assert res.terminal is Terminal.ERROR and server.posts == 3
    assert [e.kind for e in res.errors] == ["ContextOverflow"]


def test_max_tokens_keeps_the_text_and_asks_to_continue() -> None:
    with Tapped(Reply([say("word " * 200)]), "the end.") as server:
        res = run(server, agent("write", options=RequestOptions(max_tokens=20), retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output.endswith("the end.")
    assert [e.stop_reason for e in kinds(res, Kind.MODEL_CALL)] == ["max_tokens", "end_turn"]
    assert len(kinds(res, Kind.ESCALATION)) == 1 and len(kinds(res, Kind.RECOVERY)) == 1
    assert server.script.requests[1].max_tokens == 40


def test_a_refusal_ends_the_run() -> None:
    with Tapped(Reply([say("I can't help with that.")], stop_reason="refusal"), "never") as server:
        res = run(server, agent("something bad", tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.REFUSAL and res.steps == 1 and res.output == "I can't help with that."


def test_tool_call_arguments_that_are_not_json_get_an_error_result_and_the_run_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = chat_wire.completion

    def garbled(message: dict[str, Any]) -> dict[str, Any]:
        body = original(message)
        for call in body["choices"][0]["message"].get("tool_calls") or []:
            if call["function"]["arguments"] == '{"a": 1, "b": 1}':
                call["function"]["arguments"] = '{"a": 1, "b": '  # cut off, as a small model sends it
        return body

    monkeypatch.setattr(chat_wire, "completion", garbled)
    with Tapped(Reply([use("add", {"a": 1, "b": 1})]), Reply([use("add", {"a": 1, "b": 2})]), "3") as server:
        res = run(server, agent(tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "3" and res.tool_calls == 2
    first = server.script.requests[1].last_tool_results()[0]
    assert first["is_error"] and "must be a JSON object" in first["content"]
    assert res.messages[1]["content"][0]["input"] == {}  # the history holds an object the API accepts


def test_workflows_run_through_openai_too() -> None:
    spec = Chain([LLM("draft", "Draft: {input}"), LLM("polish", "Polish: {input}")])
    with Tapped("a draft", "a polished draft") as server:
        res = run(server, workflow(spec, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "a polished draft" and res.steps == 2
    assert server.script.requests[1].last_user_text() == "Polish: a draft"
    accounted(res, server)
