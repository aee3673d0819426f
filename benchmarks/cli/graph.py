"""`wva graph PATTERN TASK`: draw a pattern's fixed graph for one task as a PNG.

Every model decision is marked on its step ("model picks 1 of N"), and one that makes the design agent-like (more
than K next steps on a loop: `patterns.workflows.choices`) is marked AGENT-LIKE and outlined; a design refused when
it is built (a `Loop` around such a step, a task file holding one) is one line and exit 2."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.cli._common import UsageError


def design_name(text: str) -> str:
    from benchmarks.tasks.variants import check_name

    try:
        return check_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from benchmarks.names import PATTERNS

    p: argparse.ArgumentParser = subparsers.add_parser(
        "graph", help="draw a pattern's fixed graph for a task (PNG)",
        description="Draw the graph a pattern's design for TASK follows (nodes: llm, tool, code) to a PNG file.")
    p.add_argument("pattern", type=design_name, metavar="PATTERN",
                   help=f"one of: {', '.join(PATTERNS)}; or pattern:variant (route:ladder), or file.py:function")
    p.add_argument("task", metavar="TASK", help="a task spec: NAME[:key=value,...]")
    p.add_argument("--out", type=Path, default=None, metavar="PATH",
                   help="PNG file (default: PATTERN-TASK.png in the working directory); the path written is printed")
    return p


def design_graph(pattern: str, task: str) -> Any:
    """The networkx graph of `pattern`'s design for the first instance of `task`."""
    import tempfile

    from benchmarks.tasks.registry import load_task
    from benchmarks.tasks.variants import design_for

    family = load_task(task)
    instance = family.instances(1, 0)[0]
    with tempfile.TemporaryDirectory(prefix="wva-graph-") as workdir:
        env = family.environment(instance, Path(workdir))
        return marked(design_for(family, pattern, env).graph)


def marked(graph: Any) -> Any:
    """`graph` with each model decision's step labelled with its width, and an agent-like one flagged."""
    from patterns.workflows.choices import K, model_choices

    for c in model_choices(graph):
        wide = c.on_loop and c.branches > K
        node = graph.nodes[c.node]
        node["label"] = f"{'AGENT-LIKE: ' if wide else ''}model picks 1 of {c.branches}: {node.get('label', c.node)}"
        node["agent_like"] = wide
    return graph


def run(args: argparse.Namespace) -> int:
    try:
        graph = design_graph(args.pattern, args.task)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from benchmarks.harness.atomic import write_atomic_bytes
    from patterns.workflows.graph import draw, figure_size

    label = Path(args.task.split(":")[0]).stem if ".toml" in args.task.lower() else args.task  # a task file: its stem
    name = Path(args.pattern.rpartition(":")[0]).stem + "_" + args.pattern.rpartition(":")[2] \
        if args.pattern.rpartition(":")[0].endswith(".py") else args.pattern.replace(":", "_")
    out = args.out or Path(f"{name}-{label.replace(':', '_')}.png")
    if out.parent and not out.parent.is_dir():
        raise UsageError(f"folder {str(out.parent)!r} does not exist")
    fig, ax = plt.subplots(figsize=figure_size(graph))
    draw(graph, ax, title=f"{args.pattern} on {args.task}")
    write_atomic_bytes(out, lambda f: fig.savefig(f, format="png", dpi=110, bbox_inches="tight"))
    plt.close(fig)
    print(out.absolute())  # where it went, whichever folder wva ran from
    return 0
