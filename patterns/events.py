"""The trace: one immutable record per model call, tool call, retry, recovery or failure.

Times are seconds on the run's clock since the run started (modelled time for a simulated
model). `to_dict` uses the OpenTelemetry GenAI attribute names where one exists, so an
exporter is a thin map.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from .usage import Usage


class Kind(StrEnum):
    MODEL_CALL = "model_call"  # a model call that returned a message
    TOOL_CALL = "tool_call"  # one tool_use block executed (or denied)
    RETRY = "retry"  # a failed call that the retry policy will repeat
    COMPACTION = "compaction"  # the context was shrunk after "prompt is too long"
    RECOVERY = "recovery"  # a max_tokens / pause_turn turn that the loop continued
    ESCALATION = "escalation"  # max_tokens raised for the next call
    ERROR = "error"  # a failed call that was not retried (compaction may still recover it)
    LIMIT = "limit"  # a limit or abort that ended the run
    DECISION = "decision"  # a workflow's code-level decision: a gate, a route, a plan, a vote


_OPERATION = {Kind.MODEL_CALL: "chat", Kind.TOOL_CALL: "execute_tool"}


class Event(NamedTuple):
    """Immutable, and cheap to build (two per agent step): a named tuple, equal only to another `Event`."""

    kind: Kind
    start: float
    end: float
    name: str = ""  # the workflow node or tool this event belongs to
    model: str | None = None
    usage: Usage | None = None
    cost_usd: float | None = None
    stop_reason: str | None = None
    position: int | None = None  # 0-based index of this model call within the run
    tool_name: str | None = None
    tool_use_id: str | None = None
    is_error: bool = False
    error_type: str | None = None
    error: str | None = None
    attempt: int | None = None
    detail: str = ""

    def __eq__(self, other: object) -> bool:  # as a dataclass's: never equal to a plain tuple
        return type(other) is Event and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__  # the hash of the field values, as a frozen dataclass's

    @property
    def duration(self) -> float:
        return self.end - self.start

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": str(self.kind), "start": self.start, "end": self.end, "name": self.name}
        if self.kind in _OPERATION:
            d["gen_ai.operation.name"] = _OPERATION[self.kind]
        if self.model is not None:
            d["gen_ai.response.model"] = self.model
        if self.usage is not None:
            d["gen_ai.usage.input_tokens"] = self.usage.input_tokens
            d["gen_ai.usage.output_tokens"] = self.usage.output_tokens
            d["gen_ai.usage.cache_creation.input_tokens"] = self.usage.cache_write_tokens
            d["gen_ai.usage.cache_read.input_tokens"] = self.usage.cache_read_tokens
        if self.cost_usd is not None:
            d["cost_usd"] = self.cost_usd
        if self.stop_reason is not None:
            d["gen_ai.response.finish_reasons"] = [self.stop_reason]
        if self.position is not None:
            d["position"] = self.position
        if self.tool_name is not None:
            d["gen_ai.tool.name"] = self.tool_name
        if self.tool_use_id is not None:
            d["gen_ai.tool.call.id"] = self.tool_use_id
        if self.is_error:
            d["is_error"] = True
        if self.error_type is not None:
            d["error.type"] = self.error_type
        if self.error is not None:
            d["error.message"] = self.error
        if self.attempt is not None:
            d["attempt"] = self.attempt
        if self.detail:
            d["detail"] = self.detail
        return d


# The two events of every agent step, built positionally: a named tuple's keyword-argument `__new__`
# costs more than the rest of recording the event. The field order is Event's (a test holds them equal).
_new = tuple.__new__


def model_call_event(start: float, end: float, name: str, model: str | None, usage: Usage, cost_usd: float | None,
                     stop_reason: str | None, position: int) -> Event:
    """`Event(Kind.MODEL_CALL, start, end, name=..., model=..., usage=..., ...)`."""
    return _new(Event, (Kind.MODEL_CALL, start, end, name, model, usage, cost_usd, stop_reason, position,
                        None, None, False, None, None, None, ""))


def tool_call_event(start: float, end: float, name: str, tool_name: str, tool_use_id: str, is_error: bool,
                    error_type: str | None, error: str | None) -> Event:
    """`Event(Kind.TOOL_CALL, start, end, name=..., tool_name=..., tool_use_id=..., ...)`."""
    return _new(Event, (Kind.TOOL_CALL, start, end, name, None, None, None, None, None,
                        tool_name, tool_use_id, is_error, error_type, error, None, ""))
