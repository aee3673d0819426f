"""The trace: one immutable record per model call, tool call, retry, recovery or failure.

Times are seconds on the run's clock since the run started (modelled time for a simulated
model). `to_dict` uses the OpenTelemetry GenAI attribute names where one exists, so an
exporter is a thin map.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

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


# A tool result is kept whole up to this many characters (a longer one is cut and ends with `…`, so that a cut
# JSON result no longer parses: its fields are then not read as code-readable, never read wrong).
RESULT_CHARS = 4000

_OPERATION = {Kind.MODEL_CALL: "chat", Kind.TOOL_CALL: "execute_tool"}


@dataclass(frozen=True, slots=True)
class Event:
    """One record of the trace; build it with keywords beyond the first three fields."""

    kind: Kind
    start: float
    end: float
    name: str = ""  # the workflow node or tool this event belongs to
    model: str | None = None
    usage: Usage | None = None
    usage_estimated: bool = False  # the reply reported no usage: `usage` is `estimate_usage`'s guess (usage.py)
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
    arguments: str | None = None  # a tool call's input as JSON, redacted (gen_ai.tool.call.arguments)
    result: str | None = None  # what the tool returned, redacted, cut at RESULT_CHARS (gen_ai.tool.call.result)

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
        if self.usage_estimated:
            d["usage_estimated"] = True
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
        if self.arguments is not None:
            d["gen_ai.tool.call.arguments"] = self.arguments
        if self.result is not None:
            d["gen_ai.tool.call.result"] = self.result
        if self.attempt is not None:
            d["attempt"] = self.attempt
        if self.detail:
            d["detail"] = self.detail
        return d

