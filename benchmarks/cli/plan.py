"""`wva plan DIR`: from a pilot run, how many instances a run needs for each task's verdict to decide."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.cli._common import UsageError, add_prices_option, apply_prices, positive_int, priced_spec
from benchmarks.cli.verdict_options import add_verdict_options, verdict_options


def share(text: str) -> float:
    """--effect: a difference in success, strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1 (a difference in success), got {text!r}")
    return value


def power(text: str) -> float:
    """--power: the chance of a right verdict to plan for, from 0.5 to 0.99."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0.5 to 0.99, got {text!r}") from None
    if not 0.5 <= value <= 0.99:
        raise argparse.ArgumentTypeError(f"expected a number from 0.5 to 0.99, got {text!r}")
    return value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "plan", help="size a run from a pilot: the instances each task's verdict needs",
        description="Treat a results folder as a pilot and simulate the verdict rule itself on planned runs "
        "resampled from its instances, under stated truths: no difference, either side better by the margin, "
        "and by --effect. Per task: the power the pilot's own size has, and the instances that reach --power "
        "at the pilot's spread and at its 80%% upper confidence limit; the largest of the latter decides "
        "whichever truth holds. Prints the plan and writes DIR/plan.csv.")
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by 'wva bench' (the pilot)")
    add_verdict_options(p)
    p.add_argument("--effect", type=share, default=None, metavar="E",
                   help="the smallest difference in success worth detecting (default: twice the margin)")
    p.add_argument("--power", type=power, default=0.8, metavar="P",
                   help="the chance of a right, decisive verdict to plan for (default 0.8)")
    p.add_argument("--max-instances", type=positive_int, default=10000, metavar="N",
                   help="the largest run the search considers (default 10000)")
    p.add_argument("--model", type=priced_spec, default=None, metavar="SPEC",
                   help="the model whose prices the estimate of the recommended run uses (default: the folder's; "
                   "on sim, its price_as)")
    add_prices_option(p)
    p.add_argument("--json", action="store_true", help="print the plan (plan.csv's rows) as one JSON document "
                   "(docs/json.md)")
    return p


def run(args: argparse.Namespace) -> int:
    from benchmarks.criterion.table import check_options
    from benchmarks.criterion.verdict import Options
    from benchmarks.harness.atomic import write_atomic
    from benchmarks.studies.plan_estimate import plan_estimate
    from benchmarks.studies.planning import plan_folder, plan_frame, plan_lines

    apply_prices(args)
    try:
        options = check_options(Options(**verdict_options(args)))
        plans = plan_folder(str(args.dir), options, args.effect, args.power, args.max_instances)
        estimated = plan_estimate(args.dir, plans, args.model)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if not plans:
        raise UsageError(f"{args.dir} has no task with both agent and workflow runs to plan from")
    from benchmarks.criterion.withheld import withheld_tasks

    withheld = withheld_tasks(args.dir)  # a task file on sim: no size decides it
    frame = plan_frame(plans)
    write_atomic(args.dir / "plan.csv", lambda f: frame.to_csv(f, index=False, lineterminator="\n",
                                                               float_format="%.6g"))
    if args.json:
        return plan_json(args, plans, frame, withheld, estimated)
    for plan in plans:
        print("\n".join(plan_lines(plan, args.power, args.max_instances)))
        if plan.task in withheld:
            print("  → on the simulator this task file's verdict is withheld at any size (no ground truth): these "
                  "sizes are for a run on a real model or a cassette, whose spread may differ")
    print("\n".join(["", *estimate_text(*estimated)]))
    print(f"\nwritten to {args.dir / 'plan.csv'}")
    return 0


def estimate_text(est: Any, left_out: list[str]) -> list[str]:
    """The estimate of the recommended run, and the tasks no size decides (left out of it)."""
    from benchmarks.cli.estimate_text import estimate_lines

    lines = estimate_lines(est, "the recommended run") if est is not None else []
    if left_out:
        lines.append(f"  left out of the estimate (no size up to --max-instances decides them): {', '.join(left_out)}")
    return lines


def plan_json(args: argparse.Namespace, plans: list[Any], frame: Any, withheld: list[str],
              estimated: tuple[Any, list[str]]) -> int:
    """`--json`: per task the instances a decision needs and the dataset's size, and plan.csv's rows (docs/json.md)."""
    from benchmarks.cli.json_out import emit, records, schema

    emit({"schema": schema("plan"), "dir": str(args.dir), "power": args.power, "effect": args.effect,
          "max_instances": args.max_instances, "written": str(args.dir / "plan.csv"), "withheld": withheld,
          "tasks": [{"task": p.task, "instances_needed": p.needed, "instances_available": p.available,
                     "pilot_instances": p.instances, "decidable_margin": p.decidable_margin} for p in plans],
          "rows": records(frame),
          "estimate": estimated[0].to_dict() if estimated[0] is not None else None, "estimate_left_out": estimated[1]})
    return 0
