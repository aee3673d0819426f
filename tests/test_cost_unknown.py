"""`cost unknown (…)` says why the trials without a cost have none (issue 44: it blamed prices for code errors)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchmarks.harness.totals import run_totals, totals_line


def write(folder: Path, rows: list[tuple[float | None, int, str]]) -> dict[str, object]:
    runs = pd.DataFrame([{"cost_usd": cost, "input_tokens": tokens, "output_tokens": 0, "cache_read_tokens": 0,
                          "cache_write_tokens": 0, "total_tokens": tokens, "error_kinds": kinds}
                         for cost, tokens, kinds in rows])
    runs.to_csv(folder / "runs.csv", index=False)
    totals = run_totals(folder)
    assert totals is not None
    return totals


def test_a_code_error_before_any_call_is_named_and_prices_are_not_blamed(tmp_path: Path) -> None:
    totals = write(tmp_path, [(0.01, 40, ""), (None, 0, "CodeError:KeyError"), (None, 0, "CodeError:KeyError")])
    assert totals["unpriced_why"] == {"no_price": 0, "own_code": 2, "calls_failed": 0}
    line = totals_line("total", totals, "sim")
    assert "2 of 3 trials have no cost: 2 failed in the task's own code before any model call" in line
    assert "--prices" not in line and "without a price" not in line


def test_each_cause_is_counted_apart(tmp_path: Path) -> None:
    totals = write(tmp_path, [(None, 50, ""), (None, 0, "RateLimitError;InternalServerError"),
                              (None, 0, "ScorerError:Timeout"), (0.5, 10, "")])
    assert totals["unpriced_why"] == {"no_price": 1, "own_code": 1, "calls_failed": 1}
    line = totals_line("total", totals, "anthropic:claude-x")
    assert ("3 of 4 trials have no cost: 1 made calls on a model without a price (--prices FILE prices it); 1 failed "
            "in the task's own code before any model call") in line and "1 had every model call fail" in line
