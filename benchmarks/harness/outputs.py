"""The results folder: `runs.csv`, `events.jsonl`, `summary.csv`, `manifest.json` — and reading them back.

`runs.csv` and `events.jsonl` are written trial by trial (`benchmarks.harness.store`); the summary is computed
from `runs.csv` as written, reading only the columns it needs, with every float read back exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.harness.atomic import write_atomic, write_text_atomic
from benchmarks.harness.summary import summarise

RUNS, EVENTS, SUMMARY, MANIFEST = "runs.csv", "events.jsonl", "summary.csv", "manifest.json"
KEYS = ("run_id", "pattern", "task", "instance", "model", "terminal")
REPEATED = ("pattern", "task", "instance", "model", "terminal")
SUMMARY_COLUMNS = ["pattern", "task", "instance", "success", "terminal", "steps", "tool_calls", "input_tokens",
                   "output_tokens", "total_tokens", "cost_usd", "latency_s", "retries", "error_kinds"]


def read_table(path: Path, **options: Any) -> Any:
    """`pd.read_csv(path, **options)`, with a file that is not a table (torn, binary, another format) a one-line
    ValueError naming the file, instead of pandas' own words, which name none."""
    try:
        return pd.read_csv(path, **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise ValueError(f"{path}: cannot be read as a table written by wva bench ({detail})") from None


def read_runs(out: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """runs.csv as written (keys as text, empty cells missing, floats exact), or only some of its columns.

    The keys that repeat (pattern, task, instance, model, terminal) are read as categories and turned back
    into text that shares one string per value: a long sweep's rows cost a pointer per key, not a string."""
    wanted = {k for k in KEYS if columns is None or k in columns}
    shared = [k for k in wanted if k in REPEATED]
    runs = read_table(out / RUNS, usecols=columns, keep_default_na=False, na_values=[""], float_precision="round_trip",
                       dtype={k: ("category" if k in REPEATED else str) for k in wanted})
    for key in shared:
        runs[key] = runs[key].astype(object)
    return runs


def summary_of(out: Path) -> pd.DataFrame:
    """summary.csv's table from runs.csv, one task's rows at a time (runs.csv is in plan order: a task's rows
    are together), so a long sweep's rows are never all in memory at once."""
    parts = [summarise(rows) for rows in task_blocks(out, SUMMARY_COLUMNS)]
    if not parts:
        return pd.DataFrame()
    summary = pd.concat(parts, ignore_index=True)
    return summary.sort_values("task", kind="stable", ignore_index=True)  # groupby's order: task, then pattern


def task_blocks(out: Path, columns: list[str], chunk: int = 5_000) -> Iterator[pd.DataFrame]:
    """runs.csv's rows (those columns), one task after another; the whole file at once if a task's rows are
    not together (a file not written by `wva bench`)."""
    if not _tasks_together(out, chunk):
        yield read_runs(out, columns)
        return
    pending: list[pd.DataFrame] = []
    for frame in _chunks(out, columns, chunk):
        starts = [*(frame["task"] != frame["task"].shift()).to_numpy().nonzero()[0].tolist(), len(frame)]
        for a, b in pairwise(starts):
            if pending and pending[-1]["task"].iloc[0] != frame["task"].iloc[a]:
                yield pd.concat(pending, ignore_index=True)
                pending = []
            pending.append(frame.iloc[a:b])
    if pending:
        yield pd.concat(pending, ignore_index=True)


def _chunks(out: Path, columns: list[str], chunk: int) -> Iterator[pd.DataFrame]:
    shared = [k for k in REPEATED if k in columns]
    for frame in pd.read_csv(out / RUNS, usecols=columns, keep_default_na=False, na_values=[""], chunksize=chunk,
                             float_precision="round_trip", dtype={k: "category" for k in shared}):
        for key in shared:
            frame[key] = frame[key].astype(object)
        yield frame


def _tasks_together(out: Path, chunk: int) -> bool:
    """Whether each task's rows are in one block (a pass over the `task` column alone)."""
    seen: list[str] = []
    for frame in pd.read_csv(out / RUNS, usecols=["task"], dtype=str, keep_default_na=False, chunksize=chunk):
        for task in frame["task"][frame["task"] != frame["task"].shift()]:
            if seen and seen[-1] == task:
                continue
            if task in seen:
                return False
            seen.append(task)
    return True


def write_summary(out: Path) -> pd.DataFrame:
    summary = summary_of(out)
    write_atomic(out / SUMMARY, lambda f: summary.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    return summary


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    write_text_atomic(out / MANIFEST, json.dumps(manifest, indent=2, default=str) + "\n")


def load_results(folder: str | Path) -> dict[str, Any]:
    """A results folder as pandas DataFrames: `runs`, `events`, `summary`, `criterion` (if present), and
    the `manifest` dict."""
    out = Path(folder)
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    result: dict[str, Any] = {"runs": pd.read_csv(out / RUNS)}
    result["events"] = pd.read_json(out / EVENTS, lines=True) if (out / EVENTS).exists() else pd.DataFrame()
    for name in ("summary", "criterion"):
        path = out / f"{name}.csv"
        result[name] = pd.read_csv(path) if path.exists() else pd.DataFrame()
    result["manifest"] = json.loads((out / MANIFEST).read_text()) if (out / MANIFEST).exists() else {}
    return result
