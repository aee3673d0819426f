"""The drawn comparator's runs, as the criterion reads them: the rows of a results folder's `drawn/`
sub-folder (`benchmarks.studies.drawn`), per task, and only when they ran the drawing the folder's agent
walks give now.

The drawn runs are derived from the folder: a bench run again (`--overwrite`, or `--resume` adding
instances) draws another graph, and the old `drawn/` rows then measure a workflow that is no longer this
folder's drawing. Each task's drawing file (`drawn/<task>.json`) is compared with the graph learned again
from the walks drawability reads (`drawability.drawn_graph`, the folder's seed): the repeats phase's when
the criterion reads it (`repeats_runs`), else the folder's own; on any difference the rows are not read, and
the comparator `drawn` is absent until the study runs again.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchmarks.criterion.drawability import D, drawing_file, drawn_graph, from_json, to_json
from benchmarks.criterion.drawability.walks import Round, walks_of_runs
from benchmarks.criterion.read import read_success
from benchmarks.harness.outputs import RUNS, read_runs
from benchmarks.names import DRAWN

COLUMNS = ["run_id", "task", "pattern", "instance", "success", "cost_usd", "latency_s", "steps"]


class DrawnRuns:
    """`of(task, rows, rounds)`: the task's drawn runs, checked against its current drawing (empty if none)."""

    def __init__(self, out_dir: str | Path, seed: int) -> None:
        self.folder, self.seed = Path(out_dir) / DRAWN, seed
        self.runs = pd.DataFrame(columns=COLUMNS)
        if (self.folder / RUNS).exists():
            runs = read_runs(self.folder, COLUMNS)
            runs["success"] = read_success(runs["success"], self.folder / RUNS)
            self.runs = runs[runs["pattern"] == DRAWN]

    def of(self, task: str, rows: pd.DataFrame, rounds: dict[str, list[Round]],
           repeated: tuple[pd.DataFrame, dict[str, list[Round]]] | None = None) -> pd.DataFrame:
        """`rows`: the task's runs in the folder (its agent's walks: `rounds`); `repeated`: the task's agent runs
        and rounds in `repeats/` when drawability reads them (`RepeatsRuns.of`), the walks drawn from then."""
        mine = self.runs[self.runs["task"] == task]
        if mine.empty or not self.current(task, *(repeated or (rows, rounds))):
            return self.runs.iloc[0:0]
        return mine

    def current(self, task: str, rows: pd.DataFrame, rounds: dict[str, list[Round]]) -> bool:
        path = self.folder / drawing_file(task)
        walks = walks_of_runs(rows[rows["pattern"] == "agent"], rounds)
        if not path.exists() or sum(1 for w in walks.values() if w) < D + 2:
            return False
        try:
            ran = from_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return to_json(ran) == to_json(drawn_graph(walks, D, self.seed)[1])
