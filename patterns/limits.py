"""What a run may spend (`Limits`) and how a caller stops it early (`Abort`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one run; `None` means unlimited. Checked before every model call.

    - `max_steps`: at most this many model calls that return a message.
    - `token_budget`: prompt + output tokens of all calls so far.
    - `cost_budget_usd`: dollars spent so far (an unpriced model never hits it).
    - `time_budget_s`: seconds on the run's clock (modelled time for a simulated model).
    - `compact_at_tokens`: proactive compaction (off by default). When the agent's last call had a
      prompt over this many tokens, it compacts the context before the next call instead of waiting
      for the window to overflow, as long-running agents do.

    What each request carries (its `max_tokens`, prompt caching) is not a bound: `patterns.options`.
    """

    max_steps: int | None = 50
    token_budget: int | None = None
    cost_budget_usd: float | None = None
    time_budget_s: float | None = None
    compact_at_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_steps", "token_budget", "cost_budget_usd", "time_budget_s"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"Limits.{name} must be >= 0 or None, got {value!r}")
        if self.compact_at_tokens is not None and self.compact_at_tokens < 1:
            raise ValueError(f"Limits.compact_at_tokens must be >= 1 or None, got {self.compact_at_tokens!r}")


class Abort:
    """A flag any code (another task, a tool, a hook) may set; the run stops at the next phase."""

    __slots__ = ("reason",)

    def __init__(self) -> None:
        self.reason: str | None = None

    def set(self, reason: str = "aborted by caller") -> None:
        if self.reason is None:
            self.reason = reason

    @property
    def is_set(self) -> bool:
        return self.reason is not None
