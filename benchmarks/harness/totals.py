"""What a results folder's trials cost in all: the modelled (or billed) cost and the tokens, summed.

The number a team needs before it points a sweep at a paid model. Read from `runs.csv` in chunks (flat
memory), so it is the folder's every trial, the ones resumed from an earlier run included.

- `cost_usd`: the sum of the trials' `cost_usd` — the patterns' own calls, priced by the table
  (`patterns/prices.json`, plus `--prices FILE`); None when any trial is unpriced (an unknown model, or
  a trial whose every call failed): a partial sum would read as the whole. `priced_cost_usd` is that
  partial sum, with `unpriced_trials` beside it and `unpriced_why`, their causes: `no_price` (calls made, on a
  model the table does not price), `own_code` (no call made: the task's own code failed first, a
  CodeError/ScorerError/DesignError in `error_kinds`), `calls_failed` (no call made: every one failed);
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
    trials, why = 0, dict.fromkeys(("no_price", "own_code", "calls_failed"), 0)
    for chunk in pd.read_csv(path, usecols=[c for c in [*wanted, "error_kinds"] if c in header], chunksize=20_000):
        trials += len(chunk)
        for cause, n in _unpriced_causes(chunk).items():
            why[cause] += n
        for column in (c for c in chunk.columns if c in sums):
            sums[column] += float(pd.to_numeric(chunk[column], errors="coerce").fillna(0).sum())
    unpriced = sum(why.values())
    return {"trials": trials, "cost_usd": None if unpriced else sums["cost_usd"],
            "priced_cost_usd": sums["cost_usd"], "unpriced_trials": unpriced, "unpriced_why": why,
            "grader_cost_usd": sums["grader_cost_usd"] if "grader_cost_usd" in header else None,
            **{k: int(sums[k]) for k in TOKENS}}


def _unpriced_causes(chunk: pd.DataFrame) -> dict[str, int]:
    """Why a chunk's unpriced trials have no cost (module docstring, `unpriced_why`)."""
    unpriced = chunk[pd.to_numeric(chunk["cost_usd"], errors="coerce").isna()]
    tokens = pd.to_numeric(unpriced.get("total_tokens", pd.Series(0, index=unpriced.index)), errors="coerce")
    called = tokens.fillna(0) > 0
    kinds = unpriced.get("error_kinds", pd.Series("", index=unpriced.index)).fillna("").astype(str)
    own = ~called & kinds.str.contains(r"\b(?:CodeError|ScorerError|DesignError)\b")
    return {"no_price": int(called.sum()), "own_code": int(own.sum()), "calls_failed": int((~called & ~own).sum())}


def _unknown_cost(totals: dict[str, Any]) -> str:
    """`cost unknown (…)`, saying why the trials without a cost have none and what would give them one."""
    why = totals.get("unpriced_why") or {"no_price": totals["unpriced_trials"]}
    said = {"no_price": "made calls on a model without a price (--prices FILE prices it)",
            "own_code": "failed in the task's own code before any model call (error_kinds in runs.csv says where)",
            "calls_failed": "had every model call fail (error_kinds in runs.csv says how)"}
    causes = "; ".join(f"{n} {said[cause]}" for cause, n in why.items() if n)
    return (f"cost unknown ({totals['unpriced_trials']} of {totals['trials']} trials have no cost: {causes}; the "
            f"priced trials: ${totals['priced_cost_usd']:,.2f})")


def totals_line(what: str, totals: dict[str, Any], model: str | None = None) -> str:
    """One line for a person: `what: $41.73 modelled for 12.3M tokens (…) over 6,300 trials`."""
    kind = "modelled" if model is None or model.split(":", 1)[0] in ("sim", "replay") else "at the table's prices"
    if totals["cost_usd"] is not None:
        cost = f"${totals['cost_usd']:,.2f} {kind}"
    else:
        cost = _unknown_cost(totals)
    grader = totals.get("grader_cost_usd")
    extra = f", + ${grader:,.2f} grading" if grader and not math.isnan(grader) else ""
    return (f"{what}: {cost}{extra} for {totals['total_tokens']:,} tokens ({totals['input_tokens']:,} input, "
            f"{totals['output_tokens']:,} output, {totals['cache_read_tokens']:,} cache read, "
            f"{totals['cache_write_tokens']:,} cache write) over {totals['trials']:,} trials")
