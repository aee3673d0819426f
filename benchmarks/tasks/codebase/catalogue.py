"""A catalogue of seeded bugs in real standard-library modules, for any family that fixes them: for each module,
its differential cases with the original's outcomes, and the mutations (`mutate.py`) verified to fail them and to
pass again once the line is restored (`verify.py`, one subprocess per module, in a fresh copy). Built once per
interpreter and configuration, and cached as JSON in the temporary directory (or `$WVA_<NAME>_CACHE`), so a
sweep's trials and worker processes share it. And a trial's project: the module copied in, one mutation applied,
its tests beside it (`check.py` as `tests/_check.py`)."""

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.tasks.codebase.mutate import Mutation, apply
from benchmarks.tasks.codebase.tools import ENV

HERE = Path(__file__).resolve().parent


def stdlib_path(module: str) -> Path:
    """The module's top-level file or package folder in the running interpreter's standard library."""
    base = Path(sysconfig.get_paths()["stdlib"]) / module.split(".")[0]
    return base if base.is_dir() else base.with_suffix(".py")


def files(module: str) -> list[str]:
    """The .py files copied for `module`, relative to the project's root (`email/utils.py`)."""
    src = stdlib_path(module)
    if src.is_file():
        return [src.name]
    return sorted(str(p.relative_to(src.parent)) for p in src.rglob("*.py") if "__pycache__" not in p.parts)


def copy_into(module: str, root: Path) -> None:
    src = stdlib_path(module)
    if src.is_dir():
        shutil.copytree(src, root / src.name, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copyfile(src, root / src.name)


def test_file(module: str) -> str:
    return f"tests/test_{module.replace('.', '_')}.py"


def build_project(root: Path, entry: dict[str, Any], m: dict[str, Any]) -> None:
    """A catalogue entry's module copied into `root`, the mutated line written, the tests beside it."""
    copy_into(entry["module"], root)
    path = root / m["file"]
    path.write_text(apply(path.read_text(encoding="utf-8"), Mutation(**m)), encoding="utf-8", newline="")
    (root / "tests").mkdir()
    (root / "tests" / "_check.py").write_text((HERE / "check.py").read_text(encoding="utf-8"))
    cases = ",\n".join(f"    ({json.dumps(c)}, {json.dumps(e)})" for c, e in zip(entry["cases"], entry["expected"],
                                                                                    strict=True))
    (root / test_file(entry["module"])).write_text(
        f'"""Each case\'s expected outcome is what the original {entry["module"]} gave."""\nimport _check\n\n'
        f'CASES = [\n{cases},\n]\n\nif __name__ == "__main__":\n    _check.main({entry["module"]!r}, CASES)\n')


@dataclass(frozen=True)
class Catalogue:
    """`targets`: (module, its cases) pairs; `keep` mutations kept per module, of at most `tries` tried, drawn by a
    generator seeded by `name` and the module. A change to any of them, or to the mechanism's files, rebuilds
    the cache."""

    name: str
    targets: tuple[tuple[str, tuple[str, ...]], ...]
    keep: int = 8
    tries: int = 48

    def _in_copy(self, module: str, cases: tuple[str, ...], job: dict[str, Any]) -> Any:
        """`verify.py`'s answer to `job`, run in a fresh copy of the module."""
        with tempfile.TemporaryDirectory(prefix=f"wva-{self.name}-build-") as tmp:
            root = os.path.realpath(tmp)
            copy_into(module, Path(root))
            job = {"root": root, "module": module, "cases": list(cases), "files": files(module), **job}
            done = subprocess.run([sys.executable, "-S", "-B", str(HERE / "verify.py")], input=json.dumps(job),
                                  capture_output=True, text=True, env=ENV, timeout=900, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{self.name}: verifying {module} failed: {done.stderr.strip()[-400:]}")
        return json.loads(done.stdout)

    def _build_one(self, target: tuple[str, tuple[str, ...]]) -> dict[str, Any]:
        module, cases = target
        found = self._in_copy(module, cases, {"seed": f"{self.name}-mutations:{module}", "keep": self.keep,
                                              "tries": self.tries})
        sizes = {f: len((stdlib_path(module).parent / f).read_text(encoding="utf-8").splitlines())
                 for f in files(module)}
        return {"module": module, "cases": list(cases), "sizes": sizes, **found}

    def verify(self, entry: dict[str, Any]) -> list[bool]:
        """Each of an entry's mutations checked again, in one subprocess: its cases fail with it, and pass once its
        line is restored."""
        return list(self._in_copy(entry["module"], tuple(entry["cases"]), {"verify": entry["mutations"]}))

    def path(self) -> Path:
        mechanism = [(HERE / n).read_text(encoding="utf-8") for n in ("mutate.py", "check.py", "verify.py")]
        parts = [sys.version, sysconfig.get_paths()["stdlib"], str(self.keep), str(self.tries), repr(self.targets)]
        digest = hashlib.sha256("\0".join(parts + mechanism).encode()).hexdigest()[:16]
        where = os.environ.get(f"WVA_{self.name.upper()}_CACHE") or tempfile.gettempdir()
        return Path(where) / f"wva-{self.name}-{digest}.json"

    def build(self, where: Path) -> list[dict[str, Any]]:
        """Verify every target afresh and write the catalogue to `where` (atomically); returns it."""
        available = [t for t in self.targets if stdlib_path(t[0]).exists()]
        with ThreadPoolExecutor(2) as pool:  # each a subprocess
            entries = list(pool.map(self._build_one, available))
        where.parent.mkdir(parents=True, exist_ok=True)
        part = where.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps({"python": sys.version, "targets": entries}), encoding="utf-8")
        os.replace(part, where)
        return entries

    def load(self) -> tuple[dict[str, Any], ...]:
        """The catalogue's entries (built on first use, then read from the cache)."""
        return _load(self)

    def mutations(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Every verified (entry, mutation), in catalogue order."""
        return [(t, m) for t in self.load() for m in t["mutations"]]


@functools.cache
def _load(catalogue: Catalogue) -> tuple[dict[str, Any], ...]:
    where = catalogue.path()
    if where.is_file():
        return tuple(json.loads(where.read_text(encoding="utf-8"))["targets"])
    return tuple(catalogue.build(where))
