"""The simulator's wire, as strict as the real APIs: tool_choice, max_tokens >= 1, n, and tool calls sent as text.

`SimModel` directly, then `wva sim-server`'s two wires through the real SDKs (`anthropic` on
/v1/messages, `openai` on /v1/chat/completions), on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from patterns.sim import Decider, Reply, Request, SimModel
from patterns.sim.server import SimServer

openai = pytest.importorskip("openai")

WEATHER = {"name": "get_weather", "description": "The weather in a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
ADD = {"name": "add", "description": "Add two numbers.",
       "input_schema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}
AFTER_A_RESULT = [
    {"role": "user", "content": "What is 2 plus 3, and the weather in Paris?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                       "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny, 21 C"}]},
]


def create(model: SimModel, **params: Any) -> Any:
    return asyncio.run(model.create(**{"max_tokens": 256, "messages": AFTER_A_RESULT, **params}))


def uses(message: Any) -> list[Any]:
    return [b for b in message.content if b.type == "tool_use"]


# --- tool_choice, in SimModel -------------------------------------------------------------------------


def test_without_tool_choice_the_generic_policy_answers_a_result_with_text() -> None:
    reply = create(SimModel(), tools=[WEATHER, ADD])
    assert reply.stop_reason == "end_turn" and not uses(reply)  # the case tool_choice must change


def test_tool_choice_any_forces_a_call_after_a_tool_result() -> None:
    reply = create(SimModel(), tools=[WEATHER, ADD], tool_choice={"type": "any"})
    assert reply.stop_reason == "tool_use" and [b.type for b in reply.content] == ["tool_use"]
    assert uses(reply)[0].name == "get_weather"  # the first offered tool, arguments from the latest input
    assert uses(reply)[0].input == {"city": "sunny, 21 C"}


def test_tool_choice_tool_forces_the_named_tool_with_arguments_from_its_schema() -> None:
    message = [{"role": "user", "content": "Add 2 and 3."}]
    reply = create(SimModel(), tools=[WEATHER, ADD], tool_choice={"type": "tool", "name": "add"}, messages=message)
    assert reply.stop_reason == "tool_use" and len(uses(reply)) == 1
    assert (uses(reply)[0].name, uses(reply)[0].input) == ("add", {"a": 2, "b": 3})


def test_tool_choice_none_never_calls_a_tool() -> None:
    first = [{"role": "user", "content": "Weather in Paris?"}]
    assert uses(create(SimModel(), tools=[WEATHER], messages=first))  # the generic policy would call it
    reply = create(SimModel(), tools=[WEATHER], messages=first, tool_choice={"type": "none"})
    assert not uses(reply) and reply.stop_reason == "end_turn"


class Scripted:
    """A policy that replies `reply` and keeps the requests it saw."""

    def __init__(self, reply: Reply) -> None:
        self.reply, self.seen = reply, []

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        self.seen.append(request)
        return self.reply


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": args}


def test_the_policy_sees_tool_choice_and_a_compliant_reply_keeps_its_call_without_text() -> None:
    policy = Scripted(Reply([{"type": "text", "text": "Adding."}, call("add", a=40, b=2)]))
    reply = create(SimModel(policy), tools=[WEATHER, ADD], tool_choice={"type": "any"})
    assert policy.seen[0].tool_choice == {"type": "any"}
    assert [(b.type, b.name, b.input) for b in reply.content] == [("tool_use", "add", {"a": 40, "b": 2})]


def test_a_call_to_the_wrong_tool_is_replaced_by_the_named_one() -> None:
    policy = Scripted(Reply([call("get_weather", city="Oslo")]))
    reply = create(SimModel(policy), tools=[WEATHER, ADD], tool_choice={"type": "tool", "name": "add"})
    assert [b.name for b in uses(reply)] == ["add"]


@pytest.mark.parametrize(("kind", "expected"), [("auto", 1), ("any", 1)])
def test_disable_parallel_tool_use_keeps_the_first_call(kind: str, expected: int) -> None:
    policy = Scripted(Reply([call("add", a=1, b=2), call("add", a=3, b=4)]))
    reply = create(SimModel(policy), tools=[ADD], tool_choice={"type": kind, "disable_parallel_tool_use": True})
    assert [b.input for b in uses(reply)] == [{"a": 1, "b": 2}][:expected]
    both = create(SimModel(policy), tools=[ADD], tool_choice={"type": kind})
    assert len(uses(both)) == 2


def test_max_tokens_zero_is_a_400_in_simmodel() -> None:
    with pytest.raises(anthropic.BadRequestError, match="greater than or equal to 1"):
        create(SimModel(), max_tokens=0)


# --- the server's two wires, through the SDKs ----------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[SimServer]:
    with SimServer() as s:
        yield s


def claude(server: SimServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)


def gpt(server: SimServer) -> Any:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0)


def test_messages_wire_honours_tool_choice(server: SimServer) -> None:
    client = claude(server)
    free = client.messages.create(model="sim", max_tokens=256, tools=[WEATHER, ADD], messages=AFTER_A_RESULT)
    assert free.stop_reason == "end_turn"
    forced = client.messages.create(model="sim", max_tokens=256, tools=[WEATHER, ADD], messages=AFTER_A_RESULT,
                                    tool_choice={"type": "tool", "name": "add"})
    assert forced.stop_reason == "tool_use" and [b.name for b in uses(forced)] == ["add"]


CHAT_AFTER_A_RESULT = [
    {"role": "user", "content": "What is 2 plus 3, and the weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"},
]
FUNCTIONS = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                               "parameters": t["input_schema"]}} for t in (WEATHER, ADD)]


@pytest.mark.parametrize(("choice", "names"), [
    (None, []), ("auto", []), ("required", ["get_weather"]),
    ({"type": "function", "function": {"name": "add"}}, ["add"]),
])
def test_chat_wire_honours_tool_choice(server: SimServer, choice: Any, names: list[str]) -> None:
    extra = {} if choice is None else {"tool_choice": choice}
    done = gpt(server).chat.completions.create(model="sim", messages=CHAT_AFTER_A_RESULT, tools=FUNCTIONS, **extra)
    message = done.choices[0].message
    assert [c.function.name for c in message.tool_calls or []] == names
    assert done.choices[0].finish_reason == ("tool_calls" if names else "stop")


def test_chat_wire_tool_choice_none_calls_no_tool(server: SimServer) -> None:
    first = [{"role": "user", "content": "Weather in Paris?"}]
    client = gpt(server)
    assert client.chat.completions.create(model="sim", messages=first, tools=FUNCTIONS).choices[0].message.tool_calls
    done = client.chat.completions.create(model="sim", messages=first, tools=FUNCTIONS, tool_choice="none")
    assert not done.choices[0].message.tool_calls and done.choices[0].finish_reason == "stop"


def test_max_tokens_zero_is_a_400_on_the_messages_wire(server: SimServer) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude(server).messages.create(model="sim", max_tokens=0, messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 400 and "max_tokens" in str(caught.value)


@pytest.mark.parametrize(("field", "value", "code"), [
    ("max_tokens", 0, "integer_below_min_value"), ("max_completion_tokens", 0, "integer_below_min_value"),
    ("max_tokens", -5, "integer_below_min_value"), ("max_tokens", "64", "invalid_type"),
    ("n", 2, "unsupported_value"), ("n", 0, "invalid_value"),
])
def test_chat_wire_refuses_what_openai_refuses(server: SimServer, field: str, value: Any, code: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt(server).chat.completions.create(model="sim", messages=[{"role": "user", "content": "hi"}],
                                            extra_body={field: value})
    error = caught.value.body
    assert caught.value.status_code == 400 and (error["param"], error["code"]) == (field, code)


def test_chat_wire_n_1_is_one_choice(server: SimServer) -> None:
    done = gpt(server).chat.completions.create(model="sim", messages=[{"role": "user", "content": "hi"}], n=1)
    assert len(done.choices) == 1


@pytest.mark.parametrize("extra", [{"tool_choice": "required"},  # without tools
                                   {"tools": FUNCTIONS, "tool_choice": "sometimes"},
                                   {"tools": FUNCTIONS, "tool_choice": {"type": "function"}}])
def test_chat_wire_refuses_a_bad_tool_choice(server: SimServer, extra: dict[str, Any]) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt(server).chat.completions.create(model="sim", messages=[{"role": "user", "content": "hi"}],
                                            extra_body=extra)
    assert caught.value.body["param"] == "tool_choice"


def test_chat_wire_accepts_arguments_sent_as_an_object(server: SimServer) -> None:
    history = json.loads(json.dumps(CHAT_AFTER_A_RESULT))
    history[1]["tool_calls"][0]["function"]["arguments"] = {"city": "Paris"}
    done = gpt(server).chat.completions.create(model="sim", messages=history, tools=FUNCTIONS)
    assert done.choices[0].message.content.startswith("Result: sunny")


# --- tool calls and results sent back as text (smolagents) --------------------------------------------

FINAL = {"type": "function", "function": {"name": "final_answer", "description": "Provides a final answer.",
                                          "parameters": {"type": "object", "properties": {"answer": {
                                              "type": "string", "description": "The final answer"}},
                                              "required": ["answer"]}}}
SMOL_TOOLS = [FUNCTIONS[0], FINAL]  # smolagents lists final_answer after the user's tools


def smolagents_history(observation: str) -> list[dict[str, Any]]:
    """What smolagents' ToolCallingAgent sends on its second step: its call and the result, as text."""
    calls = [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]
    return [{"role": "system", "content": "You are an expert assistant who can solve any task using tool calls."},
            {"role": "user", "content": [{"type": "text", "text": "New task:\nWhat is the weather in Paris?"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Calling tools:\n" + str(calls)}]},
            {"role": "user", "content": [{"type": "text", "text": observation}]}]


def test_the_first_smolagents_step_calls_the_users_tool_not_final_answer(server: SimServer) -> None:
    first = smolagents_history("")[:2]
    done = gpt(server).chat.completions.create(model="sim", messages=first, tools=SMOL_TOOLS)
    assert [c.function.name for c in done.choices[0].message.tool_calls] == ["get_weather"]


def test_a_textual_observation_is_read_as_the_result_and_ends_with_final_answer(server: SimServer) -> None:
    done = gpt(server).chat.completions.create(model="sim", messages=smolagents_history("Observation:\nsunny, 21 C"),
                                               tools=SMOL_TOOLS)
    [answer] = done.choices[0].message.tool_calls
    assert answer.function.name == "final_answer"
    assert json.loads(answer.function.arguments) == {"answer": "Result: sunny, 21 C"}


def test_a_textual_error_is_an_error_result_retried_with_the_same_tool(server: SimServer) -> None:
    error = "Call id: call_1\nError:\nNo such city.\nNow let's retry: take care not to repeat previous errors!"
    done = gpt(server).chat.completions.create(model="sim", messages=smolagents_history(error), tools=SMOL_TOOLS)
    assert [c.function.name for c in done.choices[0].message.tool_calls] == ["get_weather"]


def test_an_action_blob_in_the_text_counts_as_the_call_on_the_messages_wire(server: SimServer) -> None:
    action = 'Action:\n{\n  "name": "get_weather",\n  "arguments": {"city": "Paris"}\n}'
    history = [{"role": "user", "content": "Weather in Paris?"},
               {"role": "assistant", "content": action},
               {"role": "user", "content": "Observation: rain, 12 C"}]
    done = claude(server).messages.create(model="sim", max_tokens=256, tools=[WEATHER], messages=history)
    assert done.stop_reason == "end_turn" and done.content[0].text == "Result: rain, 12 C"
