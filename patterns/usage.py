"""Token usage as a value type: add two and you get their sum."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one or more model calls, as the API reports them.

    `input_tokens` excludes cache reads and writes (as in the API); `prompt_tokens` is the
    prompt's full size. Immutable and hashable; `+` sums field by field and adds to nothing but
    another `Usage` (so `sum(usages, Usage())`, not `sum(usages)`).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: object) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
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
        return cls(
            input_tokens=getattr(usage, "input_tokens", 0) or 0,
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
            cache_write_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
            cache_read_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
        )

    def to_dict(self) -> dict[str, int]:
        return asdict(self)
