"""`openai:` against the quirks of real OpenAI-compatible servers (llama.cpp, vLLM, Ollama), through the real SDK.

`Quirky` is a scripted chat-completions server on 127.0.0.1, written here (not the project's sim
server): it answers each POST with the next scripted (status, body), exactly as a quirky server
would send it, and keeps every request body. `OpenAIModel` talks to it through the `openai` SDK.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from patterns import Kind, Limits, Terminal, ToolSet, run_agent, tool

pytest.importorskip("openai")
from patterns.openai_model import OpenAIModel

PRICED = "gpt-4o-mini"  # in patterns/prices.json: a missing usage must not be billed as $0


class Quirky:
    """Replies, in order, with the scripted (status, body); `requests` holds the JSON bodies received."""

    def __init__(self, *script: tuple[int, dict[str, Any]]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(body)
            if len(self.requests) > len(self.script):
                return 500, {"error": {"message": "script exhausted", "type": "server_error"}}
            return self.script[len(self.requests) - 1]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        quirky = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                status, reply = quirky._next(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


@pytest.fixture
def server_of() -> Iterator[Any]:
    servers: list[Quirky] = []

    def make(*script: tuple[int, dict[str, Any]]) -> Quirky:
        servers.append(Quirky(*script))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def completion(*, text: str | None = None, calls: list[tuple[str, Any]] = (), usage: Any = "default",
               finish: str | None = None) -> tuple[int, dict[str, Any]]:
    """A 200 chat completion; `calls` are (name, arguments) with the arguments sent as given (a str or a dict)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, (n, a) in enumerate(calls)]
    body: dict[str, Any] = {"id": "chatcmpl-q", "object": "chat.completion", "created": 0, "model": PRICED,
                            "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish or ("tool_calls" if calls else "stop")}]}
    if usage == "default":
        body["usage"] = {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128}
    elif usage is not None:
        body["usage"] = usage
    return 200, body


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def model(server: Quirky) -> OpenAIModel:
    return OpenAIModel(PRICED, base_url=server.url, api_key="sk-test")


# --- tool-call arguments sent as a JSON object --------------------------------------------------------


def test_arguments_sent_as_an_object_are_read_as_the_input(server_of: Any) -> None:
    server = server_of(completion(calls=[("get_weather", {"city": "Paris"})]), completion(text="It is sunny."))
    result = run_agent(model(server), "Weather in Paris?", tools=ToolSet([get_weather]))
    assert result.terminal is Terminal.COMPLETED and result.output == "It is sunny."
    call = next(e for e in result.events if e.kind is Kind.TOOL_CALL)
    assert call.tool_name == "get_weather" and not call.is_error
    sent_back = server.requests[1]["messages"]
    assert json.loads(sent_back[1]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert sent_back[2] == {"role": "tool", "tool_call_id": "call_0", "content": "sunny in Paris"}


def test_arguments_that_are_neither_an_object_nor_its_json_are_an_error_result_not_a_crash(server_of: Any) -> None:
    server = server_of(completion(calls=[("get_weather", ["Paris"])]), completion(text="Sorry."))
    result = run_agent(model(server), "Weather?", tools=ToolSet([get_weather]))
    assert result.terminal is Terminal.COMPLETED
    assert [e.is_error for e in result.events if e.kind is Kind.TOOL_CALL] == [True]


# --- a reply without usage ---------------------------------------------------------------------------


@pytest.mark.parametrize("usage", [None, {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}])
def test_a_reply_without_usage_is_estimated_marked_and_never_billed_zero(server_of: Any, usage: Any) -> None:
    server = server_of(completion(calls=[("get_weather", '{"city": "Oslo"}')], usage=usage),
                       completion(text="Rain in Oslo.", usage=usage))
    result = run_agent(model(server), "Weather in Oslo?", tools=ToolSet([get_weather]))
    assert result.terminal is Terminal.COMPLETED
    assert result.cost_usd is None  # unknown: never $0.00 for a priced model
    calls = [e for e in result.events if e.kind is Kind.MODEL_CALL]
    assert [e.usage_estimated for e in calls] == [True, True] and result.estimated_calls == 2
    assert all(e.cost_usd is None and e.usage.input_tokens > 0 and e.usage.output_tokens > 0 for e in calls)
    assert calls[1].usage.input_tokens > calls[0].usage.input_tokens  # the estimate follows the growing prompt
    assert result.usage.total_tokens == sum(e.usage.total_tokens for e in calls)
    assert all(e.to_dict()["usage_estimated"] is True for e in calls)
    assert result.to_dict()["usage_estimated_calls"] == 2


def test_a_reply_with_usage_is_billed_and_not_marked(server_of: Any) -> None:
    result = run_agent(model(server_of(completion(text="Hi."))), "Hello")
    assert result.cost_usd is not None and result.cost_usd > 0 and result.estimated_calls == 0
    assert "usage_estimated" not in next(e for e in result.events if e.kind is Kind.MODEL_CALL).to_dict()


def test_the_token_budget_still_trips_on_estimated_usage(server_of: Any) -> None:
    looping = [completion(calls=[("get_weather", '{"city": "Rome"}')], usage=None) for _ in range(10)]
    server = server_of(*looping)
    result = run_agent(model(server), "Weather in Rome? " * 20, tools=ToolSet([get_weather]),
                       limits=Limits(token_budget=400))
    assert result.terminal is Terminal.BUDGET and "estimated" in result.detail
    assert 1 <= result.steps < 10 and len(server.requests) == result.steps
    assert result.usage.total_tokens >= 400 and result.cost_usd is None


def test_a_run_whose_every_call_failed_has_an_unknown_cost(server_of: Any) -> None:
    server = server_of((400, {"error": {"message": "bad request", "type": "invalid_request_error"}}))
    result = run_agent(model(server), "Hello")
    assert result.terminal is Terminal.ERROR and result.steps == 0 and result.cost_usd is None


# --- vLLM's 400 when the prompt fits but max_tokens does not ----------------------------------------

VLLM_TOO_LARGE = ("'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length "
                  "is 1200 tokens and your request has 380 input tokens (1024 > 1200 - 380). "
                  "(parameter=max_tokens, value=1024)")


def vllm_400(message: str = VLLM_TOO_LARGE) -> tuple[int, dict[str, Any]]:
    return 400, {"error": {"message": message, "type": "BadRequestError", "param": "max_tokens", "code": 400}}


def test_the_vllm_max_tokens_400_lowers_max_tokens_and_retries_once(server_of: Any) -> None:
    server = server_of(vllm_400(), completion(text="Done."))
    result = run_agent(model(server), "Write a short note.")
    assert result.terminal is Terminal.COMPLETED and result.output == "Done."
    assert [r["max_tokens"] for r in server.requests] == [1024, 1200 - 380]
    assert not [e for e in result.events if e.kind is Kind.COMPACTION]  # no summary calls: the prompt fit
    recovery = [e for e in result.events if e.kind is Kind.RECOVERY]
    assert len(recovery) == 1 and "max_tokens 1024 -> 820" in recovery[0].detail


def test_a_second_max_tokens_400_ends_the_run_with_that_error_not_a_context_overflow(server_of: Any) -> None:
    server = server_of(vllm_400(), vllm_400())
    result = run_agent(model(server), "Write a short note.")
    assert result.terminal is Terminal.ERROR and len(server.requests) == 2
    assert result.errors[0].kind == "BadRequestError" and "ContextOverflow" not in result.detail
    assert "exceed context limit" in result.detail


def test_a_prompt_that_does_not_fit_still_compacts(server_of: Any) -> None:
    too_long = ("This model's maximum context length is 1200 tokens. However, your request has 1500 input tokens. "
                "Please reduce the length of the input messages.")
    server = server_of((400, {"error": {"message": too_long, "type": "BadRequestError", "code": 400}}),
                       completion(text="A summary."), completion(text="Done."))
    result = run_agent(model(server), "Long task " * 50)
    assert result.terminal is Terminal.COMPLETED
    assert [e.name for e in result.events if e.kind is Kind.COMPACTION] == ["summary"]


# --- the client is closed after a sync run -----------------------------------------------------------

SYNC_RUNS = """
import gc, sys, warnings
warnings.simplefilter("always")
from patterns import run_agent
from patterns.openai_model import OpenAIModel
model = OpenAIModel("gpt-4o-mini", base_url=sys.argv[1], api_key="sk-test")
for i in range(4):  # one instance reused, and a new one each time: both must leave nothing open
    assert run_agent(model, "Hello").output == "Hi."
    assert run_agent(OpenAIModel("gpt-4o-mini", base_url=sys.argv[1], api_key="sk-test"), "Hello").output == "Hi."
    gc.collect()
print("ok")
"""


def test_sync_runs_leave_no_client_open_and_print_no_traceback(server_of: Any) -> None:
    server = server_of(*[completion(text="Hi.") for _ in range(8)])
    done = subprocess.run([sys.executable, "-W", "always", "-c", SYNC_RUNS, server.url], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok" and done.stderr == ""  # no "Task exception was never retrieved", no warning


# --- each server's wording, mapped to the Messages API's ---------------------------------------------


@pytest.mark.parametrize(("message", "room"), [
    (VLLM_TOO_LARGE, 820),  # vLLM 0.10.2 to 0.17
    ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (3900 in the messages, "
     "1100 in the completion). Please reduce the length of the messages or completion.", 196),  # older vLLM, OpenAI
    ("This model's maximum context length is 4096 tokens. However, you requested 1100 output tokens and your prompt "
     "contains at least 3901 input tokens, for a total of at least 5001 tokens.", 195),
    ("You passed 3000 input tokens and requested 2000 output tokens. However, the model's context length is only "
     "4096 tokens, resulting in a maximum input length of 2096 tokens. Please reduce the length of the input prompt.",
     1096),
    ("max_tokens=8192cannot be greater than max_model_len=max_total_tokens=4096. Please request fewer output tokens.",
     4096),
    ("max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided "
     "100000.", 16384),
])
def test_an_output_budget_400_is_told_apart_from_a_prompt_too_long(message: str, room: int) -> None:
    import openai

    from patterns._http import httpx
    from patterns.compaction import is_prompt_too_long, output_room
    from patterns.openai_model import as_anthropic

    response = httpx.Response(400, json={"error": {"message": message, "type": "BadRequestError"}},
                              request=httpx.Request("POST", "http://x/v1/chat/completions"))
    exc = as_anthropic(openai.OpenAI(api_key="k", base_url="http://x/v1")._make_status_error_from_response(response))
    assert exc.status_code == 400 and not is_prompt_too_long(exc)
    assert output_room(exc) == room and message in str(exc)  # the server's own words are kept


def test_the_messages_api_own_output_budget_400_is_read_the_same_way() -> None:
    import anthropic

    from patterns.compaction import output_room
    from patterns.sim import faults

    claude = faults.invalid_request("input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, "
                                    "decrease input length or `max_tokens` and try again")
    assert isinstance(claude, anthropic.BadRequestError) and output_room(claude) == 200000 - 178959
    assert output_room(faults.prompt_too_long(210000, 200000)) is None
