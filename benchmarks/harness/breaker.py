"""The circuit breaker: a sweep stops once `TRIPS_AFTER` trials in a row fail with the same hard error.

A key revoked mid-sweep, a spent credit balance, a model retired under the sweep's feet: every later
trial would fail the same way, and a paid sweep would go on sending requests into it. A trial *fails
hard* when it ended in error with an error the retry policy never retries (400, 401, 403, 404, 413,
422: its last `error` event names the SDK class), or when the harness itself crashed on it
(`InternalError:<type>`, e.g. a scorer that raises on every output). Its signature is that class name.

`TRIPS_AFTER` = 20 consecutive trials, counted in the order trials finish (per process when the sweep
is sharded). One broken pattern does not trip it by itself in the usual plan (trials of one instance
alternate patterns), while a sweep whose every call is refused stops within its first 20 trials plus
the ones already in flight — and 4xx replies are not billed. A trial that fails differently, or
succeeds, resets the count.

The failing streak is held back from the journal until it breaks: when it trips, those trials are
dropped, not recorded, so `--resume` (after fixing the cause) runs them again instead of keeping 20
rows of the same error. Everything that finished before the streak is in the journal already.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TRIPS_AFTER = 20
HARD_ERRORS = frozenset({"BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError",
                         "ContentTooLargeError", "UnprocessableEntityError"})  # patterns/retry.py never retries

Record = tuple[Any, dict[str, Any], list[dict[str, Any]]]  # (spec, row, events)


def signature(row: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    """The hard error that ended this trial, or None (it succeeded, or failed in a way worth going on)."""
    if row.get("terminal") != "error":
        return None
    kinds = str(row.get("error_kinds") or "")
    crash = next((k for k in kinds.split(";") if k.startswith("InternalError:")), None)
    if crash:
        return crash
    last = next((e for e in reversed(events) if e.get("kind") == "error"), None)
    kind = str(last.get("error.type") or "") if last else ""
    return kind if kind in HARD_ERRORS else None


class Breaker:
    """Feeds finished trials to `record`, holding back a streak of the same hard error (module docstring)."""

    def __init__(self, record: Callable[[Any, dict[str, Any], list[dict[str, Any]]], None],
                 trips_after: int = TRIPS_AFTER) -> None:
        self._record = record
        self.trips_after = trips_after
        self._streak: list[Record] = []
        self._kind: str | None = None
        self.tripped: str | None = None  # the reason, once tripped
        self.dropped = 0

    def __call__(self, spec: Any, row: dict[str, Any], events: list[dict[str, Any]]) -> None:
        kind = signature(row, events)
        if self.tripped is not None:  # trials still in flight when it tripped
            if kind == self._kind:
                self.dropped += 1
            else:
                self._record(spec, row, events)
            return
        if kind is None or kind != self._kind:
            self.flush()
        if kind is None:
            self._record(spec, row, events)
            return
        self._kind = kind
        self._streak.append((spec, row, events))
        if len(self._streak) >= self.trips_after:
            self.dropped += len(self._streak)
            self._streak = []
            detail = str(row.get("detail") or "")
            self.tripped = (f"{self.trips_after} trials in a row failed with {kind}"
                            + (f" ({detail[:200]})" if detail else ""))

    def flush(self) -> None:
        """Record the held-back streak (it broke, or the sweep ended without tripping)."""
        streak, self._streak, self._kind = self._streak, [], None
        for spec, row, events in streak:
            self._record(spec, row, events)

    def keep_going(self) -> bool:
        return self.tripped is None
