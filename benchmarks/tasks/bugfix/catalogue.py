"""The catalogue of `bugfix` instances: for each target, its cases with the original's outcomes, and the seeded
mutations verified to fail them (and to pass again once the line is restored). Built once per interpreter and
configuration, one subprocess per target (`child.py`), and cached as JSON in the temporary directory (or
`$WVA_BUGFIX_CACHE`), so a sweep's trials and worker processes share it."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.tasks.bugfix.modules import TARGETS, Target, cases

HERE = Path(__file__).resolve().parent
KEEP, TRIES = 8, 48  # mutations kept per target, and tried at most
ENV = {"PYTHONHASHSEED": "0", "PATH": os.defpath, "LC_ALL": "C.UTF-8"}  # the same for the catalogue and the tests


def stdlib_path(target: Target) -> Path:
    base = Path(sysconfig.get_paths()["stdlib"]) / target.copy
    return base if base.is_dir() else base.with_suffix(".py")


def files(target: Target) -> list[str]:
    """The target's .py files, relative to the project root (`email/utils.py`)."""
    src = stdlib_path(target)
    if src.is_file():
        return [src.name]
    return sorted(str(p.relative_to(src.parent)) for p in src.rglob("*.py") if "__pycache__" not in p.parts)


def copy_into(target: Target, root: Path) -> None:
    src = stdlib_path(target)
    if src.is_dir():
        shutil.copytree(src, root / src.name, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copyfile(src, root / src.name)


def _in_copy(target: Target, job: dict[str, Any]) -> Any:
    """`child.py`'s answer to `job`, run in a fresh copy of the target."""
    with tempfile.TemporaryDirectory(prefix="wva-bugfix-build-") as tmp:
        root = os.path.realpath(tmp)
        copy_into(target, Path(root))
        job = {"root": root, "module": target.module, "cases": cases(target), "files": files(target), **job}
        done = subprocess.run([sys.executable, "-S", "-B", str(HERE / "child.py")], input=json.dumps(job),
                              capture_output=True, text=True, env=ENV, timeout=900, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bugfix: verifying {target.module} failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)


def _build_one(target: Target) -> dict[str, Any]:
    found = _in_copy(target, {"seed": f"bugfix-mutations:{target.module}", "keep": KEEP, "tries": TRIES})
    sizes = {f: len((stdlib_path(target).parent / f).read_text(encoding="utf-8").splitlines()) for f in files(target)}
    return {"target": target.copy, "module": target.module, "cases": cases(target), "sizes": sizes, **found}


def verify(entry: dict[str, Any]) -> list[bool]:
    """Each of a catalogue target's mutations checked again, in one subprocess: its cases fail with it, and pass
    once its line is restored."""
    target = next(t for t in TARGETS if t.copy == entry["target"])
    return list(_in_copy(target, {"verify": entry["mutations"]}))


def digest() -> str:
    parts = [sys.version, sysconfig.get_paths()["stdlib"], str(KEEP), str(TRIES)]
    parts += [(HERE / name).read_text(encoding="utf-8") for name in ("modules.py", "mutate.py", "check.py", "child.py")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def path() -> Path:
    return Path(os.environ.get("WVA_BUGFIX_CACHE") or tempfile.gettempdir()) / f"wva-bugfix-{digest()}.json"


def build(where: Path) -> list[dict[str, Any]]:
    """Verify every target afresh and write the catalogue to `where` (atomically); returns it."""
    available = [t for t in TARGETS if stdlib_path(t).exists()]
    with ThreadPoolExecutor(2) as pool:  # each a subprocess
        entries = list(pool.map(_build_one, available))
    where.parent.mkdir(parents=True, exist_ok=True)
    part = where.with_suffix(f".{os.getpid()}.part")
    part.write_text(json.dumps({"python": sys.version, "targets": entries}), encoding="utf-8")
    os.replace(part, where)
    return entries


@functools.cache
def load() -> tuple[dict[str, Any], ...]:
    """The catalogue's targets (built on first use, then read from the cache)."""
    where = path()
    if where.is_file():
        return tuple(json.loads(where.read_text(encoding="utf-8"))["targets"])
    return tuple(build(where))


def mutations() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every verified (target, mutation), in catalogue order."""
    return [(t, m) for t in load() for m in t["mutations"]]
