"""`wva criterion DIR`: per task, is a workflow enough or is the agent worth it — from a results folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import UsageError

if TYPE_CHECKING:  # pandas is imported where a table is made: `wva --help` must not pay for it
    import pandas as pd


def margin(text: str) -> float:
    """--margin: a share of success strictly between 0 and 0.5."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 0.5, got {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 0.5 (a share of success), got {value:g}")
    return value


def comparator(text: str) -> str:
    """--comparator: declared, selected, or one workflow pattern's name."""
    from benchmarks.names import PATTERNS

    flows = [p for p in PATTERNS if p != "agent"]
    if text in ("declared", "selected", *flows):
        return text
    raise argparse.ArgumentTypeError(f"expected declared, selected or a workflow ({', '.join(flows)}), got {text!r}")


def cost_margin(text: str) -> float:
    """--cost-margin: a share of cost from 0 to below 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to below 1, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to below 1 (a share of cost), got {value:g}")
    return value


def usd(text: str) -> float:
    """--value-per-success: a positive amount of USD."""
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number of USD, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of USD, got {text!r}")
    return value


def add_verdict_options(p: argparse.ArgumentParser) -> None:
    """--margin, --comparator, --cost-margin and --value-per-success: every command that prints verdicts."""
    p.add_argument("--margin", type=margin, default=0.05, metavar="DELTA",
                   help="non-inferiority margin on success (default 0.05: five points)")
    p.add_argument("--comparator", type=comparator, default="declared", metavar="NAME",
                   help="the workflow the agent is compared with: 'declared' (the family's own, else selected; the "
                   "default), 'selected' (the best workflow, with selection-proof intervals) or a pattern name")
    p.add_argument("--cost-margin", type=cost_margin, default=0.10, metavar="SHARE",
                   help="the saving that counts as cheaper: the cheaper side must cost at most 1 - SHARE of the "
                   "other (default 0.10: 10%%)")
    p.add_argument("--value-per-success", type=usd, default=None, metavar="USD",
                   help="what one success is worth: decide by net value per trial (success × USD − cost) instead")


def verdict_options(args: argparse.Namespace) -> dict[str, Any]:
    """The verdict options of parsed arguments, as `criterion_tables`/`write_criterion` take them."""
    return {"margin": args.margin, "comparator": args.comparator, "cost_margin": args.cost_margin,
            "value_per_success": args.value_per_success}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "criterion", help="test the workflow-or-agent rule on a results folder; write criterion.csv",
        description="Per task: how predictable the agent's own traces are (with a 95%% CI), the agent against a "
        "comparator workflow (declared by the family, named, or selected without bias): the paired success "
        "difference with the 97.5%% CI the rule reads (clustered by instance), the cost ratio with its 95%% CI, "
        "latency and steps ratios, the Pareto front, the price of an extra success where the more successful side "
        "costs more; the verdict by a symmetric, monotone rule with a success margin and a cost margin (or by net "
        "value per trial, with --value-per-success); the chapter's prediction from "
        "predictability alone, and whether they agree. Prints the table, writes DIR/criterion.csv and "
        "DIR/criterion_pairs.csv (the agent against every workflow, with simultaneous intervals).")
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by 'wva bench'")
    add_verdict_options(p)
    return p


def table_text(df: pd.DataFrame) -> str:
    """A compact terminal table of the criterion (the notes follow it in `format_verdicts`)."""
    import pandas as pd

    def num(x: Any, fmt: str) -> str:
        return "-" if pd.isna(x) else format(x, fmt)

    head = (f"{'task':<22} {'predict.':>8} {'comparator':<17} {'agent':>6} {'wf':>6} {'diff [97.5% CI]':>21} "
            f"{'cost×':>6} {'lat.×':>6} {'steps×':>6}  {'verdict':<12} {'chapter':<9} agrees")
    lines = [head]
    for r in df.itertuples():
        ci = f"{num(r.success_diff, '+.2f')} [{num(r.diff_ci_low, '+.2f')}, {num(r.diff_ci_high, '+.2f')}]"
        agree = "-" if pd.isna(r.agrees) else ("yes" if r.agrees else "NO")
        lines.append(f"{r.task[:22]:<22} {num(r.predictability, '.2f'):>8} {r.comparator or '-':<17} "
                     f"{num(r.agent_success, '.0%'):>6} {num(r.workflow_success, '.0%'):>6} {ci:>21} "
                     f"{num(r.cost_ratio, '.2f'):>6} {num(r.latency_ratio, '.2f'):>6} {num(r.steps_ratio, '.2f'):>6}"
                     f"  {r.verdict:<12} {r.chapter_prediction or '-':<9} {agree}")
    return "\n".join(lines)


def load_or_fail(folder: Path, **options: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The criterion and pairs tables of a folder, every problem with the folder a one-line UsageError."""
    from benchmarks.criterion import criterion_tables

    try:
        return criterion_tables(folder, **options)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from benchmarks.criterion import NAME, PAIRS, format_verdicts, write_criterion
    from benchmarks.criterion_io import folder_caveat

    df, pairs = load_or_fail(args.dir, **verdict_options(args))
    write_criterion(args.dir, df, pairs=pairs)
    print(table_text(df))
    print()
    print(format_verdicts(df))
    print("\nnotes:")
    for r in df.itertuples():
        print(f"  {r.task}: {r.note}")
    caveat = folder_caveat(args.dir)
    if caveat:
        print(f"\nNOT A MEASURE OF QUALITY: {caveat}")
    print(f"\nwritten to {args.dir / NAME} and {args.dir / PAIRS}")
    return 0
