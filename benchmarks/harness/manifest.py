"""`manifest.json`: what produced a results folder — settings, code, versions, model, seed, command, times.

It is written when a sweep starts (so a killed sweep can be resumed and checked) and again when it
ends. What decides whether two runs' trials may share a folder is in it, and is compared on resume:

- `SETTINGS`, the sweep's configuration (model, seed, patterns, tasks, trials, prompt caching, limits,
  retry policy, grader model). Not `instances`: a resume may extend a sweep with more instances (fewer
  would leave finished trials out of the plan, and those are refused as not this sweep's);
- `code_digest`, a SHA-256 of the package's own files (every file under `patterns/` and
  `benchmarks/`: the .py files and the data files such as the price table). Not the git commit alone:
  results are committed in a later commit than the one that produced them, and a working tree may
  differ from its commit. The commit and dirty flag are recorded beside it, for the humans;
- `packages`, the versions of the packages that compute the figures.
`fingerprint` is a digest of those three, so a manifest edited by hand no longer matches itself. With
`--resume --allow-mixed`, `mixed` lists every code version whose trials the folder holds.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from benchmarks.harness.errors import SweepRefused
from patterns.pricing import PRICES_READ_ON, added_prices
from patterns.redact import redact

PACKAGES = ("workflow-vs-agent", "anthropic", "networkx", "pandas", "matplotlib", "numpy")
SETTINGS = ("model", "seed", "patterns", "tasks", "trials", "prompt_cache", "max_tokens", "limits", "retry",
            "grader_model", "study", "message_batches")  # study: the records a study keeps in the manifest
OPTIONAL = ("study", "message_batches")  # recorded only when set (a plain sweep's manifest has neither)
ROOT = Path(__file__).resolve().parents[2]  # the project (this file is benchmarks/harness/manifest.py)
NAME = "manifest.json"


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def git_state(root: Path) -> dict[str, Any]:
    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    # dirty: the code differs from the commit (what the code digest covers, and the pinned dependencies); a
    # results folder inside the clone, rewritten by this very sweep, does not make the code uncommitted
    status = git("status", "--porcelain", "--untracked-files=no", "--", "patterns", "benchmarks", "pyproject.toml")
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 (first 16 hex digits) over every file of the `patterns` and `benchmarks` packages, by path."""
    digest = hashlib.sha256()
    for package in ("patterns", "benchmarks"):
        base = ROOT / package
        files = sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and p.suffix not in (".pyc", ".pyo"))
        for path in files:
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def fingerprint(doc: dict[str, Any]) -> str:
    """A digest of what is compared on resume (settings, code, versions, the mixed list)."""
    # a key only some runs record ("study") counts only where it is: older manifests keep their fingerprint
    keys = (*SETTINGS, "code_digest", "packages", "mixed")
    part = {key: doc.get(key) for key in keys if key not in OPTIONAL or key in doc}
    return hashlib.sha256(json.dumps(part, sort_keys=True, default=str).encode()).hexdigest()[:16]


def manifest(**fields: Any) -> dict[str, Any]:
    """The fields given, plus the environment and the code; every string passed through `redact`."""
    doc: dict[str, Any] = {
        **fields,
        "command": redact(" ".join(["wva", *sys.argv[1:]])) if sys.argv else "",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in PACKAGES},
        "git": git_state(ROOT),
        "code_digest": code_digest(),
        "price_table_read_on": PRICES_READ_ON,
        "prices_added": added_prices(),  # --prices FILE's entries (None: the built-in table alone)
    }
    doc = {k: redact(v) if isinstance(v, str) else v for k, v in doc.items()}
    return {**json.loads(json.dumps(doc, default=str)), "fingerprint": fingerprint(doc)}


def code_of(doc: dict[str, Any]) -> dict[str, Any]:
    """One code version as `mixed` lists it."""
    return {"commit": (doc.get("git") or {}).get("commit"), "dirty": (doc.get("git") or {}).get("dirty"),
            "code_digest": doc.get("code_digest"), "packages": doc.get("packages"), "started": doc.get("started")}


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The folder's manifest (None if it has none); a file that is not a JSON object is a `SweepRefused`
    naming the file."""
    path = out / NAME
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SweepRefused(f"{path} is not a readable manifest: {' '.join(str(exc).split())}") from None
    if not isinstance(doc, dict):
        raise SweepRefused(f"{path} is not a readable manifest: expected a JSON object")
    return doc
