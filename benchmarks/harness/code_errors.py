"""Errors raised by a task's own code, kept apart from the model's failures.

A model that errs, an API that fails or a limit that is hit is what a benchmark measures. A scorer, a
design or an environment that raises is a bug in the task, and the figures of its trials mean
nothing until it is fixed. Such a trial is still a row, marked in `error_kinds`:

- `ScorerError:<exception type>` — the scorer raised (`ScorerError:Timeout`: it overran its time);
  the run itself is kept (its usage, cost, events and terminal), only its score is missing;
- `CodeError:<exception type>` — the design, the environment or a pattern's code raised before the
  run could end; nothing of the run can be kept;
- `DesignError:<what>` — the design failed mechanically, in its own code paths, not by any model's
  decision: a fixed tool step (a call code makes, `fixed_*`) named a tool the task does not have
  (`DesignError:UnknownTool`), or passed an argument still holding a `{placeholder}` that never filled
  (`DesignError:Placeholder`). The run is kept, but the criterion leaves the trial out of the comparison
  (`benchmarks.criterion.table`): it is the design's bug, not the workflow losing on the task.

`detail` says where: the file and line of the innermost frame of the user's code in the traceback
(not the standard library's, an installed package's or this project's, unless nothing else is on it).
`summary.csv` counts them per pattern × task in `code_errors`.
"""

from __future__ import annotations

import os
import re
import sysconfig
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SCORER_ERROR = "ScorerError"
CODE_ERROR = "CodeError"
DESIGN_ERROR = "DesignError"
KINDS = (SCORER_ERROR, CODE_ERROR, DESIGN_ERROR)
_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")

_PROJECT = tuple(str(Path(__file__).resolve().parents[2] / name) + os.sep for name in ("patterns", "benchmarks"))
_LIBRARIES = tuple({str(Path(p).resolve()) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
                    if (p := sysconfig.get_paths().get(key))})


def kind(prefix: str, exc: BaseException) -> str:
    """The `error_kinds` entry: `ScorerError:Timeout` for a timeout, else `<prefix>:<exception type>`."""
    if prefix == SCORER_ERROR and isinstance(exc, TimeoutError):
        return f"{SCORER_ERROR}:Timeout"
    return f"{prefix}:{type(exc).__name__}"


def location(exc: BaseException) -> str | None:
    """`file:line` of the innermost frame of the user's code in `exc`'s traceback (see the module's docstring),
    or in its `stack` (where a call that overran its time was stuck: `patterns.threads.Overran`)."""
    stack = getattr(exc, "stack", None)
    frames = (stack if stack is not None else traceback.extract_tb(exc.__traceback__))[::-1]  # innermost first
    files = [(str(Path(f.filename).resolve()), f.lineno) for f in frames if not f.filename.startswith("<")]
    own = [(f, n) for f, n in files if not f.startswith(_LIBRARIES)]
    users = [(f, n) for f, n in own if not f.startswith(_PROJECT)]
    chosen = (users or own or files or [None])[0]
    return None if chosen is None else f"{_shown(chosen[0])}:{chosen[1]}"


def _shown(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


DETAIL_CHARS = 290  # runs.csv keeps 300 characters of `detail`; a little room for what redaction writes


def whole(text: str, limit: int = DETAIL_CHARS) -> str:
    """`text` on one line and at most `limit` characters, cut at a word with "…" when it is longer, never mid-word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;:…") + "…"  # one "…" when a cut part is cut again


def describe(entry: str, exc: BaseException) -> str:
    """What `detail` says: the kind, where, and the exception's message, one whole line (`whole`)."""
    where = location(exc)
    text = entry + (f" at {where}" if where else "")
    message = " ".join(str(exc).split())
    return whole(f"{text}: {message}" if message else text)


def design_error(events: Iterable[Any]) -> str | None:
    """`DesignError:<what>` when a fixed tool step failed mechanically (module docstring), else None. Only calls
    code makes (`tool_use_id` `fixed_*`) count: a model naming a wrong tool is the model's error."""
    for e in events:
        if not str(getattr(e, "tool_use_id", "") or "").startswith("fixed_") or not getattr(e, "is_error", False):
            continue
        if getattr(e, "error_type", None) == "UnknownTool":
            return f"{DESIGN_ERROR}:UnknownTool"
        if _PLACEHOLDER.search(str(getattr(e, "arguments", "") or "")):
            return f"{DESIGN_ERROR}:Placeholder"
    return None


def is_design_error(error_kinds: Any) -> bool:
    """Whether a row's `error_kinds` holds a `DesignError` (the criterion leaves such trials out)."""
    return isinstance(error_kinds, str) and f"{DESIGN_ERROR}:" in error_kinds


def is_code_error(error_kinds: Any) -> bool:
    """Whether a row's `error_kinds` holds an error of the task's own code."""
    return isinstance(error_kinds, str) and any(k.split(":", 1)[0] in KINDS for k in error_kinds.split(";") if k)


def count(error_kinds: Iterable[Any]) -> int:
    return sum(1 for kinds in error_kinds if is_code_error(kinds))


class FirstCodeError:
    """The line to print for the first trial whose task code raised (None for every other trial)."""

    def __init__(self) -> None:
        self.seen = 0

    def __call__(self, row: dict[str, Any]) -> str | None:
        if not is_code_error(row.get("error_kinds")):
            return None
        self.seen += 1
        if self.seen > 1:
            return None
        return (f"error in the task's code, trial {row.get('run_id')} ({row.get('pattern')} on {row.get('task')}): "
                f"{' '.join(str(row.get('detail') or '').split())} — the sweep goes on; such trials are counted in "
                "summary.csv's code_errors")
