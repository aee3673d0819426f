"""The project's import graph, read from the source (module-level and lazy imports alike).

`benchmarks/` is a one-way ladder of packages, each doing one job:

    cli → report → studies → criterion → harness → tasks → patterns

A module may import from its own rung or any rung below, never above. `benchmarks.names` (the names
the command line needs before anything heavy) sits at the bottom of `benchmarks/`; `benchmarks`
itself (its lazy `load_results`) is the package's front door, at the top. `benchmarks/perf/` holds
developer scripts, not part of the installed package.

*Rooms and floors.* A room is a module of a job package, or a subpackage of one taken whole (a task
family such as `tasks.dataset`, `report.charts`, `criterion.drawability`): the count that gives
`patterns/` its 33 rooms on 6 floors, `patterns.sim` and `patterns.workflows` each taken whole. The
floors are the rooms on the longest chain of imports between them.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from tests.import_graph import floors, graph

ROOT = Path(__file__).resolve().parents[1]
LADDER = ("cli", "report", "studies", "criterion", "harness", "tasks")
MAX_FLOORS = 9


def rung(module: str) -> int:
    """Height on the ladder: higher may import lower."""
    parts = module.split(".")
    if parts[0] == "patterns":
        return 0
    if module == "benchmarks":
        return len(LADDER) + 2
    if module == "benchmarks.names":
        return 1
    return len(LADDER) - LADDER.index(parts[1]) + 1


@pytest.fixture(scope="module")
def project() -> nx.DiGraph:
    return graph(ROOT, ("patterns", "benchmarks"), skip=("benchmarks.perf",))


def test_every_benchmarks_module_sits_on_a_rung() -> None:
    for module in graph(ROOT, ("benchmarks",), skip=("benchmarks.perf",)):
        if module not in ("benchmarks", "benchmarks.names", "benchmarks.__main__"):
            assert module.split(".")[1] in LADDER, f"{module} is on no rung of {LADDER}"


def test_the_import_graph_has_no_circle(project: nx.DiGraph) -> None:
    assert list(nx.simple_cycles(project)) == []


def test_no_import_runs_back_up_the_ladder(project: nx.DiGraph) -> None:
    upward = [(a, b) for a, b in project.edges
              if "__main__" not in a and rung(b) > rung(a)]
    assert upward == []


def rooms(g: nx.DiGraph, depth: int) -> nx.DiGraph:
    """The module graph with every module below `depth` dotted parts folded into its room."""
    room = {m: ".".join(m.split(".")[:depth]) for m in g}
    folded = nx.DiGraph()
    folded.add_nodes_from(set(room.values()))
    folded.add_edges_from((room[a], room[b]) for a, b in g.edges if room[a] != room[b])
    return folded


def test_benchmarks_stands_on_at_most_nine_floors() -> None:
    g = rooms(graph(ROOT, ("benchmarks",), skip=("benchmarks.perf", "benchmarks.__main__")), depth=3)
    assert floors(g) <= MAX_FLOORS, nx.dag_longest_path(g)


def test_the_room_count_is_the_one_that_gives_patterns_six_floors() -> None:
    g = rooms(graph(ROOT, ("patterns",)), depth=2)
    assert floors(g) == 6, nx.dag_longest_path(g)


def test_the_perf_scripts_are_not_installed() -> None:
    import tomllib

    from setuptools import find_packages

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(str(ROOT), include=find["include"], exclude=find.get("exclude", ()))
    assert "benchmarks.harness" in packages and not [p for p in packages if p.startswith("benchmarks.perf")]


def test_the_graph_reader_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from pkg import c\n")
    (pkg / "c.py").write_text("")
    g = graph(tmp_path, ("pkg",))
    assert {("pkg.a", "pkg.sub.b"), ("pkg.sub.b", "pkg.c")} <= set(g.edges)
    assert floors(g) == 3
