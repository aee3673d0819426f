"""`wva bench --until-decided`: its flags and their checks (the sweep itself, look by look, is
`benchmarks.studies.until_decided`, which `bench.py` runs). Kept apart so that `bench.py` reads as it did."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.cli._common import UsageError, positive_int
from benchmarks.names import DEFAULT_INSTANCES


def add_until_decided(p: argparse.ArgumentParser) -> None:
    """`--until-decided` and its options (`benchmarks.studies.until_decided`)."""
    from benchmarks.names import DEFAULT_BATCH

    g = p.add_argument_group("stopping once decided", "run each task's instances in batches and stop it once its "
                             "verdict is decided, under a group-sequential design (docs/stopping-early.md)")
    g.add_argument("--until-decided", action="store_true",
                   help="look at every task's verdict after each batch; a decided task runs no more instances")
    g.add_argument("--max-instances", type=positive_int, default=None, metavar="N",
                   help="with --until-decided: the most instances a task may run (default: --instances, said at the "
                   "start; 'wva plan' on a pilot says how many a decision needs)")
    g.add_argument("--batch", type=positive_int, default=None, metavar="B",
                   help=f"with --until-decided: the instances added at each look (default: {DEFAULT_BATCH})")
    g.add_argument("--spending", choices=("obf", "pocock"), default=None,
                   help="with --until-decided: how the error budget is spent over the looks: obf "
                   "(O'Brien-Fleming-type, the default: a final look nearly as sharp as one fixed run) or pocock "
                   "(stops sooner on a moderate difference, a wider final look)")


def until_decided(args: argparse.Namespace) -> Any:
    """The group-sequential design `--until-decided` asks for, None without it; a UsageError for a bad mix."""
    from benchmarks.names import DEFAULT_BATCH

    given = {"--max-instances": args.max_instances, "--batch": args.batch, "--spending": args.spending}
    if not args.until_decided:
        flag = next((f for f, v in given.items() if v is not None), None)
        if flag:
            raise UsageError(f"{flag} goes with --until-decided")
        return None
    if args.max_instances is not None and args.instances not in (DEFAULT_INSTANCES, args.max_instances):
        raise UsageError(f"--instances {args.instances} and --max-instances {args.max_instances} disagree: with "
                         "--until-decided, --max-instances is the most instances a task may run")
    from benchmarks.criterion.sequential import design

    try:
        return design(args.batch or DEFAULT_BATCH, args.max_instances or args.instances, args.spending or "obf")
    except ValueError as exc:
        raise UsageError(str(exc).replace("the batch must", "--batch must")) from None



def cap_note(args: argparse.Namespace) -> str | None:
    """What `wva bench --until-decided` says before it starts when no --max-instances is given: the cap is
    --instances (a safe default for a paid model: a run never grows past what was asked for), which may be
    too few to decide; `wva plan` says how many a decision needs."""
    if not args.until_decided or args.max_instances is not None:
        return None
    return (f"--until-decided: each task runs at most {args.instances} instances (the cap is --instances without "
            "--max-instances); a task that is still undecided there stops inconclusive. 'wva plan' on a pilot folder "
            "says how many instances a decision needs: pass that as --max-instances")
