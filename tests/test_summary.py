"""summary.csv's success rate is the estimate its interval is built on."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.harness.summary import summarise
from tests.test_criterion import trials


def test_the_success_rate_is_the_mean_of_the_instances_rates() -> None:
    # instances 0-9 ran one trial each and succeeded, 10-19 five each and failed: 10 / 60 by trial, but
    # the interval is over instances (half succeed), so the rate it is built on is 0.5
    rows = [r for r in trials("chain", 20, 5, lambda i, t: i < 10, 0.001) if r["instance"] >= "toy-0010" or
            r["trial"] == 0]
    row = summarise(pd.DataFrame(rows).assign(tool_calls=0, input_tokens=0, output_tokens=0, total_tokens=0,
                                              retries=0)).iloc[0]
    assert (row.n, row.successes, row.instances) == (60, 10, 20)
    assert row.success_rate == pytest.approx(0.5) and row.ci_low < 0.5 < row.ci_high
    assert row.ci_low > 10 / 60  # the trial-weighted figure would lie outside its own interval
