"""validate_conversation: the API's conversation rules, as a pure function."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import TextBlock, ToolUseBlock
from hypothesis import given, settings
from hypothesis import strategies as st

from patterns.conversation import validate_conversation


def user(*content: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(content) if len(content) != 1 or not isinstance(content[0], str)
            else content[0]}


def assistant(*content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(content)}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(i: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": i, "name": "f", "input": {}}


def result(i: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": "ok", **extra}


@pytest.mark.parametrize("messages", [
    [user("hi")],
    [user("hi"), assistant(text("hello"))],
    [user("hi"), assistant(use("a"), use("b")), user(result("a"), result("b", is_error=True), text("go on"))],
    [user("hi"), {"role": "assistant", "content": "The answer is ("}],  # prefill
    [user("hi"), {"role": "assistant", "content": []}],  # an empty final assistant message is allowed
    [user("hi"), {"role": "assistant", "content": [TextBlock(type="text", text="x"),
                                                   ToolUseBlock(type="tool_use", id="s", name="f", input={})]},
     user(result("s"))],  # SDK objects, as a reply's content is appended
])
def test_valid_conversations(messages: list[dict[str, Any]]) -> None:
    assert validate_conversation(messages) == []


@pytest.mark.parametrize(("messages", "wording"), [
    ([], "at least one message"),
    ("hi", "valid list"),
    ([assistant(text("hi"))], 'first message must use the "user" role'),
    ([user("a"), user("b")], "roles must alternate"),
    ([user("a"), assistant(text("b")), assistant(text("c"))], "roles must alternate"),
    ([{"role": "system", "content": "x"}], "role"),
    ([user("")], "non-empty content"),
    ([{"role": "user", "content": []}], "non-empty content"),
    ([user("a"), {"role": "assistant", "content": []}, user("b")], "non-empty content"),
    ([user(text(""))], "text content blocks must be non-empty"),
    ([{"role": "user"}], "content: Field required"),
    ([user("a"), assistant(use("a"))], "without `tool_result` blocks immediately after: a"),
    ([user("a"), assistant(use("a"), use("b")), user(result("a"))], "immediately after: b"),
    ([user("a"), assistant(use("a")), user(text("x")), assistant(text("y")), user(result("a"))],
     "unexpected `tool_use_id`"),
    ([user(result("zz"))], "unexpected `tool_use_id` found in `tool_result` blocks: zz"),
    ([user("a"), assistant(use("a")), user(result("a"), result("a"))], "exactly one `tool_result`"),
    ([user("a"), assistant(use("a")), user(text("first"), result("a"))], "must come first"),
    ([user(use("a"))], "only allowed in assistant messages"),
    ([user("a"), assistant(result("a"))], "only allowed in user messages"),
    ([user("a"), assistant(use("a")), user(result("a")), assistant(use("a")), user(result("a"))],
     "must be unique"),
    ([user({"text": "no type"})], "type: Field required"),
])
def test_invalid_conversations(messages: Any, wording: str) -> None:
    problems = validate_conversation(messages)
    assert problems, messages
    assert any(wording in p for p in problems), problems


@st.composite
def agent_conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Conversations as the agent loop builds them: rounds of parallel tool calls, then an answer."""
    messages: list[dict[str, Any]] = [user(draw(st.text(min_size=1)))]
    next_id = 0
    for _ in range(draw(st.integers(0, 5))):
        ids = [f"toolu_{next_id + k}" for k in range(draw(st.integers(1, 3)))]
        next_id += len(ids)
        messages.append(assistant(*([text("thinking aloud")] if draw(st.booleans()) else []), *map(use, ids)))
        messages.append(user(*(result(i, is_error=draw(st.booleans())) for i in ids)))
    messages.append(assistant(text("done")))
    return messages


@settings(max_examples=60, deadline=None)
@given(agent_conversations(), st.data())
def test_property_loop_conversations_are_valid_and_losing_a_result_is_not(
        messages: list[dict[str, Any]], data: st.DataObject) -> None:
    assert validate_conversation(messages) == []
    rounds = [i for i, m in enumerate(messages) if m["role"] == "user" and isinstance(m["content"], list)]
    if rounds:
        i = data.draw(st.sampled_from(rounds))
        broken = [*messages[:i], {"role": "user", "content": messages[i]["content"][1:] or [text("?")]},
                  *messages[i + 1:]]
        assert validate_conversation(broken) != []
