"""Importing a user's Python file (tools, scorer, designs) by path, with one-line errors."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any


def _where(exc: BaseException, path: Path) -> str:
    """`line N` of the user's file where an import failed, if the traceback passes through it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    lineno = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    line = frames[-1].lineno if frames else lineno
    return f" (line {line})" if line else ""


def import_file(path: Path, what: str) -> ModuleType:
    """The module at `path`, under a name unique to it (two task files may both have a tools.py)."""
    path = path.resolve()
    name = f"wva_user_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{what} {str(path)!r} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by name while it runs
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code may fail in any way: say where and why, in one line
        del sys.modules[name]
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ValueError(f"{what} {path.name!r} failed to import{_where(exc, path)}: {reason}") from None
    return module


def load_callable(ref: str, base: Path, what: str) -> Any:
    """`file.py:function` (relative to `base`) or `package.module:function` as a callable."""
    module_ref, _, attr = ref.rpartition(":")
    if not module_ref or not attr.isidentifier():
        raise ValueError(f"{what} {ref!r} must be module:function (a .py path or a package.module)")
    if module_ref.endswith(".py"):
        file = (base / module_ref).resolve()
        if not file.is_file():
            raise ValueError(f"{what} file {module_ref!r} does not exist (looked for {file})")
        module = import_file(file, what)
    else:
        try:
            module = importlib.import_module(module_ref)
        except Exception as exc:
            raise ValueError(f"{what} module {module_ref!r} failed to import: {type(exc).__name__}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"{what} {ref!r}: {module_ref!r} has no function {attr!r}")
    return fn
