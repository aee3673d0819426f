"""Why a trial ended in `error`, in two classes a reader can act on.

- **as designed**: the pattern stopped by its own rules — a gate that failed (`GateFailed`), a plan still
  malformed after its one repair (`MalformedPlan`), a label no route takes (`UnknownLabel`), a value code
  cannot dispatch on (`NoDispatch`, `UnknownTool`), a fixed tool step whose call failed (`ToolError`: what
  was drawn has no recovery unless one is drawn), every vote failing, nothing to fan out over, output or
  context past the loop's recovery (`MaxTokens`, `ContextOverflow`). It is that design's failure on the
  task, counted against its success like a wrong answer.
- **infrastructure**: everything else — the API or the network (a status error, a timeout, a refused or
  dropped connection, after the retries), or a bug in the task's own code or design (`CodeError`,
  `ScorerError`, `DesignError`: a fixed tool step naming a missing tool or passing an unfilled
  placeholder; `benchmarks.harness.code_errors`). It is not the pattern losing on the task; fix it and rerun.

The class is read off the last entry of a row's `error_kinds` (the error that ended the run).
"""

from __future__ import annotations

from typing import Any

DESIGNED = frozenset({"GateFailed", "MalformedPlan", "UnknownLabel", "NoDispatch", "UnknownTool", "ToolError",
                      "AllBranchesFailed", "NoSections", "MaxTokens", "ContextOverflow"})
AS_DESIGNED, INFRASTRUCTURE = "as designed", "infrastructure"
MEANING = {
    AS_DESIGNED: "a pattern stopped by its own rules (a failed gate, a plan still malformed after its repair, a "
                 "label no route takes, a failed fixed tool step): that design's failure, counted in its success",
    INFRASTRUCTURE: "the API, the network, a timeout, or a bug in the task's own code or design (a tool step naming "
                    "a missing tool, an unfilled placeholder): not the pattern losing on the task; fix and rerun",
}


def error_class(row: dict[str, Any]) -> str | None:
    """`as designed`, `infrastructure`, or None for a trial that did not end in `error`."""
    if str(row.get("terminal")) != "error":
        return None
    kinds = [k for k in str(row.get("error_kinds") or "").split(";") if k and k != "nan"]
    last = kinds[-1].split(":", 1)[0] if kinds else ""
    return AS_DESIGNED if last in DESIGNED else INFRASTRUCTURE
