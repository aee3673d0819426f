"""A trial's scratch folder (`environment(instance, workdir)`): empty when the trial starts, removed or kept
empty after it.

Most families never write to it, and a folder made and removed per trial (`tempfile.TemporaryDirectory`) cost
two directory changes on the disk per trial: 1-4 ms of waiting each on the project's 2-core machine, on every
one of the default run's 12,000 trials. So a folder its trial left empty goes back to a pool for the next
trial in this process (an empty folder is an empty folder: its name was random anyway, and no result says
it); a folder the trial wrote to is removed, as before. `release()` removes the pool's folders: the end of
`run_specs`, and this process's exit (registered when the pool first keeps a folder, not at import).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

PREFIX = "wva-trial-"
_SPARE: list[str] = []  # empty folders of this process, ready for the next trial
_REGISTERED: list[bool] = []  # whether `release` runs at this process's exit


@contextmanager
def workdir() -> Iterator[str]:
    """An empty folder for one trial, for the `with` block's life."""
    path = _SPARE.pop() if _SPARE else tempfile.mkdtemp(prefix=PREFIX)
    try:
        yield path
    finally:
        if _empty(path):
            if not _REGISTERED:
                atexit.register(release)
                _REGISTERED.append(True)
            _SPARE.append(path)
        else:
            shutil.rmtree(path, ignore_errors=True)


def _empty(path: str) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:  # removed, or made unreadable, by the trial: not for reuse
        return False


def release() -> None:
    """Remove the pool's folders."""
    while _SPARE:
        shutil.rmtree(_SPARE.pop(), ignore_errors=True)

