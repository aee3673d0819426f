"""Files rewritten whole are written to a temporary file beside them and renamed into place,
so a reader (or a crash) never sees half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def _replace_with(path: Path, mode: str, write: Callable[[IO[Any]], None]) -> None:
    """`write` into a temporary file beside `path`, then rename it into place (nothing left on failure)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})) as f:
            write(f)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; results are meant to be read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, write: Callable[[IO[str]], None]) -> None:
    _replace_with(path, "w", write)


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, lambda f: f.write(text))


def write_atomic_bytes(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    _replace_with(path, "wb", write)


class AtomicFile:
    """A binary file written in pieces, then put in place at once: `commit()`, or `abort()` to leave no trace."""

    def __init__(self, path: Path) -> None:
        self.path = path
        fd, self._tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        self.file: IO[bytes] = os.fdopen(fd, "wb")

    def commit(self) -> None:
        self.file.close()
        os.chmod(self._tmp, 0o644)
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        self.file.close()
        Path(self._tmp).unlink(missing_ok=True)
