"""Every path of `ToolSet.execute`: results, conversions, and each failure as an is_error result."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from patterns.schema import validate
from patterns.tools import MAX_RESULT_CHARS, ToolOutcome, ToolSet, tool

from .tool_fixtures import echo, lookup, run

# ---------------------------------------------------------------- execute: success paths


def test_sync_tool_runs_and_returns_text() -> None:
    out = run(ToolSet([echo]), "echo", {"text": "hello"})
    assert out == ToolOutcome("hello")
    assert out.is_error is False


def test_async_tool_runs() -> None:
    @tool
    async def shout(text: str) -> str:
        """Upper-case the text."""
        await asyncio.sleep(0)
        return text.upper()

    out = run(ToolSet([shout]), "shout", {"text": "hi"})
    assert out.content == "HI"
    assert not out.is_error


def test_sync_tool_with_timeout_runs_in_a_worker_thread() -> None:
    seen: list[int] = []

    @tool(timeout_s=5.0)
    def where() -> str:
        """Record the thread it ran on."""
        seen.append(threading.get_ident())
        return "ok"

    assert run(ToolSet([where]), "where", {}).content == "ok"
    assert seen and seen[0] != threading.get_ident()


def test_sync_tool_without_timeout_runs_inline() -> None:
    seen: list[int] = []

    @tool(timeout_s=None)
    def where() -> str:
        """Record the thread it ran on."""
        seen.append(threading.get_ident())
        return "ok"

    run(ToolSet([where]), "where", {})
    assert seen == [threading.get_ident()]


def test_an_inline_tool_returning_an_awaitable_is_awaited() -> None:
    async def later() -> str:
        return "awaited"

    @tool(timeout_s=None)
    def deferred() -> Any:
        """Return a coroutine instead of a value."""
        return later()

    assert run(ToolSet([deferred]), "deferred", {}) == ToolOutcome("awaited")


def test_a_toolset_is_read_only_once_built() -> None:
    """It reads each tool's schema and kind once; a tool swapped in afterwards could be run with stale ones."""
    tools = ToolSet([echo])
    with pytest.raises(TypeError):
        tools.tools["echo"] = lookup  # type: ignore[index]


def test_defaults_apply_when_fields_are_omitted() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "x"})
    assert json.loads(out.content) == {"query": "x", "limit": 5, "mode": "fast"}


def test_dict_result_is_serialised_as_json() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "café", "limit": 2, "mode": "deep"})
    assert json.loads(out.content) == {"query": "café", "limit": 2, "mode": "deep"}
    assert "café" in out.content  # not \u-escaped


def test_set_result_is_converted_to_text() -> None:
    @tool(timeout_s=None)
    def ids() -> Any:
        """A set of ids."""
        return {3}

    out = run(ToolSet([ids]), "ids", {})
    assert not out.is_error
    assert "3" in out.content


def test_arbitrary_object_result_is_converted_to_text() -> None:
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    @tool(timeout_s=None)
    def make() -> Any:
        """Make a thing."""
        return {"made": Thing()}

    out = run(ToolSet([make]), "make", {})
    assert not out.is_error
    assert json.loads(out.content) == {"made": "a thing"}


def test_circular_result_falls_back_to_repr() -> None:
    @tool(timeout_s=None)
    def loop() -> Any:
        """A list containing itself."""
        x: list[Any] = []
        x.append(x)
        return x

    out = run(ToolSet([loop]), "loop", {})
    assert not out.is_error
    assert out.content == "[[...]]"


def test_empty_result_is_said_in_words() -> None:
    out = run(ToolSet([echo]), "echo", {"text": ""})
    assert out.content == "(empty result)"


def test_huge_result_is_truncated_with_a_visible_marker() -> None:
    n = MAX_RESULT_CHARS + 5_000
    out = run(ToolSet([echo]), "echo", {"text": "x" * n})
    assert not out.is_error
    assert out.content.startswith("x" * MAX_RESULT_CHARS)
    assert out.content.count("x") == MAX_RESULT_CHARS
    assert out.content.endswith(f"[truncated: 5000 of {n} characters not shown]")


def test_result_of_exactly_the_limit_is_not_truncated() -> None:
    out = run(ToolSet([echo]), "echo", {"text": "y" * MAX_RESULT_CHARS})
    assert out.content == "y" * MAX_RESULT_CHARS


def test_model_input_that_looks_like_code_is_plain_data() -> None:
    payload = "__import__('os').system('echo hi')"
    out = run(ToolSet([echo]), "echo", {"text": payload})
    assert out == ToolOutcome(payload)


def test_code_shaped_input_does_not_satisfy_an_integer_field() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "q", "limit": "__import__('os').getpid()"})
    assert out.is_error
    assert "expected integer" in out.content


# ---------------------------------------------------------------- execute: every is_error path


def test_unknown_tool_lists_the_available_tools() -> None:
    out = run(ToolSet([lookup, echo]), "delete_everything", {})
    assert out.is_error and out.error_type == "UnknownTool"
    assert "'delete_everything'" in out.content
    assert "Available tools: lookup, echo" in out.content


def test_unknown_tool_in_an_empty_toolset_says_none() -> None:
    out = run(ToolSet(), "x", {})
    assert out.is_error
    assert "Available tools: none" in out.content


@pytest.mark.parametrize("bad", [["query", "x"], "query=x", 3, None])
def test_input_that_is_not_an_object_is_an_error(bad: Any) -> None:
    out = run(ToolSet([lookup]), "lookup", bad)
    assert out.is_error and out.error_type == "InvalidInput"
    assert "must be a JSON object" in out.content
    assert type(bad).__name__ in out.content


def test_missing_required_field_is_an_error() -> None:
    out = run(ToolSet([lookup]), "lookup", {"limit": 3})
    assert out.is_error and out.error_type == "InvalidInput"
    assert "missing required field 'query'" in out.content


def test_wrong_type_is_an_error_naming_the_field() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "q", "limit": "three"})
    assert out.is_error
    assert "input.limit: expected integer, got str 'three'" in out.content


def test_bool_is_not_accepted_as_an_integer() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "q", "limit": True})
    assert out.is_error
    assert "expected integer" in out.content


def test_int_is_accepted_as_a_number() -> None:
    assert validate({"query": "q", "score": 1}, lookup.input_schema) == []


def test_wrong_list_item_type_is_an_error_with_its_index() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "q", "tags": ["a", 2]})
    assert out.is_error
    assert "input.tags[1]: expected string" in out.content


def test_wrong_dict_value_type_is_an_error() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "q", "weights": {"a": "heavy"}})
    assert out.is_error
    assert "input.weights.a: expected number" in out.content


def test_unknown_field_is_an_error_listing_the_allowed_ones() -> None:
    out = run(ToolSet([echo]), "echo", {"text": "t", "shell": "rm -rf /"})
    assert out.is_error and out.error_type == "InvalidInput"
    assert "unknown field 'shell' (allowed: text)" in out.content


def test_value_outside_the_enum_is_an_error() -> None:
    out = run(ToolSet([lookup]), "lookup", {"query": "q", "mode": "reckless"})
    assert out.is_error
    assert "'reckless' is not one of ['fast', 'deep']" in out.content


def test_invalid_input_never_calls_the_tool() -> None:
    calls: list[str] = []

    @tool(timeout_s=None)
    def spy(text: str) -> str:
        """Record calls."""
        calls.append(text)
        return text

    run(ToolSet([spy]), "spy", {"text": 1})
    assert calls == []
