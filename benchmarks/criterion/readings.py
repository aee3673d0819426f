"""What a statistical reviewer asks of a verdict after reading it: what p-value does its claim carry (for a
familywise reading), and what does the *other* comparator say? (Over seeds: `benchmarks.criterion.stability`.)

**The other reading.** The verdict reads the comparator fixed before the data: the family's declared
workflow (or the one `--comparator` names). A reader who sees two readings and keeps the one they like
has chosen on the data, so the verdict never changes with the other reading; the other one is shown
beside it, labelled, so a forking path is visible instead of hidden. Against a declared or named
comparator the other reading is the selected best workflow (selection-proof intervals); against the
selected best, the family's declared workflow. Neither is shown when there is no other (a single
workflow ran, or `selected` with no declared workflow).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pandas as pd

from benchmarks.criterion.bounds import FIXED, Levels
from benchmarks.criterion.deciding import MODES, Decided, decide_task, mode_of
from benchmarks.criterion.familywise import claim_p_of
from benchmarks.criterion.stability import SEED_COLUMNS
from benchmarks.criterion.verdict import DEFAULTS, Options

COLUMNS = [*SEED_COLUMNS, "claim_p", "familywise_p", "verdict_familywise",
           "other_comparator", "other_mode", "other_verdict", "other_diff", "other_ci_low", "other_ci_high"]


def other_options(flows: list[str], declared: str | None, options: Options) -> Options | None:
    """The options of the other reading (module docstring), or None when there is none."""
    mode, _ = mode_of(flows, declared, options.comparator)
    if mode == "selected":
        return replace(options, comparator=declared) if declared in flows else None
    return replace(options, comparator="selected") if len(flows) > 1 else None


def other_reading(g: pd.DataFrame, flows: list[str], declared: str | None, options: Options, seed: int,
                  levels: Levels) -> dict[str, Any]:
    """The other comparator's verdict, as criterion.csv's `other_*` columns (empty when there is none)."""
    other = other_options(flows, declared, options)
    if other is None:
        return {"other_comparator": "", "other_mode": "", "other_verdict": ""}
    d = decide_task(g, flows, declared, other, seed, levels)
    pair = d.pair if d.values is None else d.value
    assert pair is not None
    return {"other_comparator": d.verdict.comparator, "other_mode": MODES[d.mode], "other_verdict": d.verdict.verdict,
            "other_diff": pair.diff, "other_ci_low": d.verdict.diff_ci[0], "other_ci_high": d.verdict.diff_ci[1]}


def readings(g: pd.DataFrame, flows: list[str], declared: str | None, decided: Decided,
             options: Options = DEFAULTS, seed: int = 0, levels: Levels = FIXED) -> dict[str, Any]:
    """A task's claim p-value and the other reading (criterion.csv columns)."""
    verdict = decided.verdict.verdict

    def holds(at: Levels) -> bool:
        return decide_task(g, flows, declared, options, seed, at).verdict.verdict == verdict

    return {"claim_p": claim_p_of(verdict, holds, levels),
            **other_reading(g, flows, declared, options, seed, levels)}


def empty() -> dict[str, Any]:
    return {c: math.nan for c in COLUMNS} | {"seeds": "", "pooled_verdict": "", "verdict_familywise": "",
                                             "other_comparator": "", "other_mode": "", "other_verdict": ""}
