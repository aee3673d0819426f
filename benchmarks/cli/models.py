"""`wva models`: the model-spec forms and the simulator's knobs."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "models",
        help="list the model specs and the simulator's knobs",
        description="List the forms a --model spec takes and SimModel's knobs with their defaults.",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from patterns.specs import describe_model_specs

    print(describe_model_specs())
    return 0
