"""`wva criterion DIR`: per task, is a workflow enough or is the agent worth it — from a results folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.cli._common import UsageError
from benchmarks.cli.verdict_options import add_verdict_options, verdict_options

if TYPE_CHECKING:  # pandas is imported where a table is made: `wva --help` must not pay for it
    import pandas as pd


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "criterion", help="test the workflow-or-agent rule on a results folder; write criterion.csv",
        description="Per task: drawability — the share of unseen instances' agent walks that a graph drawn from "
        "the agent's walks on 10 other instances covers (with a 95% CI) — and the drawn graph's size; the agent "
        "against a comparator workflow (declared by the family, named, selected without bias, or 'drawn': the "
        "drawn graph run as a workflow on the instances it was not drawn from, DIR/drawn/): the paired success "
        "difference with the 97.5% CI the rule reads (clustered by instance), the cost ratio with its 95% CI, "
        "latency and steps ratios, the Pareto front, the price of an extra success where the more successful side "
        "costs more; the verdict by a symmetric, monotone rule with a success margin and a cost margin (or by net "
        "value per trial, with --value-per-success); the chapter's prediction from drawability alone (workflow at "
        "or above a threshold chosen on synthetic walks), and whether they agree. Prints the table, writes "
        "DIR/criterion.csv and DIR/criterion_pairs.csv (the agent against every workflow, with simultaneous "
        "intervals); with a --comparator other than 'declared', DIR/criterion_<comparator>.csv instead, so "
        "criterion.csv (what REPORT.md renders) never changes under another question.")
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by 'wva bench'")
    add_verdict_options(p)
    p.add_argument("--replicates", type=_folders, default=None, metavar="DIR1,DIR2,...",
                   help="the same sweep run at other seeds: every seed's runs pooled into one verdict per task "
                   "(instances clustered within each seed) and the share of seeds whose own verdict agrees, added to "
                   "criterion.csv; each folder's verdicts and the pooled ones written to DIR/replicates.csv")
    p.add_argument("--json", action="store_true",
                   help="print the table (every column of criterion.csv) and the pairs as one JSON document "
                   "(docs/json.md)")
    return p


def _folders(text: str) -> list[Path]:
    folders = [Path(x.strip()) for x in text.split(",") if x.strip()]
    if not folders:
        raise argparse.ArgumentTypeError("expected comma-separated results folders")
    return folders


def load_or_fail(folder: Path, **options: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The criterion and pairs tables of a folder, every problem with the folder a one-line UsageError."""
    from benchmarks.criterion.table import criterion_tables

    try:
        return criterion_tables(folder, **options)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from benchmarks.criterion.read import folder_caveat
    from benchmarks.criterion.render import format_verdicts, table
    from benchmarks.criterion.table import NAME, PAIRS, criterion_file, write_criterion

    if args.replicates:
        from benchmarks.criterion.replicates import replicate_verdicts, write_replicates
        from benchmarks.criterion.table import criterion_table
        from benchmarks.criterion.verdict import Options

        def criterion_of(folder: Path) -> pd.DataFrame:
            return criterion_table(folder, **verdict_options(args))

        try:  # written first: the criterion below reads it for each verdict's agreement over the seeds
            frame = replicate_verdicts(args.dir, args.replicates, criterion_of, Options(**verdict_options(args)))
        except (FileNotFoundError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        replicates = write_replicates(args.dir, frame)
        if not args.json:  # under --json, stdout is the one document, which lists the file in `written`
            print(f"replicates: {', '.join(map(str, args.replicates))} → {replicates}")
    df, pairs = load_or_fail(args.dir, **verdict_options(args))
    name = criterion_file(args.comparator)
    write_criterion(args.dir, df, name=name, pairs=pairs)
    written = [args.dir / name, *([args.dir / PAIRS] if name == NAME else [])]
    if args.replicates:
        written.append(replicates)
    caveat = folder_caveat(args.dir)
    if args.json:
        from benchmarks.cli.json_out import emit, records, schema

        emit({"schema": schema("criterion"), "dir": str(args.dir), "options": verdict_options(args),
              "caveat": caveat, "written": [str(p) for p in written], "tasks": records(df), "pairs": records(pairs)})
        return 0
    print(table(df))
    print()
    print(format_verdicts(df))
    print("\nnotes:")
    for r in df.itertuples():
        print(f"  {r.task}: {r.note}")
    if caveat:
        print(f"\nNOT A MEASURE OF QUALITY: {caveat}")
    print(f"\nwritten to {' and '.join(str(p) for p in written)}")
    return 0
