"""Where the criterion reads drawability: a results folder's `repeats/` sub-folder when the default run's repeats
phase ran there (`benchmarks.studies.repeats`), else the folder itself, as before.

Drawability judges a model decision drawn only when its choice depends on the instance, read from an instance's
repeated trials; a sweep of one trial per instance cannot show it, so the repeats phase runs the agent alone at
several trials on each task's first instances. `wva criterion DIR` reads each task's agent runs and walks from
`repeats/` for drawability (and the drawn graph's size) and every other figure from the folder.

`repeats/` is read only when the folder's manifest records the phase (`repeats`: a run with `--no-repeats` drops
the record, one at enough trials never writes it), when it has more trials per instance than the folder, and when
it is this folder's: the same model, seed and code (`code_digest`). A `repeats/` left from another sweep is
ignored, and drawability reads the folder.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.drawability import Walk, drawability_row
from benchmarks.criterion.drawability.walks import Round, rounds_by_run, walks_of_runs
from benchmarks.criterion.read import criterion_inputs, read_manifest
from benchmarks.names import REPEATS

SAME = ("model", "seed", "code_digest")
COLUMNS = ["run_id", "task", "pattern", "instance", "trial", "success"]
Repeated = tuple[pd.DataFrame, dict[str, list[Round]]]  # a task's agent runs in repeats/ and their walks' rounds
MEASURED_ANYWAY = ("drawability_d", "drawability_instances", "drawability_reason", "graph_cap")  # not from walks


def readable(out_dir: str | Path, manifest: dict[str, Any]) -> bool:
    """Whether drawability reads the folder's `repeats/` (see the module docstring): the phase is recorded, its
    runs are there, it is this folder's (model, seed, code) and has more trials per instance."""
    folder = Path(out_dir) / REPEATS
    if not isinstance(manifest.get(REPEATS), dict) or not (folder / "runs.csv").exists():
        return False
    own = read_manifest(folder) or {}
    return all(own.get(k) == manifest.get(k) for k in SAME) and int(own.get("trials") or 0) > int(
        manifest.get("trials") or 0)


class RepeatsRuns:
    """`of(task)`: the task's agent runs in `repeats/` with their walks' rounds, None when drawability reads the
    folder itself; `folder`: the sub-folder read, None when there is none to read."""

    def __init__(self, out_dir: str | Path, manifest: dict[str, Any]) -> None:
        self.runs: dict[str, pd.DataFrame] = {}
        folder = Path(out_dir) / REPEATS
        self.folder: Path | None = None
        self.events: Any = None  # repeats/events.jsonl (`criterion.read.EventLines`) once read
        if not readable(out_dir, manifest):
            return
        blocks, self.events, _ = criterion_inputs(folder, COLUMNS)
        for block in blocks:
            agents = block[block["pattern"] == "agent"]
            for task, g in agents.groupby("task", sort=False):
                self.runs[str(task)] = g.sort_values(["instance", "trial"], kind="stable")
        self.folder = folder

    def of(self, task: str) -> Repeated | None:
        rows = self.runs.get(task)
        if rows is None:
            return None
        return rows, rounds_by_run(self.events.of_runs(set(rows["run_id"].astype(str))))


def repeated_walks(out_dir: str | Path, manifest: dict[str, Any]) -> dict[str, dict[str, list[Walk]]]:
    """Per task read from `repeats/`, its agent's walks by instance (`walks_of_runs`): what drawability's learning
    curve reads there too, so the report's curve and criterion.csv measure the same walks. Empty without repeats."""
    repeats = RepeatsRuns(out_dir, manifest)
    return {task: walks_of_runs(*pair) for task in repeats.runs if (pair := repeats.of(task)) is not None}


def drawability_columns(g: pd.DataFrame, rounds: dict[str, list[Round]], seed: int) -> dict[str, Any]:
    """The drawability columns from the agent's walks (all NaN when no agent run left an event: a folder
    without events.jsonl shows no walk, and empty walks would read as a perfectly drawable task)."""
    agent_runs = g[g["pattern"] == "agent"]
    row = drawability_row(walks_of_runs(agent_runs, rounds), seed=seed)
    if not any(str(rid) in rounds for rid in agent_runs["run_id"]):
        unknown = [k for k in row if k.startswith(("drawability", "graph_")) and k not in MEASURED_ANYWAY]
        row |= dict.fromkeys(unknown, math.nan) | {"chapter_prediction": None}
    return row

