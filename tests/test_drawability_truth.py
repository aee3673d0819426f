"""Drawability on walks whose answer is known (`tests/synthetic_walks.py`): it ranks the five processes as
stated (routing among five included) where the old predictability score does not, its threshold sits in the
gap the synthetic processes leave, and its interval covers the true value at least 90 % of the time with
trials correlated within instances."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from benchmarks.criterion import predictability as pr
from benchmarks.criterion.drawability import THRESHOLD, D, drawability
from benchmarks.criterion.drawability.table import encode, fit_shares
from tests.synthetic_walks import GRID, PROCESSES, Process, Walks, grid_sample, sample

BY_NAME = {p.name: p for p in PROCESSES}


def predictability(walks: Walks) -> float:
    """Today's score (benchmarks.criterion.predictability) of the same walks: steps = rounds + the answer's call."""
    runs = [(i, float(len(x) + 1), pr.shape([sorted(r) for r in x]), math.nan) for i, ws in walks.items() for x in ws]
    return pr.measure(runs)[3]


def test_drawability_ranks_the_processes_as_stated_and_predictability_does_not() -> None:
    got = {p.name: drawability(sample(p, 60, seed=11)) for p in PROCESSES}
    pred = {p.name: predictability(sample(p, 60, seed=11)) for p in PROCESSES}
    for name in ("retries", "bounded_loop", "branching"):
        assert got[name].low > THRESHOLD > got["open_ended"].high, (name, got)
    # today's score puts the bounded loop on the agent side of its own 0.5 line, next to the open-ended walks
    assert pred["bounded_loop"] < 0.5 and pred["open_ended"] < 0.5
    assert abs(pred["bounded_loop"] - pred["open_ended"]) < 0.1, pred


def test_the_threshold_is_in_the_middle_of_the_gap_the_synthetic_processes_leave() -> None:
    values = [(drawable, drawability(grid_sample(name, kw), seed=0).value) for name, drawable, kw in GRID]
    lowest_drawable = min(v for drawable, v in values if drawable)
    highest_open = max(v for drawable, v in values if not drawable)
    assert highest_open < THRESHOLD < lowest_drawable
    assert abs(THRESHOLD - (lowest_drawable + highest_open) / 2) <= 0.025


@cache
def true_drawability(name: str, d: int = D, reps: int = 4000, batch: int = 50) -> float:
    """The expected coverage of a new instance by a graph drawn from d new instances, by simulation:
    `reps` independent blocks of d + 1 fresh instances, d drawing and the last tested (SE about 0.003)."""
    got: list[float] = []
    for b in range(reps // batch):
        walks = sample(BY_NAME[name], batch * (d + 1), seed=10_000 + b)
        drawing = np.zeros((batch, batch * (d + 1)))
        for r in range(batch):
            drawing[r, r * (d + 1): r * (d + 1) + d] = 1
        shares = fit_shares(encode(walks), drawing)
        got += [shares[r, r * (d + 1) + d] for r in range(batch)]
    return float(np.mean(got))


@pytest.mark.parametrize("process", PROCESSES, ids=lambda p: p.name)
def test_the_interval_covers_the_true_value_at_least_90_percent_of_the_time(process: Process) -> None:
    """150 folders of 30 instances × 3 trials, trials of an instance sharing its input (its path, loop count,
    branch or transition table), so they agree far more than independent walks would."""
    truth, hits = true_drawability(process.name), 0
    for r in range(150):
        est = drawability(sample(process, 30, seed=500 + r), seed=r)
        hits += est.low <= truth <= est.high
    assert hits / 150 >= 0.90, (process.name, truth, hits)
