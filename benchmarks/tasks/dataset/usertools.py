"""The tools of a task file: a Python module whose `@tool` functions (or, if it has none, whose
public, typed and documented functions) become the tools the designs offer.

A function that cannot be described to a model (no docstring, a parameter without a type hint,
`*args`) is refused, naming the tool and why; so is a module that fails to import. The module is
imported once, so the same functions serve every trial: a tool that keeps state between calls
must keep it per trial itself (or better, read it from files it does not change).
"""

from __future__ import annotations

import inspect
from pathlib import Path

from benchmarks.tasks.dataset.modules import import_file
from patterns.tools import Tool, ToolSet, tool


def load_tools(path: Path) -> ToolSet:
    module = import_file(path, "tools module")
    marked = [v for v in vars(module).values() if isinstance(v, Tool)]
    if marked:
        return ToolSet(marked)
    functions = [v for k, v in vars(module).items() if inspect.isfunction(v) and not k.startswith("_")
                 and v.__module__ == module.__name__]
    tools = []
    for fn in functions:
        try:
            tools.append(tool(fn))
        except (TypeError, NameError) as exc:
            raise ValueError(f"tools module {path.name!r}: tool {fn.__name__!r} cannot be offered: {exc}") from None
    if not tools:
        raise ValueError(f"tools module {path.name!r} defines no tools: write typed, documented functions "
                         "(or mark them with @tool)")
    return ToolSet(tools)
