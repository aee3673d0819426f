"""Finding a task family by name (built in) or by import path (a user's own), with its parameters.

A task spec is `NAME[:key=value,...]` for a built-in family (`multihop:hops=1-6,depth=3`) or
`package.module:Class[:key=value,...]` for one of your own (`mypkg.tasks:MyFamily`).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from .base import REQUIRED

BUILTIN = {
    "pipeline": "benchmarks.tasks.pipeline:Pipeline",
    "support": "benchmarks.tasks.support:Support",
    "fanout": "benchmarks.tasks.fanout:Fanout",
    "multihop": "benchmarks.tasks.multihop:Multihop",
    "repair": "benchmarks.tasks.repair:Repair",
}


def _split(spec: str) -> tuple[str, dict[str, str]]:
    head, params = spec, ""
    parts = spec.split(":")
    if "." in parts[0] and len(parts) >= 2:  # a module path: module:Class[:params]
        head, params = ":".join(parts[:2]), ":".join(parts[2:])
    elif len(parts) >= 2:
        head, params = parts[0], ":".join(parts[1:])
    raw: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad task parameter {item!r} in {spec!r}: use key=value")
        raw[key.strip()] = value.strip()
    return head.strip(), raw


def family_class(head: str) -> type:
    path = BUILTIN.get(head, head if ":" in head else None)
    if path is None:
        raise ValueError(f"unknown task {head!r}: choose from {', '.join(BUILTIN)} or give module.path:Class")
    module_name, _, class_name = path.partition(":")
    if head not in BUILTIN and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # a user's module next to where they run wva, as `python -m` would find it
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # a user's module may fail in any way: say which, in one line
        raise ValueError(f"cannot import task module {module_name!r}: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"module {module_name!r} has no task family {class_name!r}")
    missing = [attr for attr in REQUIRED if not hasattr(cls, attr)]
    if missing:
        raise ValueError(f"task family {path!r} does not satisfy the Family protocol: missing {', '.join(missing)}")
    return cls


def load_task(spec: str) -> Any:
    """A family instance from a task spec; every problem is a one-line ValueError."""
    if not spec or not spec.strip():
        raise ValueError(f"empty task spec: choose from {', '.join(BUILTIN)}")
    head, raw = _split(spec)
    cls = family_class(head)
    try:
        return cls(**raw)
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"task family {head!r} failed to start: {type(exc).__name__}: {exc}") from None


def builtin_families() -> list[Any]:
    return [load_task(name) for name in BUILTIN]
