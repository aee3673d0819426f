"""The `fanout` family's one tool, `get_item`, over one trial's copy of the catalog.

Every lookup is appended to `state["lookups"]`; an unknown id is an error that says what ids look like.
"""

from __future__ import annotations

from typing import Any

from benchmarks.tasks.base import look_up
from patterns.tools import ToolSet, tool


def make_tools(state: dict[str, Any]) -> ToolSet:
    """`get_item` over `state["catalog"]`."""

    @tool(timeout_s=None)
    def get_item(item_id: str) -> dict[str, Any]:
        """Look up one product in the store catalog by its id; returns its record: id, name, stock (units
        on hand) and price (US dollars).

        Args:
            item_id: the product id exactly as the question writes it, e.g. "A-17".
        """
        key = item_id.strip().upper()
        state["lookups"].append(key)
        return dict(look_up(state["catalog"], key, f"no product has id {item_id!r}; ids are a capital letter, a "
                            "hyphen and two digits (e.g. A-17): check the id against the question"))

    return ToolSet([get_item])
