"""`wva report DIR`: every chart as a PNG, and REPORT.md that embeds them and states the verdicts."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "report", help="draw the charts and write REPORT.md for a results folder",
        description="Read a results folder written by 'wva bench', (re)compute criterion.csv, draw every chart as "
        "a PNG file in it, and write DIR/REPORT.md, which embeds the charts and states each task's verdict.")
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by 'wva bench'")
    from benchmarks.cli.verdict_options import add_verdict_options

    add_verdict_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")  # files only: the command line never needs a window (a notebook keeps its backend)
    from benchmarks.cli.criterion import load_or_fail
    from benchmarks.cli.verdict_options import verdict_options
    from benchmarks.report.write import write_report

    # every problem with the folder is found here, as a usage error
    df, pairs = load_or_fail(args.dir, **verdict_options(args))
    for path in write_report(args.dir, df, pairs):
        print(path)
    return 0
