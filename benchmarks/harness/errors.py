"""The two ways a sweep ends without its results, as the command line tells them apart.

- `SweepRefused` (a `ValueError`): the sweep was asked for something it must not do — a missing or
  rejected API key, an unknown model, an `--out` that cannot be written, a folder that holds another
  run's finished trials. Nothing ran and nothing was written; `wva` prints one line and exits 2.
- `SweepStopped`: the sweep started, or tried to, and could not go on — the provider could not be
  reached, or the circuit breaker saw the same non-retryable error trial after trial. Every trial that
  finished is kept for `--resume`; `wva` prints one line and exits 1.
"""

from __future__ import annotations


class SweepRefused(ValueError):
    """The sweep was refused before it ran (exit 2)."""


class SweepStopped(RuntimeError):
    """The sweep could not go on; what finished is kept for `--resume` (exit 1)."""


class SweepCapped(SweepStopped):
    """The sweep stopped at its spending cap (`--max-cost`); `--resume` with a higher cap continues (exit 1)."""


class CapReached(Exception):  # an event the harness handles (benchmarks.harness.spend), not an error of a trial
    """A model call would have taken the sweep's spend past `--max-cost`: the trial is abandoned."""
