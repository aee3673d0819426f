"""The results folder: `runs.csv`, `events.jsonl`, `summary.csv`, `manifest.json` — and reading them back.

`runs.csv` and `events.jsonl` are written trial by trial (`benchmarks.store`); the summary is computed
from `runs.csv` as written, reading only the columns it needs, with every float read back exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .atomic import write_atomic, write_text_atomic
from .summary import summarise

RUNS, EVENTS, SUMMARY, MANIFEST = "runs.csv", "events.jsonl", "summary.csv", "manifest.json"
KEYS = ("run_id", "pattern", "task", "instance", "model", "terminal")
REPEATED = ("pattern", "task", "instance", "model", "terminal")
SUMMARY_COLUMNS = ["pattern", "task", "instance", "success", "terminal", "steps", "tool_calls", "input_tokens",
                   "output_tokens", "total_tokens", "cost_usd", "latency_s", "retries"]


def read_runs(out: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """runs.csv as written (keys as text, empty cells missing, floats exact), or only some of its columns.

    The keys that repeat (pattern, task, instance, model, terminal) are read as categories and turned back
    into text that shares one string per value: a long sweep's rows cost a pointer per key, not a string."""
    wanted = {k for k in KEYS if columns is None or k in columns}
    shared = [k for k in wanted if k in REPEATED]
    runs = pd.read_csv(out / RUNS, usecols=columns, keep_default_na=False, na_values=[""], float_precision="round_trip",
                       dtype={k: ("category" if k in REPEATED else str) for k in wanted})
    for key in shared:
        runs[key] = runs[key].astype(object)
    return runs


def summary_of(out: Path) -> pd.DataFrame:
    runs = read_runs(out, SUMMARY_COLUMNS)
    return summarise(runs) if len(runs) else pd.DataFrame()


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
