"""The estimate before a paid sweep, in words (`wva bench` prints it on stderr, `wva plan` after its plan).

docs/paid-sweeps.md ("The estimate before a sweep") says where each figure comes from and what its range means."""

from __future__ import annotations

import sys
from typing import Any

BATCH_HOURS = 24  # the Message Batches API ends a batch within 24 h (most end within the hour)


def usd(value: float) -> str:
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:.2f}" if value >= 1 else f"${value:.3g}"


def duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _basis(est: Any) -> str:
    if est.source == "finished":
        return f"the folder's {est.basis_trials:,} finished trials"
    if est.source == "finished+pilot":
        return (f"the folder's finished trials and a pilot on the simulator for the designs they lack "
                f"({est.basis_trials:,} trials)")
    return f"a pilot of {est.basis_trials:,} trials on the simulator ({est.basis_instances} instances, one trial each)"


def estimate_lines(est: Any, what: str = "this sweep") -> list[str]:
    """The estimate's lines: cost, wall time, what the range is; the batch rounds only for a batched sweep."""
    usage = f"{est.tokens:,} tokens in {est.calls:,} model calls"
    if est.cost_usd is None:
        cost = (f"cost unknown: {est.model} has no price in the price table (patterns/prices.json; --prices FILE "
                f"adds one); {usage}")
    else:
        cost = (f"cost {usd(est.cost_usd)} ({usd(est.cost_low_usd)}–{usd(est.cost_high_usd)}), {usage} at "
                f"{est.price_model}'s prices")
    if est.wall_basis == "input tokens per minute":
        bound = f"the account's {est.input_tokens_per_minute:,.0f} input tokens a minute (its rate-limit header)"
    else:
        bound = f"{est.in_flight} call{'s' if est.in_flight != 1 else ''} in flight at the basis's latency"
    lines = [f"estimate for {what}: {est.trials:,} trials on {est.model}, from {_basis(est)}",
             f"  {cost}",
             f"  wall time {duration(est.wall_s)} ({duration(est.wall_low_s)}–{duration(est.wall_high_s)}): {bound}"]
    if est.batched:
        lines.append(f"  a batched sweep needs {est.rounds} rounds (the basis's longest trial makes {est.rounds} "
                     f"model calls in turn); at up to {BATCH_HOURS} h a batch, up to {est.rounds * BATCH_HOURS:,} h")
    lines.append("  ranges: 90% bootstrap intervals over the basis's instances; they leave out how far a real "
                 "model's tokens differ from the basis's")
    return lines


def estimate_printer(quiet: bool, seen: list[Any]) -> Any:
    """`wva bench`'s: on stderr, each line prefixed `wva:`, before the sweep's first trial; nothing under `--quiet`
    (the manifest records it all the same). Each estimate is also appended to `seen`, for `--json`."""

    def print_estimate(est: Any) -> None:
        seen.append(est)
        for line in [] if quiet else estimate_lines(est):
            print(f"wva: {line}", file=sys.stderr)

    return print_estimate
