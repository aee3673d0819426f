"""`wva sweep`: move one task along one axis (or a grid of two) and watch the verdict.

An axis is a task parameter (`hops`, `depth`, …) or a SimModel knob (`error_correlation`, …), with
its values. Task-parameter settings run as tasks of ONE bench (`multihop:hops=3`, `multihop:hops=2-4`,
…), sharing its folder, manifest and resume journal. A model knob cannot share a bench (one model per
bench), so each of its settings is a bench of its own in a subfolder named after it
(`error_correlation=0.5/`), each with its own `criterion.csv`. `sweep.csv` (in the sweep's folder) is
one row per point: `param`, `value` (and `by`, `by_value` for a grid's second axis), `folder` (the
point's bench, relative), then the point's criterion row; the verdict map is drawn from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.familywise import familywise_columns
from benchmarks.criterion.render import flips_of
from benchmarks.criterion.table import write_criterion
from benchmarks.harness.atomic import write_atomic
from benchmarks.harness.bench import BenchConfig, run_bench

NAME = "sweep.csv"
AXES = ["param", "value", "by", "by_value", "folder"]


def parse_values(text: str) -> list[str]:
    """Values separated by commas (a range is written with '-', so commas never belong to a value)."""
    values = [v.strip() for v in text.split(",") if v.strip()]
    if not values:
        raise ValueError("--values needs at least one value, e.g. --values 3,2-4,1-6")
    return values


@dataclass(frozen=True)
class Axis:
    name: str  # a parameter of the family, or a SimModel knob when `knob`
    values: tuple[str, ...]
    knob: bool = False


def _with_param(spec: str, param: str, value: str) -> str:
    parts = spec.split(":")
    has_params = len(parts) > (2 if "." in parts[0] else 1)  # `module.path:Class` is two parts before any
    return f"{spec}{',' if has_params else ':'}{param}={value}"


def model_with(model: str, knob: str, value: str) -> str:
    """The model spec with one SimModel knob set (replacing the spec's own value of it, never repeating it);
    ValueError for a model that is not `sim` or a bad value."""
    from patterns.specs import ModelSpec

    spec = ModelSpec.parse(model).with_knob(knob, value)
    spec.load()  # checks the knob's value against the simulator's ranges
    return str(spec)


def _check_axis(family: str, axis: Axis) -> None:
    from benchmarks.tasks.registry import load_task

    if axis.knob:
        from patterns.specs import sim_knobs

        if axis.name not in sim_knobs():
            raise ValueError(f"unknown model knob {axis.name!r}: valid knobs are {', '.join(sim_knobs())}")
        return
    params = load_task(family).PARAMS
    if axis.name not in params:
        raise ValueError(f"unknown parameter {axis.name!r} for task {family!r}: valid parameters are "
                         f"{', '.join(params) or 'none'}")


@dataclass(frozen=True)
class Point:
    values: tuple[str, ...]  # one per axis
    spec: str  # the task spec
    label: str  # the task's label in the point's criterion.csv
    model: str
    folder: str  # relative to the sweep's folder ("" = the folder itself)


def points(family: str, axes: list[Axis], model: str) -> list[Point]:
    """Every point of the sweep, checked (ValueError for an unknown family, parameter, knob or value)."""
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.registry import load_task
    from patterns.specs import load_model

    if len(axes) > 1 and axes[0].name == axes[1].name:
        raise ValueError(f"the two axes must differ (both are {axes[0].name})")
    for axis in axes:
        _check_axis(family, axis)
    out: list[Point] = []
    seen: list[tuple[Point, tuple[str, ...]]] = []
    for combo in product(*(axis.values for axis in axes)):
        spec, spec_model, folder, knobs = family, model, [], []
        for axis, value in zip(axes, combo, strict=True):
            if axis.knob:
                spec_model = model_with(spec_model, axis.name, value)
                folder.append(f"{axis.name}={value}")
                knobs.append(str(load_model(spec_model).knobs[axis.name]))  # 0 and 0.0 are one setting
            else:
                spec = _with_param(spec, axis.name, value)
        point = Point(tuple(combo), spec, task_label(load_task(spec)), spec_model, "/".join(folder))
        key = (point.label, *knobs)
        same = next((p for p, k in seen if k == key), None)
        seen.append((point, key))
        if same is not None:
            raise ValueError(f"values {','.join(same.values)} and {','.join(combo)} are the same setting")
        out.append(point)
    return out


def settings(family: str, param: str, values: list[str]) -> list[tuple[str, str, str]]:
    """(value, task spec, task label) per setting of one task parameter (ValueError as `points`)."""
    return [(p.values[0], p.spec, p.label) for p in points(family, [Axis(param, tuple(values))], "sim")]


@dataclass(frozen=True)
class SweepOutcome:
    table: pd.DataFrame  # one row per point: the axes, then its criterion row
    flips: list[tuple[str, str, str, str]]  # along the first axis: (value before, after, verdict before, after)
    out: Path
    grid: bool = False  # two axes: no flips along a line, the verdict map shows the grid


def sweep_table(out: Path, axes: list[Axis], point_list: list[Point]) -> pd.DataFrame:
    """The sweep's rows, each point's verdict read from its own folder's criterion.csv."""
    rows: list[dict[str, Any]] = []
    tables: dict[str, pd.DataFrame] = {}
    for p in point_list:
        if p.folder not in tables:
            tables[p.folder] = pd.read_csv(out / p.folder / "criterion.csv", keep_default_na=False,
                                           na_values=[""]).set_index("task", drop=False)
        crit = tables[p.folder]
        if p.label not in crit.index:
            continue
        by = (axes[1].name, p.values[1]) if len(axes) > 1 else ("", "")
        rows.append({"param": axes[0].name, "value": p.values[0], "by": by[0], "by_value": by[1],
                     "folder": p.folder, **crit.loc[p.label].to_dict()})
    table = pd.DataFrame(rows)
    # each point's folder read its own tasks familywise; the map is one family: Holm again over every cell
    return familywise_columns(table) if "claim_p" in table else table


async def run_sweep(family: str, axes: list[Axis] | str, values: list[str] | BenchConfig,
                    config: BenchConfig | None = None, on_start: Callable[[int, int], None] | None = None,
                    on_trial: Callable[[dict[str, Any]], None] | None = None,
                    verdict: dict[str, Any] | None = None) -> SweepOutcome:
    """Run every point (one bench per model setting) and write sweep.csv. The older form
    `run_sweep(family, param, values, config)` sweeps one task parameter. `verdict`: the criterion's
    options (margin, comparator, cost_margin, value_per_success)."""
    if isinstance(axes, str):
        assert isinstance(values, list) and config is not None
        axes = [Axis(axes, tuple(values))]
    else:
        assert isinstance(values, BenchConfig)
        config = values
    point_list = points(family, axes, config.model)
    folders = list(dict.fromkeys(p.folder for p in point_list))
    if on_start is not None and len(folders) > 1:  # one progress bar over every bench of the sweep
        on_start(config.instances * config.trials * len(config.patterns) * len(point_list), 0)
    for folder in folders:
        mine = [p for p in point_list if p.folder == folder]
        bench = replace(config, model=mine[0].model, out=config.out / folder, tasks=tuple(p.spec for p in mine))
        await run_bench(bench, on_start=on_start if len(folders) == 1 else None, on_trial=on_trial)
        write_criterion(bench.out, **(verdict or {}))
    table = sweep_table(config.out, axes, point_list)
    write_atomic(config.out / NAME, lambda f: table.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    return SweepOutcome(table, flips_of(table) if len(axes) == 1 else [], config.out, grid=len(axes) > 1)
