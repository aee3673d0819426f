"""How `wva bench` decides: by default a pilot of every design, then the agent against each task's declared
workflow run on until decided (`benchmarks.studies.decided`); `--fixed` for one fixed-size run; `--until-decided`
for every design run in looks (`benchmarks.studies.until_decided`). The flags and their checks, kept apart so that
`bench.py` reads as it did."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.cli._common import UsageError, positive_int
from benchmarks.names import DEFAULT_INSTANCES


def add_until_decided(p: argparse.ArgumentParser) -> None:
    """`--fixed`, `--until-decided` and their options (docs/stopping-early.md)."""
    from benchmarks.names import DECIDED_BATCH, DECIDED_CAP, DEFAULT_BATCH

    g = p.add_argument_group("how the verdicts are decided", "by default every design runs on a pilot of --instances, "
                             "then each task's agent and declared workflow run on in batches, into OUT/decided/, "
                             "until the verdict is decided or the cap is reached (docs/stopping-early.md)")
    g.add_argument("--fixed", action="store_true",
                   help="one fixed-size run: every design on --instances, no decided phase (as is any run given "
                   "--instances N without --max-instances; the old default: --fixed --trials 3)")
    g.add_argument("--until-decided", action="store_true",
                   help="every design run in looks, in the folder itself; a decided task runs no more instances")
    g.add_argument("--max-instances", type=positive_int, default=None, metavar="N",
                   help=f"the most instances a task may run (default: {DECIDED_CAP} for the decided phase, said at "
                   "the start; with --until-decided: --instances). 'wva plan' on a pilot says how many a decision "
                   "needs")
    g.add_argument("--batch", type=positive_int, default=None, metavar="B",
                   help=f"the instances added at each look (default: {DECIDED_BATCH} for the decided phase, "
                   f"{DEFAULT_BATCH} with --until-decided)")
    g.add_argument("--spending", choices=("obf", "pocock"), default=None,
                   help="how the error budget is spent over the looks: obf "
                   "(O'Brien-Fleming-type, the default: a final look nearly as sharp as one fixed run) or pocock "
                   "(stops sooner on a moderate difference, a wider final look)")


def decided_design(args: argparse.Namespace) -> Any:
    """The decided phase's (cap, batch, spending), None with --fixed or --until-decided; a UsageError for a bad
    mix or size."""
    from benchmarks.names import DECIDED_BATCH, DECIDED_CAP

    if args.fixed or args.until_decided or (getattr(args, "fixed_size", False) and args.max_instances is None):
        return None
    if args.max_instances is None and not str(args.model).startswith("sim"):
        return None  # a paid model (or a cassette) grows past --instances only when told how far: `paid_note`
    if getattr(args, "max_cost", None) is not None:  # the decided phase is a second sweep, in its own folder
        raise UsageError("--max-cost caps one sweep, and the decided phase is a second one (OUT/decided/) whose spend "
                         "the cap would not cover: add --fixed, or decide with --until-decided --max-cost USD")
    cap, batch = args.max_instances or DECIDED_CAP, args.batch or DECIDED_BATCH
    if cap < args.instances:
        raise UsageError(f"--max-instances {cap} is below the pilot's --instances {args.instances}: the decided phase "
                         "runs on from the pilot's instances (--fixed for one fixed-size run)")
    from benchmarks.criterion.sequential import design

    try:
        return design(batch, cap, args.spending or "obf")
    except ValueError as exc:
        raise UsageError(str(exc).replace("the batch must", "--batch must")) from None


def paid_note(args: argparse.Namespace) -> str | None:
    """What a run on a model other than the simulator says when it skips the decided phase (no cap given)."""
    if args.fixed or args.until_decided or args.max_instances is not None or str(args.model).startswith("sim") or \
            getattr(args, "fixed_size", False):
        return None
    return (f"no decided phase: on {args.model} a run grows past --instances ({args.instances}) only with "
            "--max-instances N (money); 'wva plan' on this folder says how many instances a decision needs")


def decided_note(args: argparse.Namespace, d: Any) -> str:
    """What the default run says as it starts: the pilot, the cap and the looks."""
    looks = ", ".join(map(str, d.looks))
    return (f"every design runs on a pilot of {args.instances} instances x {args.trials} trial(s); then each task's "
            f"agent and declared workflow run on into {args.out}/decided/ until the verdict is decided, at most "
            f"{d.max_instances} instances (looks at {looks}; {d.spending} spending; --max-instances N sets the cap, "
            "--fixed runs one fixed-size sweep)")


def until_decided(args: argparse.Namespace) -> Any:
    """The group-sequential design `--until-decided` asks for, None without it; a UsageError for a bad mix."""
    from benchmarks.names import DEFAULT_BATCH

    given = {"--max-instances": args.max_instances, "--batch": args.batch, "--spending": args.spending}
    if args.fixed and args.until_decided:
        raise UsageError("--fixed and --until-decided contradict each other: choose one")
    if not args.until_decided:
        flag = next((f for f, v in given.items() if v is not None), None)
        if flag and args.fixed:
            raise UsageError(f"{flag} sets the looks, and --fixed runs none: drop one")
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


def designs(args: argparse.Namespace) -> tuple[Any, Any]:
    """(--until-decided's design, the decided phase's), each None when not run. `--instances N` given is a size
    asked for, run as asked (no decided phase unless --max-instances caps one); not given, the pilot's default."""
    args.fixed_size = args.instances is not None
    args.instances = args.instances or DEFAULT_INSTANCES
    return until_decided(args), decided_design(args)


def start_notes(args: argparse.Namespace, decided: Any) -> list[str]:
    """What the run says on stderr as it starts (nothing with --quiet): the cap, and how it will decide. (On a
    paid model without a cap, `paid_note` is said at the end, beside the verdicts: a pre-flight error comes first.)"""
    notes = [cap_note(args), decided and decided_note(args, decided)]
    return [] if args.quiet else [n for n in notes if n]
