"""AnthropicModel through the real SDK, against the sim server on 127.0.0.1 (never the internet)."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import pytest

from patterns.model import AnthropicModel, Model
from patterns.sim import SimModel
from patterns.sim.server import SimServer

CANARY = "sk-ant-canary-XXXX0000"
ADD = {
    "name": "add", "description": "Add two numbers.",
    "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
}


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def server() -> Any:
    with SimServer() as running:
        yield running


def call(model: AnthropicModel, **params: Any) -> Any:
    async def main() -> Any:
        try:
            return await model.create(**params)
        except anthropic.APIError as exc:
            return exc
        finally:
            await model.aclose()

    return asyncio.run(main())


def test_no_client_until_the_first_call_and_no_key_in_repr() -> None:
    model = AnthropicModel("claude-sonnet-4-5", api_key=CANARY)
    assert model._client is None and model.price_id == model.model_id == "claude-sonnet-4-5"
    assert CANARY not in repr(model) and not hasattr(model, "clock")
    assert isinstance(model, Model) and isinstance(SimModel(), Model)
    with pytest.raises(ValueError):
        AnthropicModel("")


def test_plain_reply_via_client_kwargs(server: SimServer) -> None:
    model = AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key=CANARY)
    reply = call(model, max_tokens=64, messages=[{"role": "user", "content": "hello"}])
    assert isinstance(reply, anthropic.types.Message)
    assert reply.content[0].text == "Answer: hello" and reply.model == "claude-sonnet-4-5"
    assert reply.usage.input_tokens > 0 and reply.stop_reason == "end_turn"


def test_environment_is_read_by_the_sdk(server: SimServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    reply = call(AnthropicModel("claude-haiku-4-5"), max_tokens=64, messages=[{"role": "user", "content": "hey"}])
    assert isinstance(reply, anthropic.types.Message) and reply.model == "claude-haiku-4-5"


def test_a_tool_round_through_the_sdk(server: SimServer) -> None:
    async def main() -> tuple[Any, Any]:
        model = AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key=CANARY)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "add 4 and 5"}]
        first = await model.create(max_tokens=200, tools=[ADD], messages=messages)
        use = first.content[-1]
        messages += [{"role": "assistant", "content": [b.to_dict() for b in first.content]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "9"}]}]
        second = await model.create(max_tokens=200, tools=[ADD], messages=messages)
        await model.aclose()
        return first, second

    first, second = asyncio.run(main())
    assert first.stop_reason == "tool_use"
    assert isinstance(first.content[-1], anthropic.types.ToolUseBlock) and first.content[-1].input == {"a": 4, "b": 5}
    assert second.content[0].text == "Result: 9"


def test_529_is_an_overloaded_error_with_retry_after_and_no_sdk_retry() -> None:
    with SimServer(overloaded_rate=1.0, retry_after_s=7) as overloaded:
        exc = call(AnthropicModel("claude-sonnet-4-5", base_url=overloaded.url, api_key=CANARY),
                   max_tokens=64, messages=[{"role": "user", "content": "hello"}])
        assert overloaded.model.calls == 1  # max_retries=0: the project's retry policy owns retries
    assert type(exc) is anthropic.OverloadedError and exc.status_code == 529
    assert exc.response.headers["retry-after"] == "7" and exc.body["error"]["type"] == "overloaded_error"


def test_wrong_key_is_an_authentication_error() -> None:
    with SimServer(require_api_key="sk-ant-canary-RIGHT") as guarded:
        exc = call(AnthropicModel("claude-sonnet-4-5", base_url=guarded.url, api_key=CANARY),
                   max_tokens=64, messages=[{"role": "user", "content": "hello"}])
        ok = call(AnthropicModel("claude-sonnet-4-5", base_url=guarded.url, api_key="sk-ant-canary-RIGHT"),
                  max_tokens=64, messages=[{"role": "user", "content": "hello"}])
    assert type(exc) is anthropic.AuthenticationError and exc.status_code == 401
    assert CANARY not in str(exc) and isinstance(ok, anthropic.types.Message)


def test_invalid_conversation_is_a_bad_request_error(server: SimServer) -> None:
    exc = call(AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key=CANARY), max_tokens=64,
               messages=[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]}])
    assert type(exc) is anthropic.BadRequestError and exc.status_code == 400
    assert "unexpected `tool_use_id`" in exc.body["error"]["message"]


def test_a_client_timeout_is_the_sdks_timeout_error() -> None:
    with SimServer(timeout_rate=1.0, slow_s=2.0) as slow:
        exc = call(AnthropicModel("claude-sonnet-4-5", base_url=slow.url, api_key=CANARY, timeout=0.2),
                   max_tokens=64, messages=[{"role": "user", "content": "hello"}])
    assert type(exc) is anthropic.APITimeoutError
