"""The results folder: `runs.csv`, `events.jsonl`, `summary.csv`, `manifest.json` — and reading them back."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from .atomic import write_atomic, write_text_atomic
from .summary import summarise
from .trial import RUN_COLUMNS

RUNS, EVENTS, SUMMARY, MANIFEST = "runs.csv", "events.jsonl", "summary.csv", "manifest.json"


def runs_frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=RUN_COLUMNS)
    return frame.astype({"success": bool, "trial": int, "seed": int})


def write_outputs(out: Path, records: list[dict[str, Any]], manifest: dict[str, Any]) -> tuple[pd.DataFrame,
                                                                                             pd.DataFrame]:
    """Write every tidy file atomically from the journal's records (already in plan order)."""
    runs = runs_frame(r["row"] for r in records)
    summary = summarise(runs) if len(runs) else pd.DataFrame()

    def events(f: Any) -> None:
        for record in records:
            for event in record["events"]:
                f.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")

    write_atomic(out / EVENTS, events)
    write_atomic(out / RUNS, lambda f: runs.to_csv(f, index=False, lineterminator="\n"))
    write_atomic(out / SUMMARY, lambda f: summary.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    write_text_atomic(out / MANIFEST, json.dumps(manifest, indent=2, default=str) + "\n")
    return runs, summary


def records_from_outputs(out: Path) -> dict[str, dict[str, Any]]:
    """A finished folder's trials as journal records, so `--resume` on it skips what is there."""
    if not (out / RUNS).exists():
        return {}
    runs = pd.read_csv(out / RUNS, keep_default_na=False, na_values=[""])
    events: dict[str, list[dict[str, Any]]] = {}
    if (out / EVENTS).exists():
        with (out / EVENTS).open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    event = json.loads(line)
                    events.setdefault(event["run_id"], []).append(event)
    records = {}
    for row in runs.to_dict("records"):
        clean = {k: (None if isinstance(v, float) and pd.isna(v) else v) for k, v in row.items()}
        clean["error_kinds"] = clean.get("error_kinds") or ""
        clean["detail"] = clean.get("detail") or ""
        records[str(clean["run_id"])] = {"row": clean, "events": events.get(str(clean["run_id"]), [])}
    return records


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
