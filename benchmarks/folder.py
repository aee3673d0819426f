"""The results folder as a place: can it be written, and which files in it are the project's."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .errors import SweepRefused


def check_writable(out: Path) -> None:
    """Refuse, before any work, an `--out` that cannot be created or written (nothing is left behind).

    Tried, not guessed from permission bits (root ignores those, a read-only mount does not): a
    nameless temporary file is opened in the folder, or in its nearest existing parent."""
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
