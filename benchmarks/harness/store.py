"""Where each finished trial of a sweep is, and the tidy files written from there, one trial at a time.

A finished trial is a line of a journal (the sweep's, or a shard's) or, for a folder written before, a
line of `runs.csv` with its block of lines in `events.jsonl`. `Sources` keeps, per position of the
plan, only where that is (arrays of file offsets: a few bytes a trial), never the trial itself; the
tidy files are then written in plan order by reading each trial back, so memory does not grow with
the sweep. A trial from the old files is copied as its bytes, so rewriting a folder changes none of them.

The old files are checked before they are trusted: a torn or malformed row, a row that is not this
plan's, a trial whose events do not agree with its row (as many model calls as `steps`, tool calls as
`tool_calls`, retries as `retries`, recoveries and compactions as `recoveries`: a torn last line or
lines removed by hand) — each is dropped with a warning and runs again.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.harness import journal, runs_csv
from benchmarks.harness.atomic import AtomicFile
from benchmarks.harness.plan import Plan

RUNS, EVENTS = "runs.csv", "events.jsonl"
NONE = -1
COUNTED = {"model_call": 0, "tool_call": 1, "retry": 2, "recovery": 3, "compaction": 3}
ROW_COUNTS = ("steps", "tool_calls", "retries", "recoveries")
_TORN_ID = re.compile(rb'^\{"run_id": "([0-9a-f]{16})"')
Keep = Callable[[dict[str, Any]], bool]  # whether a finished trial's row is kept (else the trial runs again)


class Sources:
    """Per plan position: its journal line (`offset * 256 + journal number`) or its lines in the old files."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.journal = array("q", [NONE]) * total
        self.journals: list[Path] = []
        self.row: array[int] | None = None  # offset of its line in the old runs.csv
        self.row_len: array[int] | None = None
        self.events: array[int] | None = None  # offset of its first line in the old events.jsonl
        self.events_len: array[int] | None = None
        self.foreign = 0  # finished trials found that are not this plan's
        self.warnings: list[str] = []
        self._numbers: dict[Path, int] = {}

    def has(self, position: int) -> bool:
        return self.journal[position] != NONE or (self.row is not None and self.row[position] != NONE)

    def missing(self) -> Iterator[int]:
        return (p for p in range(self.total) if not self.has(p))

    def count(self) -> int:
        return sum(1 for p in range(self.total) if self.has(p))

    def journaled(self) -> int:
        return sum(1 for p in range(self.total) if self.journal[p] != NONE)

    def from_files(self) -> int:
        return 0 if self.row is None else sum(1 for p in range(self.total) if self.row[p] != NONE)

    def add(self, plan: Plan, path: Path, offset: int, row: dict[str, Any], keep: Keep | None = None) -> None:
        """A journal line (of `path`, at `offset`) holding this row's trial (unless `keep` says to run it again)."""
        position = plan.position(row)
        if position is None:
            self.foreign += 1
            return
        if keep is not None and not keep(row):
            return
        if path not in self._numbers:
            self._numbers[path] = len(self.journals)
            self.journals.append(path)
        self.journal[position] = offset * 256 + self._numbers[path]


def scan_journals(out: Path, plan: Plan, sources: Sources, keep: Keep | None = None) -> None:
    """Every journal in `out`: where each of its trials is (read only: a torn line is only reported); a row
    `keep` refuses is left out, so its trial runs again."""
    for path in journal.paths(out):
        for offset, record in journal.scan(path, sources.warnings):
            sources.add(plan, path, offset, record["row"], keep)


def scan_outputs(out: Path, plan: Plan, sources: Sources, keep: Keep | None = None) -> None:
    """The old tidy files: each well-formed row of this plan whose events agree with it (module docstring)."""
    if not (out / RUNS).exists():
        return
    n = sources.total
    sources.row, sources.row_len = array("q", [NONE]) * n, array("q", [0]) * n
    counts = array("i", [0]) * (4 * n)
    ids: dict[str, int] = {}
    written, rows = _WRITTEN.pop(out, None), array("q")  # rows: per row read, its position (NONE: not kept)
    for offset, raw, row in runs_csv.read(out / RUNS, sources.warnings):
        position = plan.position(row)
        rows.append(NONE)
        if written is not None and (len(rows) > len(written.rows) or written.rows[len(rows) - 1] != offset):
            written = None
        if position is None:
            sources.foreign += 1
        elif sources.row[position] == NONE and (keep is None or keep(row)):
            sources.row[position], sources.row_len[position], rows[-1] = offset, len(raw), position
            ids[row["run_id"]] = position
            for k, column in enumerate(ROW_COUNTS):
                counts[4 * position + k] = int(row[column]) if row[column].lstrip("-").isdigit() else -1
    if written is not None and len(rows) == len(written.rows) and written.files == _signature(out):
        written.locate(sources, rows)  # the files this process wrote and checked: their events are where it put them
        return
    bad = _scan_events(out / EVENTS, sources, ids, counts)
    if bad:
        example = next(iter(bad.items()))
        sources.warnings.append(f"{len(bad)} trial(s) in {RUNS} dropped because their events in {EVENTS} do not agree "
                                f"with their rows (e.g. {example[1]}): they will rerun")
        for position in bad:
            sources.row[position] = NONE


