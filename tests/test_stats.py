"""The summary statistics against values computed by hand."""

from __future__ import annotations

import math

import pytest

from benchmarks.stats import pass_hat_k, percentile, wilson


@pytest.mark.parametrize("wins, n, low, high", [
    (8, 10, 0.4902, 0.9433),   # the textbook example
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
])
def test_wilson_interval(wins: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson(wins, n)
    assert lo == pytest.approx(low, abs=5e-5) and hi == pytest.approx(high, abs=5e-5)


def test_wilson_with_no_trials_is_uninformative() -> None:
    assert wilson(0, 0) == (0.0, 1.0)


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    # instance A: 2 of 3 trials succeed -> C(2,2)/C(3,2) = 1/3 ; instance B: 3 of 3 -> 1
    assert pass_hat_k([(3, 2), (3, 3)], 2) == pytest.approx((1 / 3 + 1) / 2)
    assert pass_hat_k([(3, 2), (3, 3)], 1) == pytest.approx((2 / 3 + 1) / 2)  # pass^1 is the success rate
    assert pass_hat_k([(3, 2), (3, 3)], 3) == pytest.approx(0.5)
    assert math.isnan(pass_hat_k([(2, 2)], 3))


def test_percentile_interpolates_linearly() -> None:
    assert percentile([4, 1, 3, 2], 50) == pytest.approx(2.5)
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile([7], 95) == 7
    assert math.isnan(percentile([], 50))
