"""`wva bench`'s repeats phase, after the pilot (and the decided phase): the agent alone at several trials on each
task's first instances, into OUT/repeats/, where drawability is read (`benchmarks.studies.repeats`)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from typing import Any

from benchmarks.cli._common import UsageError
from benchmarks.names import REPEATS_INSTANCES, REPEATS_TRIALS


def add_repeats_flags(p: argparse.ArgumentParser) -> None:
    """`--no-repeats` and `--repeats`, beside `--no-drawn`."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-repeats", action="store_true",
                   help=f"skip the repeats phase, which runs after the sweep when it has fewer than {REPEATS_TRIALS} "
                   f"trials per instance: the agent alone, {REPEATS_TRIALS} trials on each task's first "
                   f"{REPEATS_INSTANCES} instances, into OUT/repeats/, where drawability is read (whether the agent's "
                   "choices depend on the instance needs its trials repeated). Skipped, drawability reads the sweep")
    g.add_argument("--repeats", action="store_true",
                   help="run the repeats phase on a model other than the simulator too (by default it runs on sim "
                   f"only: on a paid model it is {REPEATS_INSTANCES} x {REPEATS_TRIALS} agent trials per task)")


def check_repeats(args: argparse.Namespace) -> None:
    """A mix of flags the phase cannot honour, refused before anything runs (a UsageError: one line, exit 2)."""
    if getattr(args, "repeats", False) and getattr(args, "max_cost", None) is not None:
        raise UsageError("--max-cost caps one sweep, and --repeats asks for a second one (OUT/repeats/) whose spend "
                         "the cap would not cover: drop one")


def repeats_step(config: Any, outcome: Any, args: argparse.Namespace, callbacks: dict[str, Any],
                 run: Any) -> tuple[Any, list[str]]:
    """(the sweep's outcome, `nothing_to_do` only when the phase had nothing to do either; the lines to show at
    the end). `run`: the harness's `run_bench` (`benchmarks.studies.repeats.run_repeats` says why it is given)."""
    from benchmarks.studies.repeats import phase, run_repeats

    paid, skip = bool(getattr(args, "repeats", False)), bool(getattr(args, "no_repeats", False))
    p = phase(config, skip=skip, paid=paid)
    if p.config is not None and not args.quiet:
        print(f"wva: the repeats phase: the agent alone, {p.config.trials} trials on each task's first "
              f"{p.config.instances} instances, into {p.config.out}/, where drawability is read (--no-repeats skips "
              "it)", file=sys.stderr, flush=True)
    grown = asyncio.run(run_repeats(p, run, **callbacks))
    if grown is None:
        return outcome, [p.skipped] if p.skipped else []
    merged = replace(outcome, nothing_to_do=outcome.nothing_to_do and grown.nothing_to_do,
                     warnings=(*outcome.warnings, *grown.warnings))
    return merged, [f"repeats: {grown.trials} agent trials ({grown.ran} run now) in {grown.out}/: "
                    f"{p.config.trials} per instance on {p.config.instances} instances a task; drawability is read "
                    "there"]
