"""The progress line's ETA: read from the pace since the first trial finished, never from the start (issue 44)."""

from __future__ import annotations

import io

import pytest

from benchmarks.cli.progress import ETA_AFTER, Progress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_first_line_says_no_eta_and_the_next_ones_the_pace_since_the_first_trial() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(9000, stream=out, every_s=0.0, clock=clock)
    clock.now = 10.0  # ten seconds of start-up before the first of 9,000 trials ends
    bar.update(False)
    assert "ETA    ?" in out.getvalue().splitlines()[-1]  # not 8,999 x 10 s = 89,990 s
    for _ in range(ETA_AFTER + 97):  # then 100 trials a second
        clock.now += 0.01
        bar.update(False)
    assert bar.eta(clock.now) == pytest.approx((9000 - 101) / 100)
    assert "ETA   89s" in out.getvalue().splitlines()[-1]


def test_a_resumed_sweep_counts_only_the_trials_it_runs() -> None:
    clock = Clock()
    bar = Progress(100, done=60, stream=io.StringIO(), quiet=True, clock=clock)
    for _ in range(1 + ETA_AFTER):
        clock.now += 2.0
        bar.update(False)
    assert bar.eta(clock.now) == pytest.approx((100 - 64) * 2.0)
