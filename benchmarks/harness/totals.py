"""What a results folder's trials cost in all: the modelled (or billed) cost and the tokens, summed.

The number a team needs before it points a sweep at a paid model. Read from `runs.csv` in chunks (flat
memory), so it is the folder's every trial, the ones resumed from an earlier run included.

- `cost_usd`: the sum of the trials' `cost_usd` — the patterns' own calls, priced by the table
  (`patterns/prices.json`, plus `--prices FILE`); None when any trial is unpriced (an unknown model, or
  a trial whose every call failed): a partial sum would read as the whole. `priced_cost_usd` is that
  partial sum, with `unpriced_trials` beside it;
- `grader_cost_usd`: a model-graded scorer's calls, apart (as runs.csv keeps them);
- tokens: `input_tokens` (the uncached part of each prompt, as the API reports it), `output_tokens`,
  `cache_read_tokens`, `cache_write_tokens`, and `total_tokens` (their sum: every prompt and output token).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.harness.outputs import RUNS

TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens")


def run_totals(out: str | Path) -> dict[str, Any] | None:
    """The totals of a folder's runs.csv (module docstring), or None when it has none."""
    path = Path(out) / RUNS
    if not path.exists() or path.stat().st_size == 0:
        return None
    wanted = ["cost_usd", "grader_cost_usd", *TOKENS]
    header = set(pd.read_csv(path, nrows=0).columns)
    sums = dict.fromkeys(wanted, 0.0)
    trials = unpriced = 0
    for chunk in pd.read_csv(path, usecols=[c for c in wanted if c in header], chunksize=20_000):
        trials += len(chunk)
        costs = pd.to_numeric(chunk["cost_usd"], errors="coerce")
        unpriced += int(costs.isna().sum())
        for column in chunk.columns:
            sums[column] += float(pd.to_numeric(chunk[column], errors="coerce").fillna(0).sum())
    return {"trials": trials, "cost_usd": None if unpriced else sums["cost_usd"],
            "priced_cost_usd": sums["cost_usd"], "unpriced_trials": unpriced,
            "grader_cost_usd": sums["grader_cost_usd"] if "grader_cost_usd" in header else None,
            **{k: int(sums[k]) for k in TOKENS}}


def totals_line(what: str, totals: dict[str, Any], model: str | None = None) -> str:
    """One line for a person: `what: $41.73 modelled for 12.3M tokens (…) over 6,300 trials`."""
    kind = "modelled" if model is None or model.split(":", 1)[0] in ("sim", "replay") else "at the table's prices"
    if totals["cost_usd"] is not None:
        cost = f"${totals['cost_usd']:,.2f} {kind}"
    else:
        cost = (f"cost unknown ({totals['unpriced_trials']} of {totals['trials']} trials unpriced: a model without "
                f"a price, or every call failed; --prices FILE prices a model; the priced trials: "
                f"${totals['priced_cost_usd']:,.2f})")
    grader = totals.get("grader_cost_usd")
    extra = f", + ${grader:,.2f} grading" if grader and not math.isnan(grader) else ""
    return (f"{what}: {cost}{extra} for {totals['total_tokens']:,} tokens ({totals['input_tokens']:,} input, "
            f"{totals['output_tokens']:,} output, {totals['cache_read_tokens']:,} cache read, "
            f"{totals['cache_write_tokens']:,} cache write) over {totals['trials']:,} trials")
