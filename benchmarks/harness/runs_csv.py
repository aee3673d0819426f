"""`runs.csv` line by line: a row written exactly as pandas' `to_csv` writes it, and a line read back checked.

Writing: each value as pandas writes it (None and NaN empty, booleans `True`/`False`, floats by `repr`,
the shortest text that reads back as the same float), quoted by the `csv` module as pandas quotes it;
so the file is the one `DataFrame(rows).to_csv(index=False)` gives, streamed one row at a time.

Reading: a line is kept only if it is whole and well formed — it ends with a newline (a torn last
line does not), it has one field per column, its `run_id` is 16 hex digits, its `trial` and `seed` are
integers and `success` is `True` or `False`. Anything else is dropped with a warning, so `--resume` runs
that trial again. A kept line is kept as its bytes: rewriting the file changes none of them.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.harness.trial import RUN_COLUMNS

_RUN_ID = re.compile(r"[0-9a-f]{16}")
_INT = re.compile(r"-?\d+")
HEADER = (",".join(RUN_COLUMNS) + "\n").encode()


def text(value: Any) -> str:
    """A value as runs.csv holds it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


class RowWriter:
    """`line(row)`: one runs.csv line (bytes) for a row dict, columns in `RUN_COLUMNS` order."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\n")

    def line(self, row: dict[str, Any]) -> bytes:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.writerow([text(row.get(column)) for column in RUN_COLUMNS])
        return self._buffer.getvalue().encode("utf-8")


def check(fields: list[str]) -> str | None:
    """Why a parsed line is not a well-formed row, or None."""
    if len(fields) != len(RUN_COLUMNS):
        return f"{len(fields)} fields, not {len(RUN_COLUMNS)}"
    row = dict(zip(RUN_COLUMNS, fields, strict=True))
    if not _RUN_ID.fullmatch(row["run_id"]):
        return f"run_id {row['run_id']!r} is not 16 hex digits"
    if not (_INT.fullmatch(row["trial"]) and _INT.fullmatch(row["seed"])):
        return "trial or seed is not an integer"
    if row["success"] not in ("True", "False"):
        return f"success {row['success']!r} is not True or False"
    return None


def read(path: Path, warnings: list[str]) -> Iterator[tuple[int, bytes, dict[str, str]]]:
    """(offset, the line's bytes, the row as text) for every well-formed row, in file order."""
    with path.open("rb") as f:
        header = f.readline()
        if header != HEADER:
            warnings.append(f"{path.name}: the header is not runs.csv's columns: its rows are not used")
            return
        offset = len(header)
        number = 1
        for raw in _records(f):
            number += 1
            where, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n") or raw.count(b'"') % 2:
                warnings.append(f"dropped a torn last line in {path.name} ({len(raw)} bytes): that trial will rerun")
                return
            fields = _fields(raw)
            why = "not UTF-8 CSV" if fields is None else check(fields)
            if why:
                warnings.append(f"dropped line {number} of {path.name} ({why}): that trial will rerun")
                continue
            assert fields is not None
            yield where, raw, dict(zip(RUN_COLUMNS, fields, strict=True))


def _records(f: Any) -> Iterator[bytes]:
    """The file's CSV records as bytes: a quoted field may hold a newline, so a record may span lines."""
    pending = b""
    for line in f:
        pending += line
        if pending.count(b'"') % 2 == 0:  # quotes inside a field are doubled: an odd count is still open
            yield pending
            pending = b""
    if pending:
        yield pending  # no newline at its end (or a quote left open): torn


def _fields(raw: bytes) -> list[str] | None:
    try:
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return None
    return rows[0] if len(rows) == 1 else None
