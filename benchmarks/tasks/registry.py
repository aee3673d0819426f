"""Finding a task family by name (built in), by import path (a user's own) or a task file, with its parameters.

A task spec is `NAME[:key=value,...]` for a built-in family (`multihop:hops=1-6,depth=3`),
`package.module:Class[:key=value,...]` for one of your own (`mypkg.tasks:MyFamily`), or
`path/to/task.toml[:key=value,...]` for a task file (`benchmarks/tasks/dataset/`).

A list of specs (`--tasks`) is read by `split_task_list`, with this grammar: the list is cut at
`;` and at `,`; a piece that reads `key=value` (an identifier, then `=`) continues the spec
before it as one more parameter; any other piece (a family name, a module path, a `.toml`
path) starts a new spec. So `multihop:hops=1-6,depth=3,support` is two specs. A piece that is
neither (e.g. `multihop:hops=1-6,3`: is `3` a value or a task?) is refused as ambiguous, and a
parameter with no spec before it is refused too.
"""

from __future__ import annotations

import importlib
import os
import re
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


_PARAM = re.compile(r"\s*[A-Za-z_]\w*\s*=")


def _starts_spec(piece: str) -> bool:
    """A piece that can only begin a task spec: a known family, a module path or a task file."""
    head = piece.split(":")[0].strip()
    return head in BUILTIN or ":" in piece or "." in head or "/" in head or os.sep in head


def split_task_list(text: str) -> list[str]:
    """The task specs in a `--tasks` list (grammar in the module docstring); one-line ValueErrors."""
    specs: list[str] = []
    for piece in (p.strip() for p in re.split(r"[;,]", text)):
        if not piece:
            continue
        if _PARAM.match(piece) and ":" not in piece.partition("=")[0]:
            if not specs:
                raise ValueError(f"task parameter {piece!r} comes before any task: write NAME:{piece}")
            specs[-1] += ("," if _split_head(specs[-1])[1] else ":") + piece
        elif _starts_spec(piece) or not specs:
            specs.append(piece)
        else:
            raise ValueError(f"ambiguous task list {text!r}: {piece!r} after {specs[-1]!r} is neither a "
                             f"key=value parameter nor a task ({', '.join(BUILTIN)}, module.path:Class or a "
                             ".toml file); separate tasks with ';'")
    if not specs:
        raise ValueError(f"no task in {text!r}: choose from {', '.join(BUILTIN)}")
    return specs


def _split_head(spec: str) -> tuple[str, str]:
    """(the family part, the parameters text) of one spec."""
    head, params = spec, ""
    parts = spec.split(":")
    if parts[0].strip().lower().endswith(".toml"):  # a task file: path.toml[:params]
        head, params = parts[0], ":".join(parts[1:])
    elif "." in parts[0] and len(parts) >= 2:  # a module path: module:Class[:params]
        head, params = ":".join(parts[:2]), ":".join(parts[2:])
    elif len(parts) >= 2:
        head, params = parts[0], ":".join(parts[1:])
    return head, params


def _split(spec: str) -> tuple[str, dict[str, str]]:
    head, params = _split_head(spec)
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
    if head.lower().endswith(".toml"):
        from .dataset import DatasetTask  # only a task file pays for reading one

        return DatasetTask.from_file(head, **raw)
    cls = family_class(head)
    try:
        return cls(**raw)
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"task family {head!r} failed to start: {type(exc).__name__}: {exc}") from None


def builtin_families() -> list[Any]:
    return [load_task(name) for name in BUILTIN]
