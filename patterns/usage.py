"""Token usage as a value type: add two and you get their sum."""

from __future__ import annotations

from typing import Any, NamedTuple

from anthropic.types import Usage as _ApiUsage


class Usage(NamedTuple):
    """Tokens of one or more model calls, as the API reports them.

    `input_tokens` excludes cache reads and writes (as in the API); `prompt_tokens` is the
    prompt's full size.

    A named tuple rather than a frozen dataclass because one is built and one added on every model
    call (a frozen dataclass's `__init__` costs about five times as much). It keeps a frozen
    dataclass's behaviour: immutable, `+` sums field by field (and adds to nothing but a `Usage`),
    equal only to another `Usage`, never to a plain tuple.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: object) -> Usage:  # type: ignore[override]
        if type(other) is not Usage:
            return NotImplemented
        a, b, c, d = self
        w, x, y, z = other  # type: ignore[misc]
        return _new(Usage, (a + w, b + x, c + y, d + z))

    def __radd__(self, other: object) -> Usage:
        # A tuple subclass's reflected method runs first: without this, `(1, 2) + usage` would concatenate.
        raise TypeError(f"unsupported operand type(s) for +: {type(other).__name__!r} and 'Usage'"
                        + (" (start sum() with Usage())" if other == 0 else ""))

    def __mul__(self, other: object) -> Usage:  # type: ignore[override]
        return NotImplemented  # tuple repetition makes no sense for token counts

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        return type(other) is Usage and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    @property
    def total_tokens(self) -> int:
        """Prompt plus output: what `Limits.token_budget` counts."""
        return self.prompt_tokens + self.output_tokens

    @classmethod
    def from_api(cls, usage: Any) -> Usage:
        """From an `anthropic.types.Usage` (or anything with its attribute names)."""
        if usage is None:
            return cls()
        if type(usage) is _ApiUsage:  # the hot path, one per model call: the SDK has checked the ints
            return _new(cls, (usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens or 0,
                              usage.cache_read_input_tokens or 0))
        return cls(
            int(getattr(usage, "input_tokens", 0) or 0),
            int(getattr(usage, "output_tokens", 0) or 0),
            int(getattr(usage, "cache_creation_input_tokens", 0) or 0),
            int(getattr(usage, "cache_read_input_tokens", 0) or 0),
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cache_read_tokens": self.cache_read_tokens,
        }


_new = tuple.__new__  # a named tuple's fields from one tuple, without its keyword-argument __new__
