"""A sweep's life in its folder: claimed (locked), surveyed (what it holds, what the rules allow), started
(cleared or repaired, the manifest written first thing, so a killed sweep can be resumed and checked),
finished (the tidy files from the journals, the summary from runs.csv, the manifest again)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.harness import journal, store
from benchmarks.harness.config import settings_of
from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.folder import FolderLock, check_writable, clear_project_files, stale_temp_files
from benchmarks.harness.manifest import manifest, read_manifest
from benchmarks.harness.outputs import read_runs, summary_of, write_manifest, write_summary
from benchmarks.harness.plan import Plan
from benchmarks.harness.resume import FRESH, NOTHING, RESUME, FolderState, decide, mixed

__all__ = ["FRESH", "NOTHING", "RESUME", "Claim", "Survey", "check_writable", "finish", "outcome", "start", "survey",
           "undo"]
Warn = Callable[[str], None]


@dataclass(frozen=True)
class BenchOutcome:
    summary: pd.DataFrame
    ran: int  # trials run by this invocation (the rest came from a resume)
    warnings: tuple[str, ...]
    out: Path
    trials: int = 0  # trials in the folder's runs.csv
    nothing_to_do: bool = False  # the folder already held every trial of this sweep: nothing ran or changed

    @cached_property
    def runs(self) -> pd.DataFrame:
        """runs.csv, read when asked for (a long sweep's rows are never all in memory otherwise)."""
        return read_runs(self.out)


class Claim:
    """The folder, locked while the sweep uses it: at once if it exists, else once `make()` created it.
    A folder this sweep created and left empty (it failed before its first file) is removed on exit."""

    def __init__(self, out: Path, warn: Warn) -> None:
        self.out, self.warn = out, warn
        self.lock = FolderLock(out)
        self.created = False

    def __enter__(self) -> Claim:
        if self.out.is_dir():
            self._acquire()
        return self

    def make(self) -> None:
        if not self.out.exists():
            self.out.mkdir(parents=True)
            self.created = True
            self._acquire()

    def _acquire(self) -> None:
        self.lock.acquire()
        if self.lock.warning:
            self.warn(self.lock.warning)

    def __exit__(self, *exc: object) -> None:
        self.lock.release()
        if self.created and self.out.is_dir() and not any(self.out.iterdir()):
            self.out.rmdir()


@dataclass
class Survey:
    action: str  # FRESH, RESUME or NOTHING (benchmarks.harness.resume)
    sources: store.Sources
    old: dict[str, Any] | None  # the folder's manifest, when it was read
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    t0: float = field(default_factory=time.perf_counter)
    workers: int = 1
    executed: dict[str, Any] = field(default_factory=dict)  # what a sharded run's executor says (Ray's cluster)
    summary: pd.DataFrame | None = None


def survey(config: Any, plan: Plan, warn: Warn) -> Survey:
    """What the folder holds and what this sweep may do with it (read only: nothing is changed here)."""
    sources = store.Sources(len(plan))
    if not config.out.is_dir():
        return Survey(FRESH, sources, None)
    if not config.overwrite:
        _check_runs(config.out / store.RUNS)
    keep = _paid_result_kept if config.message_batches and config.resume else None
    store.scan_outputs(config.out, plan, sources, keep)
    store.scan_journals(config.out, plan, sources, keep)
    finished = sources.count()
    old = None
    if not config.overwrite and (finished or sources.foreign):
        try:
            old = read_manifest(config.out)
        except SweepRefused as exc:
            raise SweepRefused(f"{exc}: --overwrite to start again") from None
    state = FolderState(old, finished, sources.foreign, complete=not sources.journaled() and finished == len(plan))
    action = decide(config.out, state, manifest(**settings_of(config)), resume=config.resume,
                    overwrite=config.overwrite, allow_mixed=config.allow_mixed)
    if action == RESUME:
        for line in sources.warnings:
            warn(line)
    return Survey(action, sources if action != FRESH else store.Sources(len(plan)), old)


# A batched trial that ended on a batch's results file it could not read: its paid results are in the batches
# the folder recorded (batches.jsonl), so on --resume it runs again and its calls are answered from them, never
# paid twice. (JSONDecodeError: how a torn results line ended a trial before the file was read line by line.)
UNREAD_RESULTS = ("BatchResultUnreadable", "CodeError:JSONDecodeError")


def _paid_result_kept(row: dict[str, Any]) -> bool:
    kinds = str(row.get("error_kinds") or "")
    return not any(kind in kinds for kind in UNREAD_RESULTS)


def _check_runs(path: Path) -> None:
    """A `SweepRefused` for a runs.csv whose first line is not runs.csv's header (random bytes, another table):
    its rows cannot be told apart from nothing, so neither resuming (which would run and pay for every trial
    again) nor a fresh start (which would replace it) may go on without `--overwrite`."""
    if not path.is_file():
        return
    from benchmarks.harness.runs_csv import HEADER

    with path.open("rb") as f:
        head = f.readline(len(HEADER) + 1)
    if head != HEADER:
        raise SweepRefused(f"{path}: not a runs.csv this version can read (its first line is not runs.csv's "
                           "header): nothing was run or changed; --overwrite to start again, or another --out")


def start(config: Any, plan: Plan, survey: Survey, preflight: dict[str, Any] | None, warn: Warn) -> dict[str, Any]:
    """Clear a fresh run's folder of the project's old files (or repair a resumed one's journals), then write
    the manifest; returns it."""
    out = config.out
    if survey.action == FRESH:
        removed = clear_project_files(out, _labels(out, plan))
        if removed and config.overwrite:
            warn(f"--overwrite: removed {len(removed)} file(s) of the earlier run in {out}/")
    else:
        for path in journal.paths(out):
            journal.repair(path)  # a torn last line, reported by the survey, is cut off before appending
        for path in stale_temp_files(out):
            path.unlink(missing_ok=True)
    settings = settings_of(config)
    mix = mixed(survey.old, manifest(**settings)) if survey.action == RESUME and config.allow_mixed else None
    from benchmarks.tasks.dataset import DatasetTask

    doc = manifest(**dict(config.manifest_extra or {}), **settings, started=survey.started, trials_total=len(plan),
                   instances_run={t.label: t.count for t in plan.tasks},
                   dataset_tasks=[t.label for t in plan.tasks if isinstance(t.family, DatasetTask)],
                   **({"mixed": mix} if mix else {}), **({"preflight": preflight} if preflight else {}),
                   **_recording(str(config.model)))
    write_manifest(out, doc)
    return doc


def _recording(model: str) -> dict[str, Any]:
    """For a replayed cassette, who made its replies (`patterns.replay.recorded_by`), for the report to say."""
    from patterns.replay import recorded_by
    from patterns.specs import ModelSpec, provider_of

    return {"recorded_by": recorded_by(ModelSpec.parse(model).target)} if provider_of(model) == "replay" else {}


def _labels(out: Path, plan: Plan) -> list[str]:
    """Task labels whose graph charts may be in the folder: this plan's and the earlier run's."""
    labels = [t.label for t in plan.tasks]
    try:
        labels += list(pd.read_csv(out / store.RUNS, usecols=["task"], dtype=str)["task"].dropna().unique())
    except (OSError, ValueError):
        pass  # no runs.csv, or not one this version can read: the fixed names are still cleared
    return labels


def finish(config: Any, plan: Plan, survey: Survey, doc: dict[str, Any]) -> None:
    """The tidy files, in plan order, from the journals (and the old files kept); then the summary and
    the manifest; then the journals go."""
    out = config.out
    store.scan_journals(out, plan, survey.sources)
    missing = sum(1 for _ in survey.sources.missing())
    if missing:
        raise RuntimeError(f"{missing} trials were not recorded: run the same command again with --resume")
    store.write_tidy(out, survey.sources)
    survey.summary = write_summary(out)
    write_manifest(out, {**doc, "workers": survey.workers, **survey.executed,
                         "finished": datetime.now(UTC).isoformat(timespec="seconds"),
                         "sweep_seconds": round(time.perf_counter() - survey.t0, 3)})
    journal.remove_all(out)  # everything is in the tidy files now
    for path in stale_temp_files(out):
        path.unlink(missing_ok=True)


def outcome(config: Any, survey: Survey, *, ran: int, warnings: list[str], nothing_to_do: bool = False) -> BenchOutcome:
    summary = survey.summary if survey.summary is not None else summary_of(config.out)
    return BenchOutcome(summary, ran, tuple(warnings), config.out, trials=survey.sources.total,
                        nothing_to_do=nothing_to_do)


def undo(config: Any) -> None:
    """A fresh sweep that failed before its first trial (a cassette that does not match): leave nothing."""
    clear_project_files(config.out)
