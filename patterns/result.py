"""What every pattern returns: a `Result`, ending in one `Terminal`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .events import Event, Kind
from .usage import Usage


class Terminal(StrEnum):
    COMPLETED = "completed"  # the pattern produced its output (end_turn / stop_sequence)
    MAX_STEPS = "max_steps"  # Limits.max_steps model calls were made
    BUDGET = "budget"  # token_budget or cost_budget_usd reached
    TIMEOUT = "timeout"  # time_budget_s reached
    ERROR = "error"  # an unrecoverable API error, or a workflow's typed failure
    ABORTED = "aborted"  # Abort was set
    REFUSAL = "refusal"  # the model refused (stop_reason "refusal")


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """One failure: `kind` is the exception class or a workflow failure (GateFailed, UnknownLabel…)."""

    kind: str
    message: str
    where: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message, "where": self.where}


@dataclass(frozen=True)
class Result:
    terminal: Terminal
    output: str
    messages: list[dict[str, Any]]  # the (last) conversation, as Messages API params
    steps: int  # model calls that returned a message
    tool_calls: int
    usage: Usage  # reported usage, plus an estimate for each call whose reply reported none (`estimated_calls`)
    cost_usd: float | None  # None (unknown) when a call was unpriced or had no usage, or when every call failed
    latency_s: float  # the run's critical path on its clock
    errors: tuple[ErrorInfo, ...] = ()
    events: tuple[Event, ...] = ()
    pattern: str = ""
    detail: str = ""  # why it ended, in words (the limit hit, the failed gate…)
    extra: dict[str, Any] = field(default_factory=dict)  # pattern-specific facts (route label, plan…)

    @property
    def ok(self) -> bool:
        return self.terminal is Terminal.COMPLETED

    @property
    def retries(self) -> int:
        return sum(1 for e in self.events if e.kind is Kind.RETRY)

    @property
    def recoveries(self) -> int:
        return sum(1 for e in self.events if e.kind in (Kind.RECOVERY, Kind.COMPACTION))

    @property
    def estimated_calls(self) -> int:
        """Model calls whose reply reported no usage, so that `usage` holds an estimate for them (usage.py)."""
        return sum(1 for e in self.events if e.usage_estimated)

    def to_dict(self, *, events: bool = True, messages: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "pattern": self.pattern,
            "terminal": str(self.terminal),
            "output": self.output,
            "steps": self.steps,
            "tool_calls": self.tool_calls,
            "usage": self.usage.to_dict(),
            "usage_estimated_calls": self.estimated_calls,
            "cost_usd": self.cost_usd,
            "latency_s": self.latency_s,
            "retries": self.retries,
            "recoveries": self.recoveries,
            "errors": [e.to_dict() for e in self.errors],
            "detail": self.detail,
            "extra": self.extra,
        }
        if messages:
            d["messages"] = self.messages
        if events:
            d["events"] = [e.to_dict() for e in self.events]
        return d
