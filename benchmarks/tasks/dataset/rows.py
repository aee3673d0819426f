"""A task file's dataset: one instance per row of a .jsonl or .csv file.

Columns: `input` (required, the task as the model is given it), `target` (required unless the
scorer needs none: `model:` or a Python function), `id` (optional: `<name>-<row>` if missing;
ids must be unique), and any other fields (e.g. `category`, which labels a row's route; with
`[routes]` it must be one of them). Only the environment and the scorer read `target` and the
fields; the model sees `input` alone. Every problem is one ValueError line naming the row.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from benchmarks.tasks.base import Instance


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name}: line {number} is not JSON: {exc.msg}") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path.name}: line {number} must be a JSON object, got {type(row).__name__}")
        rows.append({**row, "_line": number})
    return rows


def _read_csv(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames:
            return []
        rows = []
        for row in reader:
            if None in row:
                raise ValueError(f"{path.name}: line {reader.line_num} has more cells than the header")
            rows.append({**{k: v for k, v in row.items() if v != ""}, "_line": reader.line_num})
        return rows


def read_rows(path: Path) -> list[dict[str, Any]]:
    try:
        return _read_jsonl(path) if path.suffix.lower() == ".jsonl" else _read_csv(path)
    except UnicodeDecodeError:
        raise ValueError(f"{path.name}: not UTF-8 text") from None


def load_instances(path: Path, name: str, *, needs_target: bool, routes: dict[str, str]) -> list[Instance]:
    """Every row as an Instance (data: target and the other fields); one-line ValueErrors."""
    rows = read_rows(path)
    if not rows:
        raise ValueError(f"{path.name}: the dataset has no rows")
    seen: dict[str, int] = {}
    out = []
    for i, row in enumerate(rows):
        line = row.pop("_line")
        rid = str(row.get("id", "")).strip() or f"{name}-{i:04d}"
        where = f"{path.name}: line {line} (id {rid!r})"
        text = row.get("input")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where} has no 'input' (a non-empty string)")
        if rid in seen:
            raise ValueError(f"{where}: duplicate id, first used on line {seen[rid]}")
        seen[rid] = line
        if needs_target and (row.get("target") is None or str(row.get("target")).strip() == ""):
            raise ValueError(f"{where} has no 'target', which this scorer needs")
        category = row.get("category")
        if routes and category is not None and str(category).lower() not in routes:
            raise ValueError(f"{where}: category {category!r} is not one of the [routes]: {', '.join(routes)}")
        fields = {k: v for k, v in row.items() if k not in ("id", "input", "target")}
        out.append(Instance(rid, text, {"target": row.get("target"), "fields": fields}))
    return out
