"""Reading a results folder for the criterion: its runs (success checked line by line), events and manifest.

**Refused is not lost.** A trial refused or failed in the task's or the design's own code (`CodeError`, `DesignError`,
`ScorerError`, `CodeError:AgentLike`: `benchmarks.harness.code_errors`) measured nothing about the design: it is
never a loss. Such trials are left out here, where every reader of runs for the criterion starts (`load_inputs`,
`criterion_inputs`): success, the verdict, the familywise reading, stability, `wva plan` and the Pareto front never
see them, and a task with any of them gets no verdict (`criterion.withheld`, `refused_trials` says why)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.bounds import Levels
from benchmarks.harness.code_errors import is_code_error
from benchmarks.harness.outputs import EVENTS, MANIFEST, RUNS, read_runs, read_table
from patterns.specs import provider_of

_RUN_ID = re.compile(r'\{"run_id": "([^"]*)"')  # how every line of events.jsonl begins


LOOKS = "until_decided"  # the manifest's record of a sweep run with --until-decided (`criterion.sequential`)
SUCCESS = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}


def read_success(column: pd.Series, path: Path) -> pd.Series:
    """The success column as booleans: true/false/1/0/1.0/0.0 in any case (pandas writes 1.0 for a 0/1
    column with a gap); anything else, a blank included, is a ValueError naming the file and line."""
    text = column.astype("string").str.strip().str.lower()
    parsed = text.map(SUCCESS)
    bad = parsed.isna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        value = column.iloc[row]
        blank = pd.isna(value) or str(value).strip().lower() in ("", "nan")  # pandas writes a gap as nan or ""
        shown = "a blank" if blank else repr(str(value))
        raise ValueError(f"{path} line {csv_line(path, row)}: success must be true/false/1/0, not {shown}")
    return parsed.astype(bool)


def csv_line(path: Path, row: int) -> int:
    """The file line on which data row `row` (0-based) starts: quoted fields may span lines."""
    import csv

    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        start = 1
        for k, _ in enumerate(reader):
            if k == row + 1:
                return start
            start = reader.line_num + 1
    return row + 2


def load_inputs(out_dir: str | Path, columns: list[str] | None = None, keep_refused: bool = False) -> tuple[
        pd.DataFrame, EventLines, dict[str, Any]]:
    """runs.csv's counted trials (keys kept as strings; only `columns` if given; every trial with `keep_refused`,
    for the facts of a run: its trial count, its errors), the events (read from the file each time they are
    iterated, in file order: never all in memory), and the manifest."""
    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"no such folder: {out}")
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    runs = read_runs(out, with_kinds(out, columns))
    if runs.empty:
        raise ValueError(f"{out / RUNS} has no trials")
    runs["success"] = read_success(runs["success"], out / RUNS)
    return runs if keep_refused else counted(runs), EventLines(out / EVENTS), read_manifest(out)


def with_kinds(out: Path, columns: list[str] | None) -> list[str] | None:
    """`columns` and `error_kinds` (where runs.csv has it), so that refused trials can be told apart."""
    if columns is None or "error_kinds" in columns:
        return columns
    header = read_table(out / RUNS, nrows=0).columns
    return [*columns, "error_kinds"] if "error_kinds" in header else columns


def refused(runs: pd.DataFrame) -> pd.Series:
    """Which trials were refused or failed in the task's or the design's own code (module docstring)."""
    if "error_kinds" not in runs:
        return pd.Series(False, index=runs.index)
    return runs["error_kinds"].map(is_code_error).astype(bool)


def counted(runs: pd.DataFrame) -> pd.DataFrame:
    """The trials the criterion counts: every trial but the refused ones."""
    mask = refused(runs)
    return runs if not mask.any() else runs[~mask].reset_index(drop=True)


def refused_trials(out_dir: str | Path) -> dict[str, str]:
    """Per task with refused trials, one sentence: which designs, how many of their trials, and of what kinds."""
    out = Path(out_dir)
    header = read_table(out / RUNS, nrows=0).columns if (out / RUNS).exists() else []
    if "error_kinds" not in header:
        return {}
    runs = read_table(out / RUNS, usecols=["task", "pattern", "error_kinds"], dtype=str)
    runs = runs.assign(refused=refused(runs))
    said = {}
    for task, g in runs.groupby("task", sort=False):
        hit = g[g["refused"]]
        if hit.empty:
            continue
        parts = []
        for pattern, h in hit.groupby("pattern", sort=False):
            kinds = sorted({k for e in h["error_kinds"] for k in str(e).split(";") if is_code_error(k)})
            parts.append(f"{pattern} {len(h)} of {int((g['pattern'] == pattern).sum())} ({', '.join(kinds)})")
        said[str(task)] = (f"no verdict: trials refused or failed in the task's or the design's own code, not the "
                           f"design losing — {'; '.join(parts)}; they are left out of every figure: fix the code "
                           "(runs.csv's detail says where) and rerun")
    return said


def criterion_inputs(out_dir: str | Path, columns: list[str]) -> tuple[Iterator[pd.DataFrame], EventLines,
                                                                        dict[str, Any]]:
    """What the criterion reads, a task at a time: runs.csv's rows (those columns) one task after another, the
    events (read from the file when iterated, `of_runs` to parse only some runs' lines), and the manifest."""
    from benchmarks.harness.outputs import task_blocks

    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"no such folder: {out}")
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    if read_table(out / RUNS, usecols=["run_id"], nrows=1).empty:
        raise ValueError(f"{out / RUNS} has no trials")
    manifest = read_manifest(out)
    # the success column checked whole first (one column: small), so a bad cell names its line in the file
    read_success(read_table(out / RUNS, usecols=["success"], dtype=str)["success"], out / RUNS)

    def blocks() -> Iterator[pd.DataFrame]:
        for block in task_blocks(out, with_kinds(out, columns) or columns):
            block["success"] = block["success"].astype("string").str.strip().str.lower().map(SUCCESS).astype(bool)
            kept = counted(block)
            if not kept.empty:
                yield kept

    return blocks(), EventLines(out / EVENTS), manifest


