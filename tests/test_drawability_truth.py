"""Drawability on walks whose answer is known (`tests/synthetic_walks.py`): every process is classified as its
truth, the threshold sits in the middle of the gap the processes leave, and the interval covers the true value.

The whole grid (`GRID`, every setting, three seeds) takes minutes: `python -m benchmarks.perf.drawability_gap`
prints it. Here: each process at its default settings, the two settings that bound the gap, and the interval's
coverage on two processes (one drawable, one not) — enough to fail if the measure or the line moves.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from benchmarks.criterion.drawability import THRESHOLD, D, drawability
from benchmarks.criterion.drawability.shares import fit_shares
from tests.synthetic_walks import PROCESSES, Process, grid_sample, sample

BY_NAME = {p.name: p for p in PROCESSES}
# the settings that bounded the gap when the threshold was set (benchmarks/perf/drawability_gap.py, seeds 0-2)
LOWEST_DRAWABLE = ("code_dispatch", {"error": 0.1, "tools": 8})
HIGHEST_NOT = ("first_random", {"tools": 4})


@pytest.mark.parametrize("process", PROCESSES, ids=lambda p: p.name)
def test_every_process_is_classified_as_its_truth(process: Process) -> None:
    """(The graph-of-tool-names measure did not: a random walk over two tools measured 0.93, a parallel map 0.10,
    a pipeline of switched steps 0.49.)"""
    est = drawability(sample(process, 60, seed=11))
    assert (est.value >= THRESHOLD) == process.drawable, (process.name, est)


def test_the_threshold_is_in_the_middle_of_the_gap_the_processes_leave() -> None:
    low = np.mean([drawability(grid_sample(*LOWEST_DRAWABLE, seed=s)).value for s in (0, 1)])
    high = np.mean([drawability(grid_sample(*HIGHEST_NOT, seed=s)).value for s in (0, 1)])
    assert high < THRESHOLD < low
    assert abs(THRESHOLD - (low + high) / 2) <= 0.04


@cache
def true_drawability(name: str, d: int = D, reps: int = 200, batch: int = 20) -> float:
    """The expected coverage of a new instance by a graph drawn from d new instances, by simulation:
    `reps` independent blocks of d + 1 fresh instances, d drawing and the last tested (SE about 0.015)."""
    got: list[float] = []
    for b in range(reps // batch):
        walks = sample(BY_NAME[name], batch * (d + 1), seed=10_000 + b)
        drawing = np.zeros((batch, batch * (d + 1)))
        for r in range(batch):
            drawing[r, r * (d + 1): r * (d + 1) + d] = 1
        shares = fit_shares(walks, drawing)
        got += [shares[r, r * (d + 1) + d] for r in range(batch)]
    return float(np.mean(got))


@pytest.mark.parametrize("name", ["routing", "random_walk"])
def test_the_interval_covers_the_true_value_at_least_85_percent_of_the_time(name: str) -> None:
    """30 folders of 30 instances × 3 trials, trials of an instance sharing what its case decides; the perf
    script measures 150 folders per process."""
    truth, hits = true_drawability(name), 0
    for r in range(30):
        est = drawability(sample(BY_NAME[name], 30, seed=500 + r), seed=r)
        hits += est.low <= truth <= est.high
    assert hits / 30 >= 0.85, (name, truth, hits)
