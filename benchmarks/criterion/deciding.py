"""One task's verdict from its runs: the comparator chosen (declared, named or selected), the comparisons
built at the given interval levels, the rule applied. The criterion calls it once per task at the fixed
levels; a sequential design calls it at each look with that look's levels (`benchmarks.criterion.sequential`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from benchmarks.criterion.bounds import FIXED, Levels
from benchmarks.criterion.comparison import Pair, compare, compare_value
from benchmarks.criterion.verdict import DEFAULTS, Options, Verdict, best_workflow, decide_declared, decide_selected

MODES = {"declared": "declared by the family", "named": "named with --comparator",
         "selected": "selected (selection-proof intervals)"}


@dataclass(frozen=True)
class Decided:
    mode: str  # a key of MODES
    verdict: Verdict
    pairs: list[Pair]  # every workflow against the agent, on success and cost
    values: list[Pair] | None  # and on net value per trial, when a success has a value

    @property
    def pair(self) -> Pair:
        """The verdict's comparator on success and cost."""
        return next(p for p in self.pairs if p.workflow == self.verdict.comparator)

    @property
    def value(self) -> Pair | None:
        return next(p for p in self.values if p.workflow == self.verdict.comparator) if self.values else None


def mean_costs(g: pd.DataFrame) -> dict[str, float]:
    """Mean cost per trial by pattern; unknown (NaN) for a pattern with any unpriced trial."""
    return {str(p): float(c.mean()) if c.notna().all() else math.nan for p, c in g.groupby("pattern")["cost_usd"]}


def mode_of(flows: list[str], declared: str | None, comparator: str | None) -> tuple[str, str | None]:
    """("named" | "declared" | "selected", the one workflow compared, or None for the selected best)."""
    if comparator not in (None, "declared", "selected"):
        return "named", comparator
    if comparator != "selected" and declared in flows:
        return "declared", declared
    return "selected", None


def decide_task(g: pd.DataFrame, flows: list[str], declared: str | None, options: Options = DEFAULTS,
                seed: int = 0, levels: Levels = FIXED) -> Decided:
    """The verdict on one task's runs (every pattern's; `flows` the workflows among them)."""
    mode, one = mode_of(flows, declared, options.comparator)
    pairs = compare(g, flows, seed, levels)
    value = options.value_per_success
    values = compare_value(g, flows, value, seed, levels) if value is not None else None
    judged = values if values is not None else pairs
    margin = options.margin * value if value is not None else options.margin
    if one is not None:
        v = decide_declared(next(p for p in judged if p.workflow == one), margin, options.cost_margin, value)
    else:
        best = best_workflow(judged, mean_costs(g))
        v = decide_selected(judged, best, margin, options.cost_margin, value)
    if values is not None:  # the cost interval shown is the comparator's, whatever the scale decided on
        p = next(p for p in pairs if p.workflow == v.comparator)
        v = Verdict(v.verdict, v.comparator, v.reason, v.diff_ci, p.cost_ci, v.code)
    return Decided(mode, v, pairs, values)
