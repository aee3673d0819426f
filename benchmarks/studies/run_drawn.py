"""`python -m benchmarks.studies.run_drawn DIR`: the drawn comparator for a folder `wva bench` wrote with
--no-drawn, or before the comparator existed (`benchmarks.studies.drawn` says what it does)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.harness.bench import run_bench
from benchmarks.studies.drawn import run_drawn


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.studies.run_drawn", description=__doc__.split("\n\n")[0])
    p.add_argument("dir", type=Path, metavar="DIR", help="a results folder written by 'wva bench'")
    p.add_argument("--quiet", action="store_true", help="print only the last line")
    args = p.parse_args(argv)
    try:
        outcome, notes = run_drawn(args.dir, run_bench)
    except (ValueError, FileNotFoundError) as exc:
        print(f"python -m benchmarks.studies.run_drawn: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    for line in notes if not args.quiet else []:
        print(line)
    if outcome is not None:
        print(f"drawn: {outcome.trials} trials ({outcome.ran} run now) in {outcome.out}/; "
              f"'wva criterion {args.dir} --comparator drawn' gives the verdict")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
