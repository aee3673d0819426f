"""The decided phase's runs, as the criterion reads them: a results folder's `decided/` sub-folder
(`benchmarks.studies.decided`), where each task's agent and declared workflow ran on until the verdict was
decided. `wva criterion DIR` (declared comparator) reads those two designs from it, at the interval levels of
the look each task stopped at, in place of the pilot's rows of them; every other design, drawability and the
drawn comparator stay the pilot's.

A `decided/` folder is read only when it is this folder's: the same model, seed, trials and code
(`code_digest`). After the pilot was run again with other settings or code, its old `decided/` measured
another sweep and is left out (the bench runs it again).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.bounds import Levels
from benchmarks.criterion.read import criterion_inputs, read_manifest, stopping_levels
from benchmarks.names import DECIDED

SAME = ("model", "seed", "trials", "code_digest")


class DecidedRuns:
    """`of(task)`: the task's decided-phase rows (empty if none); `levels`: per task, its stopping look's."""

    def __init__(self, out_dir: str | Path, manifest: dict[str, Any], comparator: str | None,
                 columns: list[str]) -> None:
        self.runs: dict[str, pd.DataFrame] = {}
        self.levels: dict[str, Levels] = {}
        folder = Path(out_dir) / DECIDED
        if comparator not in (None, "declared") or not (folder / "runs.csv").exists():
            return
        own = read_manifest(folder) or {}
        if any(own.get(k) != manifest.get(k) for k in SAME):
            return
        blocks, _, own = criterion_inputs(folder, columns)
        for block in blocks:
            for task, g in block.groupby("task", sort=False):
                self.runs[str(task)] = g
        self.levels = stopping_levels(own)

    def of(self, task: str) -> pd.DataFrame | None:
        return self.runs.get(task)


def merged(pilot: pd.DataFrame, decided: pd.DataFrame | None) -> pd.DataFrame:
    """The task's rows with its decided designs' rows in place of the pilot's rows of the same designs."""
    if decided is None or decided.empty:
        return pilot
    kept = pilot[~pilot["pattern"].isin(set(decided["pattern"]))]
    return pd.concat([kept, decided[[c for c in pilot.columns if c in decided.columns]]], ignore_index=True)
