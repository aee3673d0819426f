"""A reply's content blocks as request params: `block.to_dict()`, minus pydantic's per-call wrapper.

The agent loop appends every reply to the conversation, so this runs once per block per turn.
`block.to_dict()` is `model_dump(by_alias=True, exclude_unset=True)`, which checks and forwards a
dozen arguments before calling the model's pydantic-core serializer; calling that serializer with
the same two arguments gives the same dict (the fields the API set, in field order, by API name,
dicts and lists copied) in about half the time. Anything that is not a pydantic model with a
serializer (a stand-in block in a test) goes through its own `to_dict()`.
"""

from __future__ import annotations

from typing import Any


def block_params(block: Any) -> dict[str, Any]:
    """Exactly `block.to_dict()` for an SDK content block."""
    serializer = getattr(type(block), "__pydantic_serializer__", None)
    if serializer is None or type(block).to_dict is not _TO_DICT:
        return block.to_dict()
    result: dict[str, Any] = serializer.to_python(block, by_alias=True, exclude_unset=True)
    return result


def _sdk_to_dict() -> Any:
    from anthropic._models import BaseModel

    return BaseModel.to_dict


_TO_DICT = _sdk_to_dict()
