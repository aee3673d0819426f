"""`wva sweep FAMILY (--param P | --model-knob K) --values V1,V2,... [--by P2 | --by-model-knob K2 --by-values ...]`:
one task moved along one axis (a task parameter or a SimModel knob), or over a grid of two."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.cli._common import (
    PROMPT_CACHE_HELP,
    CommandFailed,
    UsageError,
    add_prices_option,
    apply_prices,
    at_most,
    model_spec,
    on_off,
)
from benchmarks.cli.verdict_options import add_verdict_options, verdict_options
from benchmarks.names import DEFAULT_MODEL, MAX_INSTANCES, MAX_TRIALS, PATTERNS


def _designs(text: str) -> tuple[str, ...]:
    items = tuple(filter(None, (t.strip() for t in text.split(","))))
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "sweep", help="run one task at several settings of a parameter or model knob; show where the verdict flips",
        description="Run the benchmark (every pattern) on FAMILY at each value of --param (a task parameter) or "
        "--model-knob (a SimModel knob: one bench per value, in a subfolder), optionally over a grid with a second "
        "axis (--by or --by-model-knob, with --by-values), then write one criterion row per point to OUT/sweep.csv "
        "and print where the verdict flips. Examples: wva sweep multihop --param hops --values 3,2-4,1-6,1-10; "
        "wva sweep multihop --model-knob error_correlation --values 0,0.5,0.9 --by depth --by-values 3,6")
    p.add_argument("family", metavar="FAMILY", help="a task spec: NAME[:key=value,...] or module.path:Class")
    first = p.add_mutually_exclusive_group(required=True)
    first.add_argument("--param", metavar="P", help="the family's parameter to vary ('wva tasks')")
    first.add_argument("--model-knob", metavar="K", help="a SimModel knob to vary ('wva models'); needs a sim model")
    p.add_argument("--values", required=True, metavar="LIST",
                   help="comma-separated values; ranges use '-' (e.g. 3,2-4,1-6,1-10)")
    second = p.add_mutually_exclusive_group()
    second.add_argument("--by", metavar="P2", help="a second task parameter: a grid, drawn as the verdict map")
    second.add_argument("--by-model-knob", metavar="K2", help="a second SimModel knob: a grid")
    p.add_argument("--by-values", metavar="LIST", help="the second axis's values")
    p.add_argument("--out", type=Path, default=Path("results/sweep"), metavar="DIR",
                   help="output folder (default: results/sweep)")
    p.add_argument("--instances", type=at_most(MAX_INSTANCES, "instances per task"),
                   default=20, metavar="N",
                   help="instances per setting (default: 20)")
    p.add_argument("--patterns", type=_designs, default=PATTERNS, metavar="LIST",
                   help="comma-separated designs to run at each setting, as for 'wva bench' (default: all); the "
                   "verdict needs the agent and the family's declared comparator (e.g. agent,chain)")
    p.add_argument("--trials", type=at_most(MAX_TRIALS, "trials per instance"), default=3, metavar="K",
                   help="trials per instance (default: 3)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"model spec (default: {DEFAULT_MODEL}; 'wva models' lists the forms)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default: 0)")
    p.add_argument("--prompt-cache", type=on_off, default=True, metavar="on|off", help=PROMPT_CACHE_HELP)
    p.add_argument("--resume", action="store_true", help="keep finished trials in --out and run only the missing")
    p.add_argument("--overwrite", action="store_true", help="start again in an --out that holds finished trials")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    add_verdict_options(p)  # how each setting's verdict is reached
    add_prices_option(p)
    p.add_argument("--json", action="store_true",
                   help="print every setting's criterion row (sweep.csv) and the flips as one JSON document "
                   "(docs/json.md)")
    return p


def run(args: argparse.Namespace) -> int:
    import asyncio

    from benchmarks.cli.progress import Progress, sweep_progress
    from benchmarks.criterion.render import flips_text
    from benchmarks.harness.bench import BenchConfig
    from benchmarks.studies.sweep import Axis, parse_values, points, run_sweep
    from patterns.options import RequestOptions

    apply_prices(args)
    try:
        axes = [Axis(args.param or args.model_knob, tuple(parse_values(args.values)), knob=args.param is None)]
        second = args.by or args.by_model_knob
        if (second is None) != (args.by_values is None):
            raise ValueError("--by/--by-model-knob and --by-values go together")
        if second is not None:
            axes.append(Axis(second, tuple(parse_values(args.by_values)), knob=args.by is None))
        points(args.family, axes, args.model)  # every point checked before anything runs
        from benchmarks.tasks.dataset import sim_warning
        from benchmarks.tasks.registry import load_task

        warning = sim_warning(args.model, [load_task(args.family)])
        config = BenchConfig(patterns=args.patterns, instances=args.instances, trials=args.trials, model=args.model,
                             seed=args.seed, out=args.out, resume=args.resume, overwrite=args.overwrite,
                             options=RequestOptions(prompt_cache=args.prompt_cache))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if warning:
        print(f"wva: warning: {warning}", file=__import__("sys").stderr)
    bar: dict[str, Progress] = {}

    def start(total: int, done: int) -> None:
        bar["p"] = sweep_progress(total, done, args.quiet, args.model)

    from benchmarks.harness.errors import SweepRefused, SweepStopped

    try:
        outcome = asyncio.run(run_sweep(args.family, axes, config, on_start=start,
                                        on_trial=lambda row: bar["p"].trial(row),
                                        verdict=verdict_options(args)))
    except SweepRefused as exc:  # a folder's rules or a refused pre-flight request (benchmarks.harness.resume)
        raise UsageError(str(exc)) from None
    except SweepStopped as exc:
        raise CommandFailed(str(exc)) from None
    finally:
        if "p" in bar:
            bar["p"].close()
    if not outcome.table.empty:  # drawn here: a knob sweep's folder has no runs of its own for `wva report`
        from benchmarks.report.charts.verdict_map import verdict_map

        verdict_map(outcome.table, outcome.out)
    if args.json:
        return sweep_json(args, axes, outcome)
    print(flips_text(outcome.table, grid=outcome.grid))
    print(f"\nsweep.csv, verdict_map.png, criterion.csv and the runs written to {outcome.out}/")
    return 0


def sweep_json(args: argparse.Namespace, axes: list[Any], outcome: Any) -> int:
    """`--json`: every setting's criterion row (sweep.csv) and the flips, as one document (docs/json.md)."""
    from benchmarks.cli.json_out import emit, records, schema
    from benchmarks.criterion.render import flips_of

    flips = [] if outcome.grid or outcome.table.empty else [
        {"from_value": a, "to_value": b, "from_verdict": x, "to_verdict": y}
        for a, b, x, y in flips_of(outcome.table)]
    emit({"schema": schema("sweep"), "family": args.family, "out": str(outcome.out), "grid": bool(outcome.grid),
          "axes": [{"name": a.name, "values": [str(v) for v in a.values], "model_knob": a.knob} for a in axes],
          "points": records(outcome.table), "flips": flips})
    return 0
