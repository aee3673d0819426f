"""`wva tasks`: the task families, their parameters and defaults."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "tasks", help="list the task families and their parameters",
        description="List the built-in task families, each with its parameters (NAME:key=value,...) and defaults.")
    return p


def describe_tasks() -> str:
    from benchmarks.names import DEFAULT_TASKS
    from benchmarks.tasks.registry import BUILTIN, family_class
    from benchmarks.tasks.variants import variants_of

    lines = []
    families = dict.fromkeys(name.split(":")[0] for name in BUILTIN)  # a preset (explore:readable=true) is its family
    for name in families:
        cls = family_class(name)
        lines.append(f"{name:<10} {cls.description}")
        for key, param in cls.PARAMS.items():
            lines.append(f"    {f'{key}={param.default}':<28} {param.help}")
        for variant, doc in variants_of(cls()).items():  # designs runnable by name beside the patterns
            lines.append(f"    {'design ' + variant:<28} {doc}")
    presets = [name for name in DEFAULT_TASKS if ":" in name]
    lines.append(f"\nThe default run: {', '.join(DEFAULT_TASKS)}"
                 + (f" ({', '.join(presets)}: the family with those parameters)." if presets else "."))
    lines.append("Set parameters as NAME:key=value,... (e.g. multihop:hops=1-6,depth=3); "
                 "your own family: module.path:Class; your own data: path/to/task.toml (docs/own-task.md). "
                 "Several tasks: multihop:hops=1-6,depth=3,support. A design named beside the patterns: "
                 "--patterns agent,route,route:ladder (docs/designs.md).")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    print(describe_tasks())
    return 0
