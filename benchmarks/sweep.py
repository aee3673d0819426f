"""`wva sweep`: move one task along the axis (one parameter, several values) and watch the verdict.

All settings run in ONE bench (`run_bench`, tasks `multihop:hops=3`, `multihop:hops=2-4`, …), so they
share the folder, the manifest and the resume journal; `sweep.csv` is then one criterion row per
setting, in the order the values were given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pandas as pd

from .atomic import write_atomic
from .bench import BenchConfig, run_bench
from .criterion import COLUMNS, criterion_table, write_criterion

NAME = "sweep.csv"


def parse_values(text: str) -> list[str]:
    """Values separated by commas (a range is written with '-', so commas never belong to a value)."""
    values = [v.strip() for v in text.split(",") if v.strip()]
    if not values:
        raise ValueError("--values needs at least one value, e.g. --values 3,2-4,1-6")
    return values


def _with_param(family: str, param: str, value: str) -> str:
    parts = family.split(":")
    has_params = len(parts) > (2 if "." in parts[0] else 1)  # `module.path:Class` is two parts before any
    return f"{family}{',' if has_params else ':'}{param}={value}"


def settings(family: str, param: str, values: list[str]) -> list[tuple[str, str, str]]:
    """(value, task spec, task label) per setting; ValueError for an unknown family, parameter or value."""
    from .tasks.base import task_label
    from .tasks.registry import load_task

    params = load_task(family).PARAMS
    if param not in params:
        raise ValueError(f"unknown parameter {param!r} for task {family!r}: valid parameters are "
                         f"{', '.join(params) or 'none'}")
    out: list[tuple[str, str, str]] = []
    for value in values:
        spec = _with_param(family, param, value)
        label = task_label(load_task(spec))
        same = next((v for v, _, lab in out if lab == label), None)
        if same is not None:
            raise ValueError(f"values {same!r} and {value!r} are the same setting of {param}")
        out.append((value, spec, label))
    return out


@dataclass(frozen=True)
class SweepOutcome:
    table: pd.DataFrame  # one criterion row per setting, with `param` and `value` first
    flips: list[tuple[str, str, str, str]]  # (value before, value after, verdict before, verdict after)
    out: Path


def flips_of(table: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    rows = list(table.itertuples())
    return [(a.value, b.value, a.verdict, b.verdict) for a, b in pairwise(rows)
            if a.verdict != b.verdict]


def sweep_table(out: Path, param: str, setting_list: list[tuple[str, str, str]]) -> pd.DataFrame:
    crit = criterion_table(out).set_index("task")
    rows = [{"param": param, "value": value, **crit.loc[label].to_dict(), "task": label}
            for value, _, label in setting_list if label in crit.index]
    return pd.DataFrame(rows, columns=["param", "value", *COLUMNS])


async def run_sweep(family: str, param: str, values: list[str], config: BenchConfig,
                    on_start: Callable[[int, int], None] | None = None,
                    on_trial: Callable[[dict[str, Any]], None] | None = None) -> SweepOutcome:
    setting_list = settings(family, param, values)
    config = replace(config, tasks=tuple(spec for _, spec, _ in setting_list))
    await run_bench(config, on_start=on_start, on_trial=on_trial)
    write_criterion(config.out)
    table = sweep_table(config.out, param, setting_list)
    write_atomic(config.out / NAME, lambda f: table.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    return SweepOutcome(table, flips_of(table), config.out)


def flips_text(outcome: SweepOutcome) -> str:
    if outcome.table.empty:
        return "no settings ran"
    param = outcome.table["param"].iloc[0]
    lines = [f"{param}={r.value}: {r.verdict} (predictability {r.predictability:.2f}, agent − {r.best_workflow} "
             f"{r.success_diff:+.2f} [{r.diff_ci_low:+.2f}, {r.diff_ci_high:+.2f}], cost ×{r.cost_ratio:.2f})"
             for r in outcome.table.itertuples()]
    if not outcome.flips:
        lines.append(f"the verdict does not flip: {outcome.table['verdict'].iloc[0]} at every setting")
    for before, after, v1, v2 in outcome.flips:
        lines.append(f"the verdict flips from {v1} to {v2} between {param}={before} and {param}={after}")
    return "\n".join(lines)
