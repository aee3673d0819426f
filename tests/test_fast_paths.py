"""What is left of the hot path's shortcuts gives exactly what the plain code gives: the compiled schema
checker, the incremental conversation check, the tool result's text, the lazily seeded retry rng.
(Issue 18 removed the named-tuple value types, the positional event builders and the hand-built block
params; the value types' own behaviour is tested here and in test_usage.py.)"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from anthropic.types import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from patterns import Event, Kind, Run, ScriptedModel, Usage
from patterns.blocks import block_params
from patterns.conversation import GrowingConversations, validate_conversation
from patterns.schema import checker, validate
from patterns.tools import ToolOutcome, result_text

CONTENT: list[dict[str, Any]] = [
    {"type": "text", "text": "hi"},
    {"type": "text", "text": "hi", "citations": None},
    {"type": "text", "text": "hi", "citations": [{"type": "char_location", "cited_text": "x", "document_index": 0,
                                                 "document_title": None, "start_char_index": 0, "end_char_index": 1}]},
    {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": [1, {"b": 2.5}], "c": None, "d": True}},
    {"type": "tool_use", "id": "t2", "name": "f", "input": {}, "caller": {"type": "direct"}},
    {"type": "tool_use", "id": "t3", "name": "f", "input": {"a": 1, "b": "x", "c": None, "d": 2.5, "e": False}},
    {"type": "tool_use", "id": "t4", "name": "f", "input": {}},
    {"type": "thinking", "thinking": "hmm", "signature": "s"},
    {"type": "redacted_thinking", "data": "xx"},
    {"type": "text", "text": "an extra field the SDK does not know", "zzz": {"q": 1}},
    {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
]


def test_block_params_is_to_dict() -> None:
    reply = Message.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "x", "content": CONTENT,
        "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})
    for block in reply.content:
        fast, plain = block_params(block), block.to_dict()
        assert fast == plain and list(fast) == list(plain)
        if "input" in fast:
            assert fast["input"] is not block.input  # copied: a tool mutating its input leaves the history alone


SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "number", "default": 1.5}},
     "required": ["a"], "additionalProperties": False},
    {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}},
                                      "mode": {"enum": ["fast", "slow", 1]}}, "additionalProperties": False},
    {"type": "object", "additionalProperties": {"type": "boolean"}},
    {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "any": {}}},
    {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}},
     "required": ["m"]},
    {"type": "array"},
    {"enum": [True, 0, "x"]},
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.sampled_from(["fast", "x", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["a", "b", "xs", "mode", "v", "any", "m", "zz"]), inner, max_size=4),
    max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SCHEMAS), JSON)
def test_compiled_checker_agrees_with_validate(schema: dict[str, Any], value: Any) -> None:
    assert checker(schema)(value) == (not validate(value, schema))


def test_a_schema_the_checker_cannot_compile_falls_back_to_validate() -> None:
    odd = {"type": "object", "properties": {"a": {"type": "decimal"}}}
    assert checker(odd)({"b": 1}) is True
    assert checker(odd)({}) is True
    with pytest.raises(KeyError):  # as validate itself does: the schema is wrong, not the input
        checker(odd)({"a": 1})


@given(st.integers() | st.booleans() | st.floats(allow_nan=True) | st.text(max_size=5)
       | st.lists(st.integers(), max_size=3) | st.dictionaries(st.text(max_size=3), st.integers(), max_size=3))
def test_as_text_is_json_dumps(value: Any) -> None:
    expected = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    assert result_text(value) == (expected or "(empty result)")


BLOCKS = st.sampled_from([
    {"type": "text", "text": "hi"}, {"type": "text", "text": ""},
    {"type": "tool_use", "id": "a", "name": "f", "input": {}},
    {"type": "tool_use", "id": "b", "name": "f", "input": {}},
    {"type": "tool_result", "tool_use_id": "a", "content": "1"},
    {"type": "tool_result", "tool_use_id": "b", "content": "2"},
])
MESSAGES = st.builds(lambda role, content: {"role": role, "content": content}, st.sampled_from(["user", "assistant"]),
                     st.lists(BLOCKS, max_size=3) | st.sampled_from(["", "text"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["append", "append", "append", "replace_last", "restart"]), MESSAGES),
                min_size=1, max_size=12))
def test_growing_conversations_agree_with_validate_conversation(steps: list[tuple[str, dict[str, Any]]]) -> None:
    """Growing a conversation by appending (and sometimes replacing its last message or starting another)
    is judged exactly as `validate_conversation` judges the whole of it, first problem's wording included."""
    checker_ = GrowingConversations()
    first = {"role": "user", "content": "start"}
    messages: list[dict[str, Any]] = [first]
    for action, message in steps:
        if action == "restart":
            messages = [first, message]  # the same first message: another conversation with the same key
        elif action == "replace_last" and len(messages) > 1:
            messages = [*messages[:-1], message]
        else:
            messages = [*messages, message]
        assert checker_.problems(messages)[:1] == validate_conversation(messages)[:1]
        assert not checker_.problems(messages) == (not validate_conversation(messages))


def test_a_long_agent_conversation_is_checked_in_linear_time() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    checker_ = GrowingConversations()
    for i in range(300):
        messages = [*messages, {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "f",
                                                                  "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x"}]}]
        assert checker_.problems(messages) == []
    duplicate = [*messages, {"role": "assistant", "content": [{"type": "tool_use", "id": "t7", "name": "f",
                                                               "input": {}}]}]
    assert checker_.problems(duplicate) == validate_conversation(duplicate) != []


@pytest.mark.parametrize(("cls", "kwargs", "other"), [
    (Event, {"kind": Kind.TOOL_CALL, "start": 1.0, "end": 2.5}, {"tool_name": "add", "is_error": True}),
    (Event, {"kind": Kind.MODEL_CALL, "start": 0.0, "end": 0.1}, {"usage": Usage(1, 2), "position": 0}),
    (ToolOutcome, {"content": "42"}, {"is_error": True, "error_type": "X"}),
    (Usage, {"input_tokens": 1, "output_tokens": 2}, {"cache_write_tokens": 3, "cache_read_tokens": 4}),
])
def test_value_types_are_frozen_slotted_dataclasses(cls: Any, kwargs: dict[str, Any], other: dict[str, Any]) -> None:
    """Equal by value, hashable, immutable, no per-instance dict: values that can be shared and kept."""
    value = cls(**kwargs)
    assert dataclasses.is_dataclass(value) and not hasattr(value, "__dict__")
    assert value == cls(**kwargs) and hash(value) == hash(cls(**kwargs)) and value != cls(**kwargs, **other)
    assert value != tuple(dataclasses.astuple(value))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, dataclasses.fields(value)[0].name, None)


def test_the_retry_rng_is_seeded_when_first_used() -> None:
    expected = random.Random(7)
    run = Run(ScriptedModel([]), seed=7)
    assert [run.rng.random() for _ in range(3)] == [expected.random() for _ in range(3)]


def test_usage_is_not_a_tuple_to_arithmetic() -> None:
    """Usage adds field by field, to a Usage only: never concatenates or repeats as a tuple would."""
    usage = Usage(1, 2, 3, 4)
    for bad in (lambda: (1, 2) + usage, lambda: usage + (1, 2),  # noqa: RUF005 (concatenation is what is refused)
                lambda: usage * 2, lambda: 2 * usage,
                lambda: 0 + usage, lambda: sum([usage])):
        with pytest.raises(TypeError):
            bad()
    assert usage + Usage(1, 1, 1, 1) == Usage(2, 3, 4, 5) and type(usage + usage) is Usage
