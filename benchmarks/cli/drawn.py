"""`wva bench`'s last step: the drawn comparator (`benchmarks.studies.drawn`), unless --no-drawn."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any


def drawn_step(args: argparse.Namespace, config: Any, outcome: Any, warn: Callable[[str], None],
               run: Callable[..., Any]) -> tuple[Any, list[str]]:
    """(the drawn phase's outcome or None, the lines to show): the drawn comparator after the bench
    (`benchmarks.studies.drawn`), unless --no-drawn: its own bench in OUT/drawn/, resumed or redone as its
    drawings require. A failure here is a warning: the bench's results are written already. `run`: the
    harness's `run_bench` (see `run_drawn`). Its start is said on stderr, so a wait is never unexplained."""
    if args.no_drawn:
        return None, []
    if not args.quiet:
        print("wva: the drawn phase: each task's graph drawn from the agent's walks on 10 instances runs as a "
              "workflow on its other instances, into OUT/drawn/ (--no-drawn skips it)", file=sys.stderr, flush=True)
    from benchmarks.cli.progress import Progress, sweep_progress
    from benchmarks.studies.drawn import run_drawn

    progress: dict[str, Progress] = {}

    def start(total: int, done: int) -> None:
        progress["bar"] = sweep_progress(total, done, args.quiet, args.model)

    def on_trial(row: dict[str, Any]) -> None:
        progress["bar"].trial(row)

    try:
        drawn, lines = run_drawn(outcome.out, run, config, on_start=start, on_trial=on_trial, on_warning=warn)
    except Exception as exc:
        why = str(exc).splitlines()[0] if str(exc) else ""
        warn(f"the drawn comparator did not run: {type(exc).__name__}: {why}")
        return None, []
    finally:
        if "bar" in progress:
            progress["bar"].close()
    lines = list(lines)
    if drawn is not None:
        lines.append(f"drawn: the graph drawn from the agent's walks, {drawn.trials} trials ({drawn.ran} run now) in "
                     f"{drawn.out}/ ('wva criterion {outcome.out} --comparator drawn' gives its verdict)")
    return drawn, lines
