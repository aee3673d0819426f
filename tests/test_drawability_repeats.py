"""Drawability without repeated trials: a model choice's dependence on the instance cannot be read from one trial
an instance, so a coin over a few tools must not read as drawn. It is "not measured" (NaN, with the reason, in
criterion.csv and REPORT.md), while a process that only code decides is still measured."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from benchmarks.criterion.drawability import THRESHOLD, drawability
from benchmarks.criterion.drawability.decisions import repeats
from benchmarks.report.write import write_report
from tests.synthetic_walks import grid_sample, write_folder

COIN = ("random_walk", {"tools": 2, "shortest": 2, "longest": 4, "error": 0.0})


def test_repeats_need_at_least_half_of_the_instances_at_two_or_more_trials() -> None:
    assert not repeats([0, 1, 2, 3])  # one trial each
    assert not repeats([0, 0, 1, 2, 3])  # one of four repeated
    assert repeats([0, 0, 1, 1, 2, 3])  # two of four
    assert repeats([0, 0]) and not repeats([])


def test_a_coin_walk_at_one_trial_is_not_measured_and_at_three_is_not_drawable() -> None:
    one = drawability(grid_sample(*COIN, instances=30, trials=1))
    assert math.isnan(one.value) and math.isnan(one.low) and one.reason.startswith("not measured")
    three = drawability(grid_sample(*COIN, instances=30, trials=3))
    assert three.value < THRESHOLD and not three.reason


def test_a_process_only_code_decides_is_measured_at_one_trial() -> None:
    est = drawability(grid_sample("code_dispatch", {"tools": 12, "shortest": 2, "longest": 4, "error": 0.0},
                                  instances=30, trials=1))
    assert est.value >= THRESHOLD and not est.reason


def test_the_reason_reaches_criterion_csv_and_the_report(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "out", {"coin": grid_sample(*COIN, instances=14, trials=1)})
    write_report(folder)
    row = pd.read_csv(folder / "criterion.csv").iloc[0]
    assert math.isnan(row["drawability"]) and row["drawability_reason"].startswith("not measured")
    assert pd.isna(row["chapter_prediction"])
    assert "Drawability was not measured: the agent chose among a few next steps" in (folder / "REPORT.md").read_text()


def test_a_learning_chart_with_nothing_measured_says_so_and_warns_nothing(tmp_path: Path) -> None:
    import warnings

    from benchmarks.criterion.drawability import Drawability
    from benchmarks.report.charts.learning import learning_chart

    nan = math.nan
    unmeasured = [Drawability(nan, nan, nan, nan, d, 12, 0, reason="not measured") for d in (1, 2, 5, 10)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = learning_chart({"walks:process=random_walk": unmeasured}, tmp_path)
    assert path.exists() and path.stat().st_size > 0
