"""`manifest.json`: what produced a results folder — versions, commit, model, seed, command, times."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from patterns.pricing import PRICES_READ_ON
from patterns.redact import redact

PACKAGES = ("workflow-vs-agent", "anthropic", "networkx", "pandas", "matplotlib", "numpy")


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
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def manifest(**fields: Any) -> dict[str, Any]:
    """The fields given, plus the environment; every string passed through `redact`."""
    doc: dict[str, Any] = {
        **fields,
        "command": redact(" ".join(["wva", *sys.argv[1:]])) if sys.argv else "",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in PACKAGES},
        "git": git_state(Path(__file__).resolve().parent.parent),
        "price_table_read_on": PRICES_READ_ON,
    }
    return {k: redact(v) if isinstance(v, str) else v for k, v in doc.items()}
