"""Token usage as a value type (add two and you get their sum), and what a run does when a reply has none.

**Unknown usage.** Some servers (local OpenAI-compatible ones among them) send a reply without
any usage. Counting it as zero tokens would bill a priced model $0.00 and let `token_budget`
never trip, so a call whose reply reports no usage is instead:
- *estimated* by `estimate_usage` (about four characters a token over the request's system,
  tools and messages, and over the reply's content, as JSON) and counted, estimate and all, in
  the run's `usage` and against `Limits.token_budget`;
- marked: its `model_call` event has `usage_estimated=True` (`"usage_estimated": true` in the
  trace), and `Result.estimated_calls` counts such calls;
- unpriced: its `cost_usd` is None, which makes the run's cost None (unknown), never $0.
A reply "has no usage" when `message.usage` is None, or when a model adapter marked it with the
`USAGE_MISSING` extra field (the `openai:` adapter does, for a completion without `usage`).
`Usage` itself stays a plain sum of token counts: `+` never knows or mixes in whether a count was
reported or estimated; that fact lives on the event and the result.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any

USAGE_MISSING = "wva_usage_missing"  # an extra field on `anthropic.types.Usage`: the server reported no usage
CHARS_PER_TOKEN = 4


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


def usage_missing(usage: Any) -> bool:
    """Whether a reply's usage is absent (None) or marked `USAGE_MISSING` by the model adapter."""
    if usage is None:
        return True
    extra = getattr(usage, "__pydantic_extra__", None)  # a dict on the SDK's types: no slow attribute miss
    return bool(extra and extra.get(USAGE_MISSING))


def estimate_usage(params: dict[str, Any], content: Any) -> Usage:
    """A documented guess for a call whose reply reported no usage: ~4 characters a token.

    Input: the JSON of the request's system, tools and messages; output: the JSON of the reply's
    content (at least one token). All of it is counted as plain input: nothing is known of a cache."""
    request = {name: params.get(name) for name in ("system", "tools", "messages")}
    return Usage(input_tokens=_tokens(request), output_tokens=max(1, _tokens(content or [])))


def _tokens(obj: Any) -> int:
    return math.ceil(len(json.dumps(obj, ensure_ascii=False, default=_plain)) / CHARS_PER_TOKEN)


def _plain(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)  # an SDK content block
    return dump(mode="json", exclude_none=True) if callable(dump) else str(obj)
