"""`wva sweep FAMILY --param P --values V1,V2,...`: one task moved along the predictability axis."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.names import DEFAULT_MODEL

from ._common import UsageError, model_spec, positive_int


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "sweep", help="run one task at several settings of one parameter; show where the verdict flips",
        description="Run the benchmark (every pattern) on FAMILY at each value of --param, in one bench, then write "
        "one criterion row per setting to OUT/sweep.csv and print where the verdict flips. "
        "Example: wva sweep multihop --param hops --values 3,2-4,1-6,1-10")
    p.add_argument("family", metavar="FAMILY", help="a task spec: NAME[:key=value,...] or module.path:Class")
    p.add_argument("--param", required=True, metavar="P", help="the family's parameter to vary ('wva tasks')")
    p.add_argument("--values", required=True, metavar="LIST",
                   help="comma-separated values; ranges use '-' (e.g. 3,2-4,1-6,1-10)")
    p.add_argument("--out", type=Path, default=Path("results/sweep"), metavar="DIR",
                   help="output folder (default: results/sweep)")
    p.add_argument("--instances", type=positive_int, default=20, metavar="N",
                   help="instances per setting (default: 20)")
    p.add_argument("--trials", type=positive_int, default=3, metavar="K", help="trials per instance (default: 3)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"model spec (default: {DEFAULT_MODEL}; 'wva models' lists the forms)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default: 0)")
    p.add_argument("--resume", action="store_true", help="keep finished trials in --out and run only the missing")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    return p


def run(args: argparse.Namespace) -> int:
    import asyncio

    from benchmarks.bench import BenchConfig
    from benchmarks.progress import Progress
    from benchmarks.sweep import flips_text, parse_values, run_sweep, settings

    try:
        values = parse_values(args.values)
        settings(args.family, args.param, values)  # every setting checked before anything runs
        from benchmarks.tasks.dataset import sim_warning
        from benchmarks.tasks.registry import load_task

        warning = sim_warning(args.model, [load_task(args.family)])
        config = BenchConfig(instances=args.instances, trials=args.trials, model=args.model, seed=args.seed,
                             out=args.out, resume=args.resume)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if warning:
        print(f"wva: warning: {warning}", file=__import__("sys").stderr)
    bar: dict[str, Progress] = {}

    def start(total: int, done: int) -> None:
        bar["p"] = Progress(total, done=done, quiet=args.quiet)

    outcome = asyncio.run(run_sweep(args.family, args.param, values, config, on_start=start,
                                    on_trial=lambda row: bar["p"].update(row["terminal"] == "error")))
    bar["p"].close()
    print(flips_text(outcome))
    print(f"\nsweep.csv, criterion.csv and the runs written to {outcome.out}/")
    return 0
