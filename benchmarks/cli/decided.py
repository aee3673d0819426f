"""`wva bench`'s decided phase, after the pilot: each task's agent and declared workflow run on into OUT/decided/
until the verdict is decided (`benchmarks.studies.decided`), a line per look on stderr as it goes."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import replace
from typing import Any

from benchmarks.cli._common import UsageError


def decided_step(config: Any, d: Any, outcome: Any, args: argparse.Namespace, progress: dict[str, Any],
                 callbacks: dict[str, Any], run: Any) -> tuple[Any, list[str]]:
    """(the pilot's outcome, `nothing_to_do` only when the phase had nothing to do either; a line per task
    saying where it stopped, and the phase's trials). The phase's own refusals are the bench's (one line, exit
    2). `run`: the study's `run_until_decided` (`benchmarks.studies.decided.run_decided` says why it is given)."""
    from benchmarks.cli.verdict_options import verdict_options
    from benchmarks.criterion.sequential import look_text
    from benchmarks.criterion.verdict import Options
    from benchmarks.studies.decided import phase, run_decided

    try:
        p = phase(config, d.max_instances, d.batch, d.spending)
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    def on_look(decisions: list[Any]) -> None:
        if not args.quiet and "bar" in progress:
            said = "; ".join(f"{x.task} {x.verdict}{', stops' if x.stop else ''}" for x in decisions)
            progress["bar"].message(f"wva: decided, look {decisions[0].look} ({decisions[0].instances} instances): "
                                    f"{said}")

    result = asyncio.run(run_decided(p, Options(**verdict_options(args)), run, on_look=on_look, **callbacks))
    left = [f"{line}: decided on the pilot alone" for line in p.left]
    if result is None:
        return outcome, []  # nothing to decide: the run is the pilot, as it says
    grown = result.outcome
    merged = replace(outcome, nothing_to_do=outcome.nothing_to_do and grown.nothing_to_do,
                     warnings=(*outcome.warnings, *grown.warnings))
    lines = [look_text(r) for r in result.stopped().values()]
    return merged, [*lines, *left, f"{grown.trials} trials ({grown.ran} run now) in {grown.out}/: the agent and each "
                    f"task's declared workflow, at most {d.max_instances} instances"]
