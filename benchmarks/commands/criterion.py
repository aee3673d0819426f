"""`wva criterion DIR`: per task, is a workflow enough or is the agent worth it — from a results folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from ._common import UsageError


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "criterion", help="test the workflow-or-agent rule on a results folder; write criterion.csv",
        description="Per task: how predictable the agent's own traces are, the best workflow against the agent "
        "(success difference with a paired bootstrap 95%% CI, cost / latency / steps ratios, the Pareto front), "
        "the measured verdict, the chapter's prediction from predictability alone, and whether they agree. "
        "Prints the table and writes DIR/criterion.csv.")
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by 'wva bench'")
    return p


def table_text(df: pd.DataFrame) -> str:
    """A compact terminal table of the criterion (the notes follow it in `format_verdicts`)."""
    def num(x: Any, fmt: str) -> str:
        return "-" if pd.isna(x) else format(x, fmt)

    head = (f"{'task':<22} {'predict.':>8} {'best workflow':<17} {'agent':>6} {'wf':>6} {'diff [95% CI]':>21} "
            f"{'cost×':>6} {'lat.×':>6} {'steps×':>6}  {'verdict':<12} {'chapter':<9} agrees")
    lines = [head]
    for r in df.itertuples():
        ci = f"{num(r.success_diff, '+.2f')} [{num(r.diff_ci_low, '+.2f')}, {num(r.diff_ci_high, '+.2f')}]"
        agree = "-" if pd.isna(r.agrees) else ("yes" if r.agrees else "NO")
        lines.append(f"{r.task[:22]:<22} {num(r.predictability, '.2f'):>8} {r.best_workflow or '-':<17} "
                     f"{num(r.agent_success, '.0%'):>6} {num(r.workflow_success, '.0%'):>6} {ci:>21} "
                     f"{num(r.cost_ratio, '.2f'):>6} {num(r.latency_ratio, '.2f'):>6} {num(r.steps_ratio, '.2f'):>6}"
                     f"  {r.verdict:<12} {r.chapter_prediction or '-':<9} {agree}")
    return "\n".join(lines)


def load_or_fail(folder: Path) -> pd.DataFrame:
    """The criterion table of a folder, every problem with the folder a one-line UsageError."""
    from benchmarks.criterion import criterion_table

    try:
        return criterion_table(folder)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from benchmarks.criterion import NAME, format_verdicts, write_criterion

    df = load_or_fail(args.dir)
    write_criterion(args.dir, df)
    print(table_text(df))
    print()
    print(format_verdicts(df))
    print("\nnotes:")
    for r in df.itertuples():
        print(f"  {r.task}: {r.note}")
    print(f"\nwritten to {args.dir / NAME}")
    return 0
