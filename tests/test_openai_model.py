"""`openai:<model>` piece by piece: the request and reply mapping, the error mapping, the spec and the CLI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import anthropic
import pytest

from patterns._http import httpx
from patterns.compaction import is_prompt_too_long, pressure_of
from patterns.openai_format import ERROR_MARK, chat_request, to_message
from patterns.retry import RetryPolicy, retry_after_s
from patterns.sim.server import SimServer
from patterns.specs import load_model

openai = pytest.importorskip("openai")
from openai._models import construct_type  # noqa: E402
from openai.types.chat import ChatCompletion  # noqa: E402

from patterns.openai_model import OpenAIModel, as_anthropic  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


CACHED = {"type": "ephemeral"}


def test_a_messages_request_becomes_a_chat_request_ids_kept_and_breakpoints_dropped() -> None:
    params = {
        "system": [{"type": "text", "text": "Be terse.", "cache_control": CACHED}], "max_tokens": 256,
        "stop_sequences": ["END"], "temperature": 0.2,
        "tools": [{"name": "add", "description": "Add.", "input_schema": {"type": "object"}, "cache_control": CACHED}],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "messages": [
            {"role": "user", "content": "What is 2+3?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Adding."},
                                              {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2}},
                                              {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "bad"}],
                 "is_error": True, "cache_control": CACHED},
                {"type": "text", "text": "Go on."}]}]}
    out = chat_request("gpt-4.1-mini", params)
    assert "cache_control" not in json.dumps(out)
    assert out["messages"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "What is 2+3?"},
        {"role": "assistant", "content": "Adding.", "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}},
            {"id": "toolu_2", "type": "function", "function": {"name": "add", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "5"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": ERROR_MARK + "bad"},
        {"role": "user", "content": "Go on."}]
    assert out["tools"] == [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"},
                                                              "description": "Add."}}]
    assert (out["max_tokens"], out["stop"], out["temperature"]) == (256, ["END"], 0.2)
    assert out["tool_choice"] == "required" and out["parallel_tool_calls"] is False
    named = chat_request("m", {**params, "tool_choice": {"type": "tool", "name": "add"}},
                         max_tokens_field="max_completion_tokens")
    assert named["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    assert named["max_completion_tokens"] == 256 and "max_tokens" not in named


def completion(finish: str | None, *, content: str | None = "hi", calls: list[tuple[str, str]] = (),
               cached: int | None = None, refusal: str | None = None) -> ChatCompletion:
    usage: dict[str, Any] = {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, (n, a) in enumerate(calls)]
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4.1-mini", "usage": usage,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    return construct_type(type_=ChatCompletion, value=body)  # as the SDK builds it: leniently (None is seen)


@pytest.mark.parametrize(("finish", "stop"), [("stop", "end_turn"), ("tool_calls", "tool_use"),
                                              ("length", "max_tokens"), ("content_filter", "refusal"),
                                              (None, "end_turn")])
def test_finish_reasons_map_to_stop_reasons(finish: str | None, stop: str) -> None:
    assert to_message(completion(finish), "m").stop_reason == stop


def test_usage_splits_cached_prompt_tokens_out_of_input_as_the_messages_api_counts_them() -> None:
    usage = to_message(completion("stop", cached=60), "m").usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens,
            usage.output_tokens) == (40, 60, 0, 7)
    assert to_message(completion("stop"), "m").usage.input_tokens == 100


def test_tool_calls_are_tool_use_blocks_even_under_stop_and_bad_arguments_stay_raw() -> None:
    msg = to_message(completion("stop", content=None, calls=[("add", '{"a": 1}'), ("add", '{"a": 1,'),
                                                             ("add", "[1]"), ("add", "")]), "m")
    assert msg.stop_reason == "tool_use"
    assert [(b.id, b.input) for b in msg.content] == [("call_0", {"a": 1}), ("call_1", '{"a": 1,'),
                                                      ("call_2", "[1]"), ("call_3", {})]


def test_a_refusal_field_is_a_refusal() -> None:
    msg = to_message(completion("stop", content=None, refusal="I can't."), "m")
    assert msg.stop_reason == "refusal" and msg.content[0].text == "I can't."


def status_error(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Exception:
    response = httpx.Response(status, json=body, headers=headers or {},
                              request=httpx.Request("POST", "http://x/v1/chat/completions"))
    client = openai.OpenAI(api_key="k", base_url="http://x/v1")
    return client._make_status_error_from_response(response)


@pytest.mark.parametrize(("body", "sizes"), [
    ({"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted "
                           "in 130001 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error", "code": "context_length_exceeded"}}, (130001, 128000)),
    ({"error": {"message": "This model's maximum context length is 4096 tokens. However, you requested 4400 tokens "
                           "(4300 in the messages, 100 in the completion).", "type": "BadRequestError"}},
     (4300, 3996)),  # a prompt that fits with a max_tokens that does not: tests/test_openai_quirks.py
    ({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error", "n_prompt_tokens": 2100, "n_ctx": 2048}}, (2100, 2048)),
    ({"error": {"message": "context length exceeded", "type": "invalid_request_error"}}, (2, 1)),
])
def test_context_length_errors_become_prompt_is_too_long(body: dict[str, Any], sizes: tuple[int, int]) -> None:
    exc = as_anthropic(status_error(400, body))
    assert type(exc) is anthropic.BadRequestError and exc.status_code == 400 and is_prompt_too_long(exc)
    pressure = pressure_of(exc, [])
    assert (pressure.tokens, pressure.limit) == sizes
    assert not RetryPolicy().is_retryable(exc)


@pytest.mark.parametrize(("status", "cls", "retried"), [
    (400, anthropic.BadRequestError, False), (401, anthropic.AuthenticationError, False),
    (404, anthropic.NotFoundError, False), (429, anthropic.RateLimitError, True),
    (500, anthropic.InternalServerError, True), (503, anthropic.InternalServerError, True),
    (529, anthropic.OverloadedError, True)])
def test_status_errors_keep_their_status_and_the_retry_decision(status: int, cls: type, retried: bool) -> None:
    exc = as_anthropic(status_error(status, {"error": {"message": "nope", "type": "x"}}, {"retry-after": "3"}))
    assert type(exc) is cls and exc.status_code == status and not is_prompt_too_long(exc)
    assert RetryPolicy().is_retryable(exc) is retried and retry_after_s(exc) == 3.0


def test_the_base_url_and_key_come_from_the_environment_and_pick_the_max_tokens_field(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert OpenAIModel("gpt-5").max_tokens_field == "max_completion_tokens"  # OpenAI's own API
    with SimServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
        model = load_model("openai:sim-model")
        assert model.max_tokens_field == "max_tokens" and repr(model) == "OpenAIModel('sim-model')"

        async def call() -> Any:
            try:
                return await model.create(max_tokens=32, messages=[{"role": "user", "content": "hello"}])
            finally:
                await model.aclose()

        reply = asyncio.run(call())
    assert reply.model == "sim-model" and reply.stop_reason == "end_turn" and reply.usage.input_tokens > 0


@pytest.mark.parametrize(("spec", "words"), [("openai:", "has no model id: use openai:<model-id>"),
                                             ("openai:gpt 4", "whitespace")])
def test_bad_openai_specs_are_one_line(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words) as info:
        load_model(spec)
    assert "\n" not in str(info.value)


def test_a_missing_openai_package_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a))
    with pytest.raises(ValueError, match=r"pip install 'workflow-vs-agent\[openai\]'"):
        load_model("openai:gpt-4.1")


def test_wva_with_an_empty_openai_spec_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    from benchmarks.cli.main import main

    assert main(["bench", "--model", "openai:", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "openai:<model-id>" in err[0] and not (tmp_path / "out").exists()


def test_wva_help_imports_neither_openai_nor_opentelemetry() -> None:
    code = ("import sys\nfrom benchmarks.cli.main import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "for cmd in ('bench', 'models'):\n    try:\n        main([cmd, '--help'])\n    except SystemExit:\n"
            "        pass\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'opentelemetry')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_an_unknown_model_is_unpriced_never_free() -> None:
    from patterns.pricing import cost_usd
    from patterns.usage import Usage

    assert cost_usd(OpenAIModel("llama-3.2-1b-instruct").price_id, Usage(100, 10)) is None
    assert cost_usd(OpenAIModel("gpt-4.1-mini").price_id, Usage(1_000_000, 0)) == pytest.approx(0.4)