class EventLines:
    """events.jsonl as dicts, read line by line each time it is iterated; a line that is not JSON is a
    ValueError naming the file (a torn or edited file)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self.of_runs(None)

    def of_runs(self, run_ids: set[str] | None) -> Iterator[dict[str, Any]]:
        """The events of these runs only (all if None); a line of another run is skipped unparsed."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if run_ids is not None and (lead := _RUN_ID.match(line)) and lead.group(1) not in run_ids:
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    raise ValueError(f"{self.path}: line {number} is not JSON (a torn or edited file: rerun 'wva "
                                     f"bench --resume --out {self.path.parent}' to repair it)") from None
                if run_ids is None or event.get("run_id") in run_ids:
                    yield event


def read_manifest(out: Path) -> dict[str, Any]:
    """The folder's manifest ({} if it has none); a corrupted one is a ValueError naming the file."""
    path = out / MANIFEST
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path} is not a readable manifest: {' '.join(str(exc).split())}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path} is not a readable manifest: expected a JSON object")
    return doc


def sim_dataset_tasks(runs: pd.DataFrame, manifest: dict[str, Any]) -> list[str]:
    """The tasks from a user's own dataset that ran on the simulator: their success figures measure nothing."""
    datasets = set(manifest.get("dataset_tasks") or [])
    if "dataset_tasks" not in manifest:  # a manifest from before `dataset_tasks`: a task file's spec is a .toml
        datasets = {label for label, spec in task_specs(manifest).items() if spec.split(":", 1)[0].endswith(".toml")}
    simulated = runs[runs["model"].map(provider_of) == "sim"]
    return [task for task in dict.fromkeys(simulated["task"].astype(str)) if task in datasets]


def folder_caveat(out_dir: str | Path) -> str | None:
    """`sim_caveat` for a results folder, reading only what it needs (the runs' model and task, the manifest)."""
    out = Path(out_dir)
    runs = read_table(out / RUNS, usecols=["model", "task"], dtype=str)
    return sim_caveat(sim_dataset_tasks(runs, read_manifest(out)))


def sim_caveat(tasks: list[str]) -> str | None:
    """The sentence every view of such a folder carries (the bench's warning, the report, the charts)."""
    if not tasks:
        return None
    return (f"{', '.join(tasks)}: a user's own dataset run on the simulator, which only walks the designs "
            "mechanically — these success figures and verdicts measure nothing about quality; use a real model "
            "(--model anthropic:<model-id>) or a recorded cassette (--model replay:<path>)")


def stopping_levels(manifest: dict[str, Any]) -> dict[str, Levels]:
    """Per task of a folder written by `wva bench --until-decided`, the interval levels of its last look (the one
    it stopped at), so that the verdict read from the folder is the one that look took; {} for any other folder."""
    block = manifest.get(LOOKS)
    looks = block.get("looks") if isinstance(block, dict) else None
    return {str(r["task"]): Levels(**r["levels"]) for r in looks or []}  # the last record of each task wins


def task_specs(manifest: dict[str, Any]) -> dict[str, str]:
    """task label (the runs' `task`) -> the spec that builds it, from a results folder's manifest."""
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.registry import load_task

    specs: dict[str, str] = {}
    for spec in manifest.get("tasks") or []:
        try:
            specs[task_label(load_task(spec))] = spec
        except Exception:  # a family that no longer imports: what needs it stays unknown
            continue
    return specs
