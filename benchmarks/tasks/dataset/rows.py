"""A task file's dataset: one instance per row of a .jsonl or .csv file.

Columns: `input` (required, the task as the model is given it), `target` (required unless the
scorer needs none: `model:` or a Python function), `id` (optional: `<name>-<row>` if missing;
ids must be unique), and any other fields (e.g. `category`, which labels a row's route; with
`[routes]` it must be one of them). Only the environment and the scorer read `target` and the
fields; the model sees `input` alone. Every problem is one ValueError line naming the row.

A row longer than `MAX_ROW_CHARS` (4 Mi characters, about a million tokens: the largest context window
offered) is refused on reading, naming its line: no model could read it, and a stray 50 MB line (a
binary pasted into the file) would otherwise be held in memory and sent to the model, trial after trial.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.tasks.base import Instance

MAX_ROW_CHARS = 4 * 1024 * 1024


def _too_long(path: Path, number: int) -> ValueError:
    return ValueError(f"{path.name}: line {number} is longer than {MAX_ROW_CHARS:,} characters, the limit for one "
                      "row (about a million tokens, more than any model reads)")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(_lines(f, path), 1):
            if line.strip():
                rows.append(_json_row(path, number, line))
    return rows


def _lines(f: Any, path: Path) -> Iterator[str]:
    """The file's lines, each read with a bound: a line past the limit is refused before it is all in memory."""
    number = 0
    while line := f.readline(MAX_ROW_CHARS + 1):
        number += 1
        if len(line) > MAX_ROW_CHARS:
            raise _too_long(path, number)
        yield line


def _json_row(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path.name}: line {number} is not JSON: {exc.msg}") from None
    if not isinstance(row, dict):
        raise ValueError(f"{path.name}: line {number} must be a JSON object, got {type(row).__name__}")
    return {**row, "_line": number}


def _read_csv(path: Path) -> list[dict[str, Any]]:
    if csv.field_size_limit() < MAX_ROW_CHARS:  # csv's own default (131,072) would refuse a long but fine cell
        csv.field_size_limit(MAX_ROW_CHARS)
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        try:
            return _csv_rows(reader, path)
        except csv.Error:  # a cell past the limit (csv says only "field larger than field limit")
            raise _too_long(path, reader.line_num + 1) from None


def _csv_rows(reader: csv.DictReader[str], path: Path) -> list[dict[str, Any]]:
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
