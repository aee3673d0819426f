"""A results folder's task families, rebuilt from its manifest: which spec built each task label, the family
itself (None when it no longer imports), and its workflows' fixed graphs (for the charts beside the agent's
walks, and for the drawn comparator, which needs the agent's design)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from benchmarks.criterion.read import task_specs

# task_specs is read.py's, offered here too: the charts and studies find a folder's families through this module
__all__ = ["load_family", "task_specs", "workflow_graph", "workflow_graphs"]


def load_family(spec: str | None) -> Any | None:
    """The family a spec builds, or None when it is no importable family (a user's label, a moved module)."""
    from benchmarks.tasks.registry import load_task

    if not spec:
        return None
    try:
        return load_task(spec)
    except Exception:  # unknown to this installation: everything that needs the family is unknown
        return None


def workflow_graphs(family: Any, patterns: Sequence[str], seed: int = 0) -> dict[str, nx.DiGraph]:
    """Each listed pattern's fixed graph for a family (those that cannot be built are left out)."""
    from benchmarks.tasks.variants import design_for

    graphs: dict[str, nx.DiGraph] = {}
    with tempfile.TemporaryDirectory(prefix="wva-graph-") as tmp:
        try:
            env = family.environment(family.instances(1, seed)[0], Path(tmp))
        except Exception:  # a user's family that fails here: the fit is unknown, not a crash
            return graphs
        for pattern in patterns:
            try:
                graphs[pattern] = design_for(family, pattern, env).graph
            except Exception:
                continue
    return graphs


def workflow_graph(spec: str, pattern: str, seed: int = 0) -> nx.DiGraph | None:
    """A pattern's fixed graph for a task, rebuilt from its spec (None if the family cannot be built)."""
    family = load_family(spec)
    return workflow_graphs(family, [pattern], seed).get(pattern) if family is not None else None
