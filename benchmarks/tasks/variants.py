"""Designs by name: a pattern, a family's named variant of one, or a user's design from a Python file.

A sweep's `--patterns` list names *designs*, each run once per trial beside the agent's own runs (the agent
is one name among them, so it never runs twice):

- `route`: the family's design of the pattern (`design_route`), its declared one when it is the family's
  `natural_workflow`;
- `route:ladder`: a named variant the family offers beside it, the method `design_route__ladder(env)`
  (`pattern:variant`, the variant in lower case, letters, digits and single underscores), or one its
  `variants()` lists, built by its `design(name, env)` (a task file's `[workflow.<name>]` tables, `chain:<name>`).
  A family keeps its plain designs runnable this way when its declared one changes (`route:plain`);
- `mydesigns.py:my_design`: a user's design, the function `my_design(family, env)` in that file (a path,
  relative to the working directory), returning a spec from `patterns.workflows` (`Chain`, `Route`, ...).
  It runs on every task of the sweep; it may raise `ValueError` for a task it has no design for.

The name is what `runs.csv`'s `pattern` column records, and what `wva criterion --comparator` names. Every
workflow design that ran is one the `selected` comparator ranges over (`benchmarks.criterion`), so adding a
variant widens the selection and its simultaneous intervals; the declared comparator stays the family's
`natural_workflow`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from benchmarks.names import DRAWN, PATTERNS

_VARIANT = re.compile(r"^([a-z_]+):([a-z][a-z0-9]*(?:_[a-z0-9]+)*)$")
USER = "user"  # the pattern a user's design is listed under when it names none


def is_user_design(name: str) -> bool:
    """`file.py:function`: a user's design from a Python file."""
    head, sep, _ = name.rpartition(":")
    return bool(sep) and head.endswith(".py")


def pattern_of(name: str) -> str:
    """The pattern a design name belongs to: `route` for `route` and `route:ladder`; `user` for a user's file."""
    if is_user_design(name):
        return USER
    return name.split(":", 1)[0]


def check_name(name: str) -> str:
    """`name` if it is a pattern, `pattern:variant` of a workflow pattern, or `file.py:function` naming a
    function in an existing file; else a ValueError in one line."""
    if name in PATTERNS or name == DRAWN:
        return name
    if is_user_design(name):
        _user_function(name)
        return name
    m = _VARIANT.match(name)
    if m is None or m.group(1) not in PATTERNS or m.group(1) == "agent":
        workflows = ", ".join(p for p in PATTERNS if p != "agent")
        raise ValueError(f"unknown pattern {name!r}: name a pattern ({', '.join(PATTERNS)}), a variant "
                         f"pattern:variant of one of {workflows} (e.g. route:ladder), or file.py:function")
    return name


def _method(name: str) -> str:
    pattern, _, variant = name.partition(":")
    return f"design_{pattern}__{variant}"


def variants_of(family: Any) -> dict[str, str]:
    """The named variants a family offers (`pattern:variant` -> the first line of its method's docstring)."""
    out = {}
    for attr in sorted(dir(type(family))):
        pattern, sep, variant = attr.removeprefix("design_").partition("__")
        if attr.startswith("design_") and sep and pattern in PATTERNS and callable(getattr(family, attr)):
            doc = (getattr(type(family), attr).__doc__ or "").strip().splitlines()
            out[f"{pattern}:{variant}"] = doc[0] if doc else ""
    declared = getattr(family, "variants", None)  # a family whose variants are data (a task file's tables)
    return out | (dict(declared()) if callable(declared) else {})


def not_offered(family: Any, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """The variants among `names` the family does not offer, each with the reason (a user's design is offered
    by every family: it decides itself)."""
    offered = variants_of(family)
    return {n: f"{family.name} offers no variant {n} (its variants: {', '.join(offered) or 'none'})"
            for n in names if ":" in n and not is_user_design(n) and n not in offered}


def design_for(family: Any, name: str, env: Any) -> Any:
    """The spec of the design `name` for this family's trial environment `env`."""
    if is_user_design(name):
        spec = _user_function(name)(family, env)
        if spec is None:
            raise ValueError(f"{name} returned no design for task {family.name!r}")
        return spec
    if ":" in name and name != DRAWN:
        method = getattr(family, _method(check_name(name)), None)
        if method is not None:
            return method(env)
        if name not in variants_of(family):
            raise ValueError(not_offered(family, [name])[name])
    return family.design(name, env)


def _user_function(name: str) -> Any:
    path, _, function = name.rpartition(":")
    file = Path(path).resolve()
    if not file.is_file():
        raise ValueError(f"design {name!r}: no file {path!r}")
    if not function.isidentifier():
        raise ValueError(f"design {name!r}: {function!r} is not a function name")
    fn = getattr(_module(file, name), function, None)
    if not callable(fn):
        raise ValueError(f"design {name!r}: {path} has no function {function}(family, env)")
    return fn


def _module(file: Path, name: str) -> Any:
    """The user's file as a module, under a name unique to its path (imported once per process)."""
    module_name = f"wva_design_{file.stem}_{hashlib.sha256(str(file).encode()).hexdigest()[:8]}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise ValueError(f"design {name!r}: {file.name} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # pickling and dataclasses look a module up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code may fail in any way: one line, never a traceback
        del sys.modules[module_name]
        raise ValueError(f"design {name!r}: {file.name} failed to import: {type(exc).__name__}: {exc}") from None
    return module
