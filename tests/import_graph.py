"""The static import graph of the project's packages, read from the source: module-level and lazy imports
alike, relative ones resolved (tests/test_layering.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(modules: set[str], name: str) -> str | None:
    """The module `name` lives in: itself, or the nearest package above it (`pkg.attr` → `pkg`)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """What an import statement names, most specific first (`from a import b` → `a.b`, then `a`)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    return [f"{base}.{a.name}" for a in node.names] + [base]


def graph(root: Path, packages: tuple[str, ...], skip: tuple[str, ...] = ()) -> nx.DiGraph:
    """Modules of `packages` (minus the `skip` prefixes) as nodes, an edge for each import of one another."""
    files = {module_name(root, p): p for package in packages for p in (root / package).rglob("*.py")}
    files = {m: p for m, p in files.items() if not any(m == s or m.startswith(s + ".") for s in skip)}
    names = set(files)
    g = nx.DiGraph()
    g.add_nodes_from(names)
    for module, path in files.items():
        for node in ast.walk(ast.parse(path.read_text())):
            for target in _targets(node, module, path.name == "__init__.py"):
                if any(target == s or target.startswith(s + ".") for s in skip):
                    break
                hit = _resolve(names, target)
                if hit and hit != module:
                    g.add_edge(module, hit)
                    break
    return g


def floors(g: nx.DiGraph) -> int:
    """Modules on the longest chain of imports (a graph with a circle has no floors: networkx raises)."""
    return nx.dag_longest_path_length(g) + 1
