"""Tools shared by the tool tests."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from patterns.tools import ToolOutcome, ToolSet, tool


def run(toolset: ToolSet, name: str, tool_input: Any) -> ToolOutcome:
    return asyncio.run(toolset.execute(name, tool_input))


@tool(timeout_s=None)
def lookup(
    query: str,
    limit: int = 5,
    score: float = 0.5,
    exact: bool = False,
    tags: list[str] | None = None,
    weights: dict[str, float] | None = None,
    mode: Literal["fast", "deep"] = "fast",
) -> dict[str, Any]:
    """Look a query up in the knowledge base.

    Returns the best matches; this second paragraph is not part of the description.

    Args:
        query: the words to look for
        limit (int): how many matches at most
        mode: how hard to search
    """
    return {"query": query, "limit": limit, "mode": mode}


@tool(timeout_s=None)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text
