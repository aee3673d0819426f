"""The sweep's durable record: one JSON line per finished trial, appended and flushed as it ends.

After a crash, the journal holds every trial that finished; a last line torn by a kill mid-write
is detected (it does not parse, or it has no newline) and dropped with a warning, so `--resume`
reruns exactly that trial. When the sweep completes, the tidy files are written from the journal
and the journal is removed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

NAME = ".journal.jsonl"


@dataclass
class Loaded:
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # run_id -> {"row":..., "events": [...]}
    warnings: list[str] = field(default_factory=list)


def scan(path: Path, warnings: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(offset, record) for every whole, readable line, in file order; read only, never held all at once.

    A last line without its newline (torn by a kill mid-write) and a line that does not parse are
    reported in `warnings` and skipped: their trials rerun."""
    if not path.exists():
        return
    with path.open("rb") as f:
        offset = 0
        for number, raw in enumerate(f, 1):
            where, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n"):
                if raw.strip():
                    warnings.append(f"dropped a torn last line in {path.name} ({len(raw)} bytes): that trial "
                                    "will rerun")
                return
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                if not (isinstance(record["row"]["run_id"], str) and isinstance(record["events"], list)):
                    raise TypeError("not a trial's record")
            except (ValueError, KeyError, TypeError):
                warnings.append(f"dropped unreadable line {number} of {path.name}: that trial will rerun")
                continue
            yield where, record


def repair(path: Path) -> None:
    """Cut a torn last line off, so the next append starts on a clean line."""
    if not path.exists():
        return
    with path.open("r+b") as f:
        end = f.seek(0, 2)
        keep = end
        while keep > 0:
            start = max(0, keep - 65536)
            f.seek(start)
            block = f.read(keep - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            keep = start
        if keep < end:
            f.truncate(keep)


def read_at(f: Any, offset: int) -> dict[str, Any]:
    """The record whose line starts at `offset` of an open journal (binary)."""
    f.seek(offset)
    return json.loads(f.readline())  # type: ignore[no-any-return]


def load(path: Path) -> Loaded:
    """Every record of one journal, by run id (a torn last line is cut off the file)."""
    out = Loaded()
    for _, record in scan(path, out.warnings):
        out.records[record["row"]["run_id"]] = record  # a duplicate (should not happen) keeps the last
    repair(path)
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


# A sharded sweep (`--workers N`) has one journal per shard process beside the sweep's own, so a
# crash of any process loses nothing that finished; `--resume` reads them all.
SHARDS = ".journal.*.jsonl"


def shard_path(out: Path, tag: str) -> Path:
    return out / f".journal.{tag}.jsonl"


def paths(out: Path) -> list[Path]:
    """The sweep's journal and every shard journal in `out`, in a stable order."""
    return [out / NAME, *sorted(out.glob(SHARDS))]


def load_all(out: Path) -> Loaded:
    """Every journal in `out` (the sweep's and the shards'), merged by run id."""
    merged = Loaded()
    for path in paths(out):
        loaded = load(path)
        merged.records.update(loaded.records)
        merged.warnings += loaded.warnings
    return merged


def remove_all(out: Path) -> None:
    for path in paths(out):
        path.unlink(missing_ok=True)


class Tail:
    """Reads the records appended to a journal since the last call (a shard's, while it is written)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        with self.path.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        end = data.rfind(b"\n") + 1  # only whole lines: the last may still be being written
        self._offset += end
        return [json.loads(line) for line in data[:end].split(b"\n") if line.strip()]
