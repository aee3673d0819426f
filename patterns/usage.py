"""Token usage as a value type: add two and you get their sum."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anthropic.types import Usage as _ApiUsage


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one or more model calls, as the API reports them.

    `input_tokens` excludes cache reads and writes (as in the API); `prompt_tokens` is the
    prompt's full size.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
        )

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
        if type(usage) is _ApiUsage:  # the hot path, one per model call: no getattr defaults
            return cls(int(usage.input_tokens or 0), int(usage.output_tokens or 0),
                       int(usage.cache_creation_input_tokens or 0), int(usage.cache_read_input_tokens or 0))
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
