"""The sweep's durable record: one JSON line per finished trial, appended and flushed as it ends.

After a crash, the journal holds every trial that finished; a last line torn by a kill mid-write
is detected (it does not parse, or it has no newline) and dropped with a warning, so `--resume`
reruns exactly that trial. When the sweep completes, the tidy files are written from the journal
and the journal is removed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

NAME = ".journal.jsonl"


@dataclass
class Loaded:
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # run_id -> {"row":..., "events": [...]}
    warnings: list[str] = field(default_factory=list)


def load(path: Path) -> Loaded:
    out = Loaded()
    if not path.exists():
        return out
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]
    if tail.strip():
        out.warnings.append(f"dropped a torn last line in {path.name} ({len(tail)} bytes): that trial will rerun")
    for number, raw in enumerate(complete, 1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            rid = record["row"]["run_id"]
        except (ValueError, KeyError, TypeError):
            out.warnings.append(f"dropped unreadable line {number} of {path.name}")
            continue
        out.records[rid] = record  # a duplicate (should not happen) keeps the last
    if tail.strip():  # cut it off now, so the next append starts on a clean line
        with path.open("r+b") as f:
            f.truncate(len(data) - len(tail))
    return out


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: TextIO | None = None

    def __enter__(self) -> Journal:
        self._file = self.path.open("a", encoding="utf-8")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def append(self, row: dict[str, Any], events: list[dict[str, Any]]) -> None:
        assert self._file is not None, "use Journal as a context manager"
        self._file.write(json.dumps({"row": row, "events": events}, default=str, ensure_ascii=False) + "\n")
        self._file.flush()  # to the OS: survives the process being killed (an OS crash may lose the tail)
