"""A reply's content blocks as request params, ready to be appended to the conversation.

The agent loop appends every reply to the conversation it sends next. pydantic's
`model_dump(by_alias=True, exclude_unset=True)`, which the SDK's `to_dict()` calls, gives the fields
the API set, by API name, with dicts and lists copied, so a tool that mutates its input leaves the
history alone.
"""

from __future__ import annotations

from typing import Any


def block_params(block: Any) -> dict[str, Any]:
    """An SDK content block as a request param: exactly `block.to_dict()`."""
    params: dict[str, Any] = block.model_dump(by_alias=True, exclude_unset=True)
    return params


def sendable(blocks: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """The reply's blocks as params the API accepts back (no empty text, tool_use input always an
    object), and its tool_use blocks.

    A non-object input (a malformed reply) is replaced by {} in the history; its tool_result already
    tells the model the input was invalid."""
    out, uses = [], []
    for b in blocks:
        if b.type == "tool_use":
            uses.append(b)
            if not isinstance(b.input, dict):
                out.append({"type": "tool_use", "id": b.id, "name": b.name, "input": {}})
                continue
        elif b.type == "text" and not b.text:
            continue
        out.append(block_params(b))
    return out, uses
