"""Finding a task family by name (built in), by import path (a user's own) or a task file, with its parameters.

A task spec is `NAME[:key=value,...]` for a built-in family (`multihop:hops=1-6,depth=3`),
`package.module:Class[:key=value,...]` or `path/to/file.py:Class[:key=value,...]` for one of your
own (`mypkg.tasks:MyFamily`, `examples/minimal_family.py:Capitals`), or
`path/to/task.toml[:key=value,...]` for a task file (`benchmarks/tasks/dataset/`).

The built-in families are `names.DEFAULT_TASKS`, the one list (kept in `names` so that `wva --help`
need not import a family): family `x` is the package `benchmarks.tasks.x`, which exports its
class `X`. A user's module is imported as Python would import it, or else looked up explicitly in
the working directory (`examples.minimal_family` from the repository's folder); nothing is added
to `sys.path`.

A list of specs (`--tasks`) is read by `split_task_list`, with this grammar: the list is cut at
`;` and at `,`; a piece that reads `key=value` (an identifier, then `=`) continues the spec
before it as one more parameter; any other piece (a family name, a module path, a `.toml`
path) starts a new spec. So `multihop:hops=1-6,depth=3,support` is two specs. A piece that is
neither (e.g. `multihop:hops=1-6,3`: is `3` a value or a task?) is refused as ambiguous, and a
parameter with no spec before it is refused too.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.names import DEFAULT_TASKS, EXTRA_TASKS
from benchmarks.tasks.base import REQUIRED


# A built-in name may carry parameters (`explore:readable=true`): its module is the family's, without them.
def _module_path(name: str) -> str:
    family = name.split(":")[0]
    return f"benchmarks.tasks.{family}:{family.capitalize()}"


BUILTIN = {name: _module_path(name) for name in (*DEFAULT_TASKS, *EXTRA_TASKS)}
# What each name outside the default run is, for the messages that list the names.
EXTRA_MEANING = {"walks": "agent walks of known drawability, for checking the measure; not in the default run"}


def known_tasks() -> str:
    """The built-in names as a refusal lists them, each one outside the default run said what it is."""
    extras = "; ".join(f"{name} ({EXTRA_MEANING.get(name, 'not in the default run')})" for name in EXTRA_TASKS)
    return f"the default run's {', '.join(DEFAULT_TASKS)}; {extras}"


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
                             f"key=value parameter nor a task ({known_tasks()}; module.path:Class or a "
                             ".toml file); separate tasks with ';'")
    if not specs:
        raise ValueError(f"no task in {text!r}: choose from {known_tasks()}")
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


def _from_working_dir(module_name: str) -> ModuleType | None:
    """`module_name` found in the working directory (its top package registered in `sys.modules`, so that
    its own absolute imports work), or None; `sys.path` is left as it is."""
    top = module_name.split(".")[0]
    if top in sys.modules:  # its package is imported and lacks the module: a fresh copy would replace the package
        return None  # in `sys.modules` (its imported submodules then missing from it), not find the module
    spec = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()])
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[top] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[top]
        raise
    return importlib.import_module(module_name)


def _import_module(module_name: str) -> ModuleType:
    """A user's module: a `.py` file by path, else by name (as installed, or from the working directory)."""
    if module_name.endswith(".py"):
        from benchmarks.tasks.dataset.modules import import_file

        if not Path(module_name).is_file():
            raise ValueError(f"task module file {module_name!r} does not exist (looked in {os.getcwd()})")
        return import_file(Path(module_name), "task module")
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module_name + ".").startswith(exc.name + "."):  # a dependency is missing
            raise
        module = _from_working_dir(module_name)
        if module is None:
            raise ValueError(f"cannot import task module {module_name!r}: it is neither installed nor in the working "
                             f"directory {os.getcwd()}; run wva from the folder that holds it, or give the file "
                             f"as path/to/{module_name.replace('.', '/')}.py:Class") from None
        return module


def family_class(head: str) -> type:
    path = BUILTIN.get(head, head if ":" in head else None)
    if path is None:
        raise ValueError(f"unknown task {head!r}: choose from {known_tasks()}; or give module.path:Class")
    module_name, _, class_name = path.rpartition(":")
    try:
        module = _import_module(module_name)
    except ValueError:
        raise
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
        raise ValueError(f"empty task spec: choose from {known_tasks()}")
    head, raw = _split(spec)
    if head.lower().endswith(".toml"):
        from benchmarks.tasks.dataset import DatasetTask  # only a task file pays for reading one

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
