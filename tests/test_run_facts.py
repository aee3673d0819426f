"""What a run says about itself: its total cost and tokens, why trials ended in error (as designed or
infrastructure) in the progress bar and the report, the ratio headers' direction, the sim note on charts,
and --until-decided's cap said at the start."""

from __future__ import annotations

import argparse
import io
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from benchmarks.cli.progress import Progress
from benchmarks.cli.until_decided import cap_note
from benchmarks.criterion.render import table
from benchmarks.criterion.table import COLUMNS
from benchmarks.harness.error_classes import AS_DESIGNED, INFRASTRUCTURE, error_class
from benchmarks.harness.totals import run_totals, totals_line
from benchmarks.report.charts.style import SIM_NOTE, SIMULATED, finish, footnote
from benchmarks.report.run_facts import errors_section

ROWS = [  # (terminal, error_kinds)
    ("completed", ""), ("error", "GateFailed"), ("error", "RateLimitError;InternalServerError"),
    ("error", "CodeError:KeyError"), ("error", "RateLimitError;MalformedPlan"), ("max_steps", ""),
]


def test_error_classes_read_the_error_that_ended_the_run() -> None:
    got = [error_class({"terminal": t, "error_kinds": k}) for t, k in ROWS]
    assert got == [None, AS_DESIGNED, INFRASTRUCTURE, INFRASTRUCTURE, AS_DESIGNED, None]


def test_the_progress_bar_splits_its_errors_and_says_what_they_mean() -> None:
    stream = io.StringIO()
    bar = Progress(len(ROWS), stream=stream, every_s=0.0)
    for t, k in ROWS:
        bar.trial({"terminal": t, "error_kinds": k})
    assert bar.errors == 4 and bar.line(1.0).endswith("errors 4 (2 as designed, 2 infrastructure)")
    bar.close()
    said = stream.getvalue()
    assert "errors as designed: a pattern stopped by its own rules" in said and "errors infrastructure: the API" in said


def test_the_report_counts_errors_by_class_per_task_and_pattern() -> None:
    runs = pd.DataFrame([{"task": "t", "pattern": "chain" if i % 2 else "agent", "terminal": t, "error_kinds": k}
                         for i, (t, k) in enumerate(ROWS)])
    text = "\n".join(errors_section(runs))
    assert "| t | chain | 1 | 1 |" in text  # rows 1, 3: GateFailed, CodeError:KeyError
    assert "| t | agent | 1 | 1 |" in text  # rows 2, 4: ended by InternalServerError, by MalformedPlan
    assert errors_section(runs.assign(terminal="completed")) == []


def test_totals_sum_cost_and_tokens_and_one_unpriced_trial_makes_the_cost_unknown(tmp_path: Path) -> None:
    runs = pd.DataFrame({"cost_usd": [0.5, 1.25, None], "grader_cost_usd": [None, 0.1, None],
                         "input_tokens": [10, 20, 30], "output_tokens": [1, 2, 3], "cache_read_tokens": [0, 5, 0],
                         "cache_write_tokens": [4, 0, 0], "total_tokens": [15, 27, 33]})
    runs.to_csv(tmp_path / "runs.csv", index=False)
    totals = run_totals(tmp_path)
    assert totals is not None
    assert totals["cost_usd"] is None and totals["priced_cost_usd"] == 1.75 and totals["unpriced_trials"] == 1
    assert totals["total_tokens"] == 75 and totals["grader_cost_usd"] == 0.1 and totals["trials"] == 3
    assert "cost unknown (1 of 3 trials have no cost: 1 made calls on a model without a price (--prices FILE" in \
        totals_line("total", totals, "openai:x")
    runs.iloc[:2].to_csv(tmp_path / "runs.csv", index=False)
    line = totals_line("total", run_totals(tmp_path) or {}, "sim")
    assert line.startswith("total: $1.75 modelled, + $0.10 grading for 42 tokens") and "over 2 trials" in line
    assert run_totals(tmp_path / "nowhere") is None


def test_the_ratio_headers_say_which_way_they_run() -> None:
    row = {c: math.nan for c in COLUMNS} | {"task": "t", "verdict": "inconclusive", "comparator": "chain"}
    header = table(pd.DataFrame([row], columns=COLUMNS)).splitlines()[0]
    assert "cost ratio workflow ÷ agent" in header and "latency workflow ÷ agent" in header
    assert "steps workflow ÷ agent" in header


def test_a_chart_of_a_sim_run_says_so(tmp_path: Path) -> None:
    for simulated in (True, False):
        token = SIMULATED.set(simulated)
        try:
            drawn = plt.figure()  # a graph's picture: the note along the bottom edge
            footnote(drawn)
            charted = plt.figure()  # a chart with a legend along the bottom: the note under the title
            finish(charted, "a title", tmp_path / "c.png")  # closed, its texts kept
        finally:
            SIMULATED.reset(token)
        assert (SIM_NOTE in [t.get_text() for t in drawn.texts]) is simulated
        assert (SIM_NOTE in [t.get_text() for t in charted.texts]) is simulated
        plt.close(drawn)


def test_until_decided_says_its_cap_when_none_is_given() -> None:
    args = argparse.Namespace(until_decided=True, max_instances=None, instances=60)
    assert "at most 60 instances (the cap is --instances" in (cap_note(args) or "")
    assert cap_note(argparse.Namespace(until_decided=True, max_instances=400, instances=60)) is None
    assert cap_note(argparse.Namespace(until_decided=False, max_instances=None, instances=60)) is None
