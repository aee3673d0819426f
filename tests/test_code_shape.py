"""The code stays small enough to read: no Python file over 300 lines, no function over 60 (decorators
and docstring included), in the library, the harness, the examples and the tests."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ("patterns", "benchmarks", "examples", "tests")
MAX_FILE_LINES = 300
MAX_FUNCTION_LINES = 60


def python_files() -> list[Path]:
    return sorted(path for tree in TREES for path in (ROOT / tree).rglob("*.py"))


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, lines) of every function or method over the limit, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = (node.end_lineno or node.lineno) - first + 1
            if lines > MAX_FUNCTION_LINES:
                found.append((node.name, lines))
    return found


def test_the_check_finds_a_long_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n") == [("f", MAX_FUNCTION_LINES + 1)]
    assert long_functions("def g():\n    return 1\n") == []


def test_no_file_is_over_300_lines() -> None:
    too_long = {str(p.relative_to(ROOT)): n for p in python_files()
                if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES}
    assert too_long == {}


def test_no_function_is_over_60_lines() -> None:
    too_long = {f"{p.relative_to(ROOT)}:{name}": n for p in python_files()
                for name, n in long_functions(p.read_text(encoding="utf-8"))}
    assert too_long == {}
