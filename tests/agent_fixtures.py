"""Tools and the retry policy shared by the agent loop's tests."""

from __future__ import annotations

from patterns import RetryPolicy, ToolSet, tool

FAST = RetryPolicy(max_retries=3, base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)


@tool(timeout_s=None)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@tool(timeout_s=None)
def page(n: int) -> str:
    """Return page n of a long document.

    Args:
        n: the page number
    """
    return f"page {n}: " + "lorem ipsum " * 100


TOOLS = ToolSet([add])
