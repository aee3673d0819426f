"""A reply's content blocks as request params: exactly `block.to_dict()`, faster.

The agent loop appends every reply to the conversation, so this runs once per block per turn.
`block.to_dict()` is `model_dump(by_alias=True, exclude_unset=True)`: the fields the API set, in
field order, by API name, dicts and lists copied. Two shortcuts give the same dict:

- the two blocks of nearly every turn, a `text` block with only text and a `tool_use` block whose
  input holds no nested dict or list, are built by hand (a tenth of the serializer's time; the
  input is still copied, so a tool mutating its input leaves the history alone);
- every other SDK block goes straight to the model's pydantic-core serializer with `to_dict`'s two
  arguments, skipping `model_dump`'s argument checks (about half the time).

Anything that is not a pydantic model with a serializer (a stand-in block in a test) goes through
its own `to_dict()`.
"""

from __future__ import annotations

from typing import Any

from anthropic.types import TextBlock, ToolUseBlock

_TEXT_SET = frozenset({"text", "type"})
_TOOL_USE_SET = frozenset({"id", "input", "name", "type"})
_FLAT = frozenset({str, int, float, bool, type(None)})  # input values a shallow copy copies whole


def block_params(block: Any) -> dict[str, Any]:
    """Exactly `block.to_dict()` for an SDK content block."""
    cls = type(block)
    if cls is ToolUseBlock:
        tool_input = block.input
        if (block.__pydantic_fields_set__ == _TOOL_USE_SET and not block.__pydantic_extra__
                and type(tool_input) is dict and _FLAT.issuperset(map(type, tool_input.values()))):
            return {"id": block.id, "input": dict(tool_input), "name": block.name, "type": "tool_use"}
    elif cls is TextBlock and block.__pydantic_fields_set__ == _TEXT_SET and not block.__pydantic_extra__:
        return {"text": block.text, "type": "text"}
    serializer = getattr(cls, "__pydantic_serializer__", None)
    if serializer is None or cls.to_dict is not _TO_DICT:
        return block.to_dict()
    result: dict[str, Any] = serializer.to_python(block, by_alias=True, exclude_unset=True)
    return result


def _sdk_to_dict() -> Any:
    from anthropic._models import BaseModel

    return BaseModel.to_dict


_TO_DICT = _sdk_to_dict()
