"""A tool that raises or overruns its timeout gives an is_error result; how a ToolOutcome becomes a block."""

from __future__ import annotations

import asyncio
import threading

import pytest

from patterns.tools import ToolOutcome, ToolSet, tool

from .fake_loop import fake_seconds
from .tool_fixtures import run


def test_exception_in_a_tool_becomes_an_error_with_type_and_text() -> None:
    @tool(timeout_s=None)
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    out = run(ToolSet([divide]), "divide", {"a": 1, "b": 0})
    assert out.is_error and out.error_type == "ZeroDivisionError"
    assert out.content == "Error: ZeroDivisionError: division by zero"


def test_exception_in_an_async_tool_becomes_an_error() -> None:
    @tool
    async def fail() -> str:
        """Always fails."""
        raise KeyError("missing-key")

    out = run(ToolSet([fail]), "fail", {})
    assert out.is_error and out.error_type == "KeyError"
    assert "KeyError" in out.content and "missing-key" in out.content


def test_exception_in_a_threaded_sync_tool_becomes_an_error() -> None:
    @tool(timeout_s=5.0)
    def fail() -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    out = run(ToolSet([fail]), "fail", {})
    assert out.is_error
    assert out.content == "Error: RuntimeError: disk on fire"


def test_a_timeout_error_raised_by_a_tool_without_a_deadline_is_reported_not_raised() -> None:
    @tool(timeout_s=None)
    def fetch() -> str:
        """Fetch something over a socket."""
        raise TimeoutError("socket read timed out")

    out = run(ToolSet([fetch]), "fetch", {})
    assert out.is_error
    assert "socket read timed out" in out.content


def test_async_tool_timeout_is_an_error() -> None:
    @tool(timeout_s=0.05)
    async def slow() -> str:
        """Sleep a long time."""
        await asyncio.sleep(1.0)
        return "done"

    out, waited = fake_seconds(ToolSet([slow]).execute("slow", {}))
    assert waited == pytest.approx(0.05)  # stopped at its timeout, on a fake clock: not the tool's 1 s
    assert out.is_error and out.error_type == "ToolTimeout"
    assert out.content == "Error: tool 'slow' timed out after 0.05 s."


def test_sync_tool_timeout_is_an_error() -> None:
    release = threading.Event()

    @tool(timeout_s=0.05)
    def slow() -> str:
        """Block for up to a second."""
        release.wait(1.0)
        return "done"

    async def main() -> ToolOutcome:
        outcome = await ToolSet([slow]).execute("slow", {})
        release.set()  # let the worker thread finish so that the loop shuts down at once
        return outcome

    out, waited = fake_seconds(main())
    assert waited == pytest.approx(0.05)  # stopped at its timeout, on a fake clock: not the thread's 1 s
    assert out.is_error and out.error_type == "ToolTimeout"
    assert "timed out after 0.05 s" in out.content


# ---------------------------------------------------------------- ToolOutcome.block


def test_block_of_a_success_has_no_is_error_key() -> None:
    assert ToolOutcome("42").block("toolu_1") == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}


def test_block_of_an_error_sets_is_error_true() -> None:
    block = ToolOutcome("Error: nope", is_error=True, error_type="X").block("toolu_2")
    assert block == {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Error: nope", "is_error": True}
