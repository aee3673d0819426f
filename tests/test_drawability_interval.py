"""Drawability's interval on hand-computed cases: the delete-one-instance jackknife, the effective count and the
Clopper–Pearson interval it stands in for n (their coverage on simulated data with a known truth is in
tests/test_drawability_truth.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.criterion.drawability.estimate import effective, interval, jackknife


def test_the_jackknife_leaves_each_instance_out_of_the_splits_it_was_tested_in_and_drops_those_it_drew_in() -> None:
    # two splits of four instances: instance 0 draws in the first, instance 1 in the second; instance 3 is never
    # covered. Each split's mean is 2/3. Left out: instance 0 -> only the second split, (2 - 1) / 2 = 1/2;
    # instance 1 -> the first, 1/2; instance 2 -> 1/2 in both; instance 3 -> (2 - 0) / 2 = 1 in both.
    # Mean of (1/2, 1/2, 1/2, 1): 5/8; se = sqrt(3/4 × (3 × (1/8)² + (3/8)²)) = sqrt(0.140625) = 0.375.
    shares = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]])
    tested = np.array([[0, 1, 1, 1], [1, 0, 1, 1]])
    value, se = jackknife(shares, tested)
    assert value == pytest.approx(2 / 3)
    assert se == pytest.approx(0.375)


def test_the_effective_count_is_the_instances_that_would_give_that_error_at_most_n() -> None:
    assert effective(0.8, 0.1, 30) == pytest.approx(16.0)  # 0.8 × 0.2 / 0.01
    assert effective(0.8, 0.01, 30) == 30  # a smaller error than n independent instances give: n
    assert effective(0.5, 0.9, 30) == 1  # never below one instance
    assert effective(1.0, 0.0, 30) == 30 and effective(0.0, 0.0, 12) == 12


def test_at_the_effective_count_the_interval_is_clopper_pearsons() -> None:
    # value 1/2 with the error of 4 independent instances: 2 of 4, whose exact interval is [0.0676, 0.9324]
    low, high = interval(0.5, math.sqrt(0.25 / 4), 4)
    assert (low, high) == (pytest.approx(0.0676, abs=1e-4), pytest.approx(0.9324, abs=1e-4))
    # every instance covered, nothing to spread: 30 of 30, [0.025^(1/30), 1]
    assert interval(1.0, 0.0, 30) == (pytest.approx(0.025 ** (1 / 30)), 1.0)
    assert interval(0.0, 0.0, 30) == (0.0, pytest.approx(1 - 0.025 ** (1 / 30)))


def test_near_one_the_interval_reaches_further_down_than_up() -> None:
    """The skew a symmetric estimate ± t × se ignored: at 0.93 with the error of 30 instances, the interval is
    wider below the estimate than above it, and never leaves [0, 1]."""
    value = 0.93
    low, high = interval(value, math.sqrt(value * (1 - value) / 30), 30)
    assert 0 <= low < value < high <= 1
    assert value - low > high - value
