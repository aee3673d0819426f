"""The results folder as a place: can it be written, who is using it, and which files in it are the project's.

- `check_writable`: an `--out` that cannot be created or written is refused before any work.
- `FolderLock`: one sweep at a time per folder. `.wva.lock` holds the pid of the run that has it, under
  an advisory `fcntl.flock`, which the kernel drops when that process dies for any reason; a second run
  is refused, naming the holder. A lock file left by a run that is gone (its lock no longer held) is
  taken over with a warning. POSIX only (`fcntl`).
- `clear_project_files`: a fresh run removes what the project wrote there before — the tidy files, the
  report and its charts, journals and temporary files — and nothing else: a user's own files stay.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from pathlib import Path

from benchmarks.harness.errors import SweepRefused

LOCK = ".wva.lock"
FILES = ("runs.csv", "events.jsonl", "summary.csv", "manifest.json", "criterion.csv", "criterion_pairs.csv",
         "REPORT.md", "sweep.csv", "cost_vs_success.png", "latency_vs_success.png", "steps.png", "terminals.png",
         "context_growth.png", "pass_k.png", "criterion_map.png", "verdict_map.png", "learning_curve.png")
JOURNALS = (".journal.jsonl", ".journal.*.jsonl")


def check_writable(out: Path) -> None:
    """Refuse, before any work, an `--out` that cannot be created or written (nothing is left behind).

    Tried, not guessed from permission bits (root ignores those, a read-only mount does not): a
    nameless temporary file is opened in the folder, or in its nearest existing parent."""
    if out.is_symlink() and not out.exists():
        raise SweepRefused(f"--out {str(out)!r} is a symbolic link to nothing")
    where = out
    while not where.exists() and where != where.parent:
        where = where.parent
    if where == out and not out.is_dir():
        raise SweepRefused(f"--out {str(out)!r} exists and is not a folder")
    if not where.is_dir():
        raise SweepRefused(f"--out {str(out)!r} cannot be created: {str(where)!r} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as exc:
        what = "cannot be written" if where == out else f"cannot be created in {str(where)!r}"
        raise SweepRefused(f"--out {str(out)!r} {what}: {exc.strerror or exc}") from None


class FolderLock:
    """`lock.acquire()` (a `SweepRefused` if another live run holds it), `lock.release()`."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.path = out / LOCK
        self.warning: str | None = None
        self._fd: int | None = None

    def acquire(self) -> FolderLock:
        while self._fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise SweepRefused(f"{self.out}/ is in use by another wva run (pid {holder}): wait for it to end, "
                                   "or choose another --out") from None
            if not _same_file(fd, self.path):  # the holder removed it as we opened it: take the new one
                os.close(fd)
                continue
            previous = os.read(fd, 64).decode(errors="replace").strip()
            if previous:
                self.warning = f"took over a stale lock on {self.out}/ (pid {previous} is gone)"
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            self.path.unlink(missing_ok=True)  # before the lock goes: a waiting run then makes a new file
            os.close(self._fd)
            self._fd = None


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == path.stat().st_ino
    except FileNotFoundError:
        return False


def project_files(out: Path, tasks: list[str] = ()) -> list[Path]:
    """The files in `out` the project wrote: fixed names, journals, temporary files, per-task graph charts."""
    found = [out / name for name in FILES if (out / name).exists()]
    found += [p for pattern in JOURNALS for p in sorted(out.glob(pattern))]
    charts = [f"graph_{slug(task)}{end}" for task in tasks for end in (".png", "_drawn.png", "_drawn.json")]
    found += [out / name for name in charts if (out / name).exists()]
    return [*found, *stale_temp_files(out)]


def slug(text: str) -> str:
    """`charts.style.slug` (a chart's file name for a task), without importing matplotlib to clear a folder."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text.replace("=", "-")).strip("_") or "task"


def stale_temp_files(out: Path) -> list[Path]:
    """Temporary files an atomic write left behind when its process was killed (`.runs.csv.x1y2.tmp`)."""
    names = (*FILES, "events.jsonl")
    return sorted(p for p in out.glob(".*.tmp") if any(p.name.startswith(f".{name}.") for name in names))


def clear_project_files(out: Path, tasks: list[str] = ()) -> list[Path]:
    """Remove the project's files from `out` (see `project_files`); returns what was removed."""
    removed = project_files(out, tasks)
    for path in removed:
        path.unlink(missing_ok=True)
    return removed
