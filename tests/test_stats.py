"""The summary statistics against values computed by hand."""

from __future__ import annotations

import math

import pytest

from benchmarks.harness.stats import (
    cluster_se,
    clustered_rate,
    effective_n,
    pass_hat_k,
    pass_k_per_instance,
    percentile,
    wilson,
)


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


# --- clustered by instance ---------------------------------------------------------------------------

def test_the_cluster_standard_error_by_hand() -> None:
    # per-instance values 1, 0, 0, 1: sd (ddof=1) = sqrt(1/3), over sqrt(4) instances
    assert cluster_se([1, 0, 0, 1]) == pytest.approx(math.sqrt(1 / 3) / 2)
    assert math.isnan(cluster_se([0.5]))


def test_a_clustered_rate_is_wider_than_counting_every_trial() -> None:
    # 4 instances × 3 trials, two all-success and two all-failure: the trials of an instance agree
    # completely, so there are 4 observations, not 12: n_eff = 0.25 / (sqrt(1/3)/2)² = 3, kept at >= 4
    rate, low, high = clustered_rate([1, 1, 0, 0], trials=12)
    assert rate == 0.5
    assert (low, high) == pytest.approx(wilson(2, 4), abs=1e-12)
    assert high - low > wilson(6, 12)[1] - wilson(6, 12)[0]
    # instances with 1, 2/3, 1/3, 0 successes out of 3: se = sqrt(0.18519 / 4), n_eff = 0.25 / se² = 5.4
    assert effective_n(0.5, cluster_se([1, 2 / 3, 1 / 3, 0]), 4, 12) == pytest.approx(5.4)
    # no spread at all: the worst case, one observation per instance
    assert clustered_rate([1.0] * 20, trials=60)[1:] == pytest.approx(wilson(20, 20))


def test_a_clustered_rate_without_correlation_counts_every_trial() -> None:
    # 80 instances × 3 trials whose successes are spread exactly as Binomial(3, 1/2): 10 with none, 30 with
    # one, 30 with two, 10 with three. The per-instance variance is then the binomial one, p(1-p)/3 (times
    # 80/79 for ddof=1), so n_eff = 240 × 79/80: every trial counts, the interval is Wilson's on 240 trials
    per = [0.0] * 10 + [1 / 3] * 30 + [2 / 3] * 30 + [1.0] * 10
    assert effective_n(0.5, cluster_se(per), 80, 240) == pytest.approx(240 * 79 / 80)
    rate, low, high = clustered_rate(per, trials=240)
    assert rate == pytest.approx(0.5) and (low, high) == pytest.approx(wilson(120, 240), abs=0.002)


def test_pass_k_per_instance() -> None:
    assert pass_k_per_instance([(3, 2), (3, 3), (1, 1)], 2) == pytest.approx([1 / 3, 1.0])


def test_summary_intervals_are_clustered_by_instance() -> None:
    import pandas as pd

    from benchmarks.harness.summary import summarise

    # 4 instances × 2 trials: two instances won both trials, two lost both. Clustered, that is 4
    # observations (Wilson on 2 of 4), not 8; pass^2 per instance is 1, 1, 0, 0: the same interval
    rows = [{"task": "t", "pattern": "chain", "instance": f"i{i}", "trial": k, "success": i < 2, "steps": 2,
             "tool_calls": 0, "input_tokens": 1, "output_tokens": 1, "total_tokens": 2, "cost_usd": 0.001,
             "latency_s": 1.0, "terminal": "completed", "retries": 0} for i in range(4) for k in range(2)]
    row = summarise(pd.DataFrame(rows)).iloc[0]
    assert (row.ci_low, row.ci_high) == pytest.approx(wilson(2, 4))
    assert row.pass_k == 0.5 and (row.pass_k_ci_low, row.pass_k_ci_high) == pytest.approx(wilson(2, 4))
    assert row.instances == 4 and row.k == 2