def _scan_events(path: Path, sources: Sources, ids: dict[str, int], counts: array[int]) -> dict[int, str]:
    """Locate each kept trial's block of events; return the trials to drop, each with the reason."""
    n = sources.total
    sources.events, sources.events_len = array("q", [NONE]) * n, array("q", [0]) * n
    seen = array("i", [0]) * (4 * n)
    bad: dict[int, str] = {}
    current, offset = -1, 0
    for raw in _lines(path):
        where, offset = offset, offset + len(raw)
        event = _event(raw)
        if event is None:  # torn or unreadable: its trial (and the one before, if it cannot be told) reruns
            found = _TORN_ID.match(raw)
            for position in {ids.get(found.group(1).decode()) if found else None, current} - {None, -1}:
                bad[position] = "a torn or unreadable line in events.jsonl"
            continue
        position = ids.get(str(event.get("run_id")), -1)
        if position < 0:
            continue  # the events of a trial whose row was dropped or is not this plan's
        if position != current and sources.events[position] != NONE:
            bad[position] = "its events are not in one block"
        if sources.events[position] == NONE:
            sources.events[position] = where
        sources.events_len[position] = offset - sources.events[position]
        current = position
        if (k := COUNTED.get(str(event.get("kind")))) is not None:
            seen[4 * position + k] += 1
    for position in ids.values():
        got, want = seen[4 * position:4 * position + 4], counts[4 * position:4 * position + 4]
        if position not in bad and got != want:
            bad[position] = ", ".join(f"{c} {want[k]} in the row, {got[k]} in the events"
                                      for k, c in enumerate(ROW_COUNTS) if got[k] != want[k])
    return bad


def _event(raw: bytes) -> dict[str, Any] | None:
    if not raw.endswith(b"\n"):
        return None
    try:
        event = json.loads(raw)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def _lines(path: Path) -> Iterator[bytes]:
    if path.exists():  # a folder may have runs.csv and no events.jsonl (removed): every trial's events are missing
        with path.open("rb") as f:
            yield from f


def write_tidy(out: Path, sources: Sources) -> None:
    """runs.csv and events.jsonl, in plan order, from where each trial is (every position must have one)."""
    events, runs = AtomicFile(out / EVENTS), AtomicFile(out / RUNS)
    readers = [path.open("rb") for path in sources.journals]
    old = [(out / name).open("rb") if sources.row is not None and (out / name).exists() else None
           for name in (RUNS, EVENTS)]
    written: Written | None = Written()
    try:
        rows = runs_csv.RowWriter()
        runs.file.write(runs_csv.HEADER)
        for position in range(sources.total):
            located = sources.journal[position]
            at = (runs.file.tell(), events.file.tell())
            if located != NONE:
                record = journal.read_at(readers[located & 255], located >> 8)
                runs.file.write(rows.line(record["row"]))
                for event in record["events"]:
                    events.file.write((json.dumps(event, ensure_ascii=False, default=str) + "\n").encode("utf-8"))
                if written is not None and not _agrees(record):
                    written = None  # the next scan finds it out, as it would have
            else:
                _copy(old, sources, position)(runs.file, events.file)
            if written is not None:
                written.add(*at, events.file.tell())
        events.commit()
        runs.commit()
        if written is not None:
            written.files = _signature(out)
            _WRITTEN[out] = written
    except BaseException:
        events.abort()
        runs.abort()
        raise
    finally:
        for f in [*readers, *old]:
            if f is not None:
                f.close()


@dataclass
class Written:
    """Where write_tidy put each trial, in file order: a later scan of the same files in this process (the next
    look of a sequential sweep) takes its events from here instead of parsing all of events.jsonl again. Only
    while both files are the very ones written (same inode, size and change time); a new process scans."""

    rows: array[int] = field(default_factory=lambda: array("q"))  # offset of each row in runs.csv
    events: array[int] = field(default_factory=lambda: array("q"))  # offset of its first events line (NONE: none)
    events_len: array[int] = field(default_factory=lambda: array("q"))
    files: tuple[tuple[int, int, int], ...] = ()

    def add(self, row: int, start: int, end: int) -> None:
        self.rows.append(row)
        self.events.append(start if end > start else NONE)
        self.events_len.append(end - start)

    def locate(self, sources: Sources, rows: array[int]) -> None:
        sources.events, sources.events_len = array("q", [NONE]) * sources.total, array("q", [0]) * sources.total
        for k, position in enumerate(rows):
            if position != NONE:
                sources.events[position], sources.events_len[position] = self.events[k], self.events_len[k]


_WRITTEN: dict[Path, Written] = {}  # per folder, the tidy files this process wrote last


def _signature(out: Path) -> tuple[tuple[int, int, int], ...]:
    stats = [(out / name).stat() for name in (RUNS, EVENTS)]
    return tuple((st.st_ino, st.st_size, st.st_mtime_ns) for st in stats)


def _agrees(record: dict[str, Any]) -> bool:
    """Whether a journal record's events are what `_scan_events` accepts for its row (its run id's, and as many
    of each counted kind as the row says)."""
    row, seen = record["row"], [0] * len(ROW_COUNTS)
    for event in record["events"]:
        if not isinstance(event, dict) or event.get("run_id") != row["run_id"]:
            return False
        if (k := COUNTED.get(str(event.get("kind")))) is not None:
            seen[k] += 1
    want = [runs_csv.text(row.get(c)) for c in ROW_COUNTS]
    return seen == [int(w) if w.lstrip("-").isdigit() else -1 for w in want]


def _copy(old: list[Any], sources: Sources, position: int) -> Any:
    """A writer of one trial's lines as they are in the old files."""
    assert sources.row is not None and sources.row_len is not None, f"no source for trial {position}"
    assert sources.events is not None and sources.events_len is not None and sources.row[position] != NONE

    def copy(runs: Any, events: Any) -> None:
        old[0].seek(sources.row[position])
        runs.write(old[0].read(sources.row_len[position]))
        if sources.events[position] != NONE:
            old[1].seek(sources.events[position])
            events.write(old[1].read(sources.events_len[position]))

    return copy
