"""`wva bench`: sweep patterns × tasks × instances × trials on one model, durably, then write tidy results.

Trials run concurrently (asyncio, at most `concurrency` in flight). A simulated model in virtual
time costs no waiting, so there concurrency only interleaves; with a real model, a shared bound
on model calls in flight (`max_in_flight`) keeps a sweep inside the provider's rate limits,
however many calls a parallel workflow makes at once.

What a sweep may do with a folder that already holds trials is `benchmarks.resume`'s rule; the
folder is locked for the sweep's whole life (`benchmarks.folder`); each finished trial is appended to
a journal as it ends, and the tidy files are written from the journals at the end, trial by trial
(`benchmarks.store`), so memory stays flat however long the sweep.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from patterns.limits import Limits
from patterns.model import aclose_model, can_fork
from patterns.options import RequestOptions, on_off
from patterns.retry import RetryPolicy
from patterns.specs import load_model

from . import bench_folder as folder
from .breaker import Breaker
from .errors import SweepStopped
from .names import DEFAULT_INSTANCES, DEFAULT_MODEL, DEFAULT_TASKS, PATTERNS
from .plan import Plan, not_offered
from .preflight import preflight
from .trial import SCORE_TIMEOUT_S, TrialSpec, run_trial

EXECUTORS = ("local", "ray")
__all__ = ["BenchConfig", "BenchOutcome", "not_offered", "plan", "run_bench", "run_specs", "settings_of"]


@dataclass(frozen=True)
class BenchConfig:
    patterns: tuple[str, ...] = PATTERNS
    tasks: tuple[str, ...] = DEFAULT_TASKS
    instances: int = DEFAULT_INSTANCES
    trials: int = 3
    model: str = DEFAULT_MODEL
    seed: int = 0
    concurrency: int = 16
    max_in_flight: int = 8
    out: Path = Path("results")
    resume: bool = False
    limits: Limits = field(default_factory=Limits)
    options: RequestOptions = field(default_factory=RequestOptions)  # what each request carries (prompt caching)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    workers: int | None = 1  # processes (shards); None: all cores for a simulated model, else 1 (`shards.py`)
    executor: str = "local"  # "local" processes, or "ray" tasks on a Ray cluster
    address: str | None = None  # the Ray cluster (`auto`, `ray://host:10001`); None: a local Ray instance
    grader_model: str | None = None  # a model-graded task's grader (`--grader-model`); None: the run's model
    tracing: Any = None  # a `patterns.otel.Tracing` (`--otel`): spans per trial; one process only (not pickled)
    overwrite: bool = False  # start again in a folder that holds finished trials (`--overwrite`)
    allow_mixed: bool = False  # with resume: accept trials of another code version (`--allow-mixed`)
    score_timeout_s: float | None = SCORE_TIMEOUT_S  # a scorer's code, per trial (`--score-timeout`)

    def __post_init__(self) -> None:
        unknown = [p for p in self.patterns if p not in PATTERNS]
        if unknown:
            raise ValueError(f"unknown pattern {unknown[0]!r}: choose from {', '.join(PATTERNS)}")
        for name in ("instances", "trials", "concurrency", "max_in_flight"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"--workers must be >= 1, got {self.workers}")
        if self.executor not in EXECUTORS:
            raise ValueError(f"unknown executor {self.executor!r}: choose from {', '.join(EXECUTORS)}")
        if self.resume and self.overwrite:
            raise ValueError("--resume and --overwrite contradict each other: choose one")
        if self.allow_mixed and not self.resume:
            raise ValueError("--allow-mixed goes with --resume")


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
        from .outputs import read_runs

        return read_runs(self.out)


class BoundedModel:
    """A model whose calls in flight are bounded by a shared semaphore (rate limits are per account)."""

    def __init__(self, inner: Any, bound: int) -> None:
        self.inner = inner
        self._bound = asyncio.Semaphore(bound)

    def __getattr__(self, name: str) -> Any:  # clock, price_id and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Any:
        async with self._bound:
            return await self.inner.create(**params)


def plan(config: BenchConfig) -> tuple[list[TrialSpec], dict[str, Any]]:
    """Every trial of the sweep, in a stable order, and each task's SimModel policy (a shard's view)."""
    the_plan = Plan(config)
    return list(the_plan), the_plan.policies


async def run_bench(config: BenchConfig, *, on_trial: Callable[[dict[str, Any]], None] | None = None,
                    on_start: Callable[[int, int], None] | None = None, model: Any = None,
                    on_warning: Callable[[str], None] | None = None) -> BenchOutcome:
    """Run the sweep (or its missing trials, with `resume`), then write the tidy files. `model` overrides
    `load_model(config.model)` (e.g. an `AnthropicModel` with a client timeout); `config.model` labels the rows.
    `on_warning` sees each warning as it arises (else they are in the outcome). Raises `SweepRefused` (nothing
    ran: the folder's rules, the pre-flight request) and `SweepStopped` (the circuit breaker)."""
    warnings: list[str] = []

    def warn(text: str) -> None:
        warnings.append(text)
        if on_warning is not None:
            on_warning(text)

    folder.check_writable(config.out)
    the_plan = Plan(config)
    for line in the_plan.short_datasets():
        warn(line)
    with folder.Claim(config.out, warn) as claim:
        survey = folder.survey(config, the_plan, warn)
        if survey.action == folder.NOTHING:
            return folder.outcome(config, survey, ran=0, warnings=warnings, nothing_to_do=True)
        owns_model = model is None
        model, checked = await _checked(config, model)
        try:
            claim.make()  # the folder exists from here on, locked
            doc = folder.start(config, the_plan, survey, checked, warn)
            ran = await _run_missing(config, the_plan, survey, model, owns_model, on_trial, on_start)
            folder.finish(config, the_plan, survey, doc)
        finally:
            if owns_model:
                await aclose_model(model)  # an SDK client's connections belong to this event loop: close them in it
    return folder.outcome(config, survey, ran=ran, warnings=warnings)


async def _run_missing(config: BenchConfig, the_plan: Plan, survey: Any, model: Any, owns_model: bool,
                       on_trial: Callable[[dict[str, Any]], None] | None,
                       on_start: Callable[[int, int], None] | None) -> int:
    """Run the trials the folder does not hold yet, each appended to the journal as it ends; how many ran."""
    from patterns.replay import ReplayMismatch

    from . import journal
    from .shards import run_sharded, workers_for

    count = sum(1 for _ in survey.sources.missing())
    if on_start:
        on_start(len(the_plan), len(the_plan) - count)
    done = 0
    with journal.Journal(config.out / journal.NAME) as log:
        def record(spec: TrialSpec, row: dict[str, Any], events: list[dict[str, Any]], *, logged: bool = False) -> None:
            nonlocal done
            if not logged:
                log.append(row, events)
            done += 1
            if on_trial:
                on_trial(row)

        workers = workers_for(config, count, model_given=not owns_model)
        survey.workers = workers
        todo = the_plan.specs(survey.sources.missing())  # generated as the workers take them
        try:
            if count and (workers > 1 or config.executor != "local"):
                survey.executed = await run_sharded(config, list(todo), workers, record)
            else:
                await run_specs(todo, model, the_plan.policies, config, config.concurrency, config.max_in_flight,
                                record, count=count)
        except ReplayMismatch:
            if survey.action == folder.FRESH:  # nothing of this failed sweep is left behind
                log.__exit__()
                folder.undo(config)
            raise
        except SweepStopped as exc:  # the circuit breaker: what finished stays in the journal
            raise SweepStopped(f"{exc}; the {survey.sources.count() + done} trials that finished are kept in "
                               f"{config.out}/: fix the cause, then run the same command with --resume") from None
    return done


async def _checked(config: BenchConfig, model: Any) -> tuple[Any, dict[str, Any] | None]:
    """(the sweep's model, what its pre-flight request took): a paid model makes one cheap call first."""
    owned = model is None
    model = load_model(config.model) if owned else model
    try:
        checked = await preflight(model, config.model, config.retry)
        if config.grader_model and config.grader_model != config.model:  # a grader on another paid model
            grader = load_model(config.grader_model)
            try:
                await preflight(grader, config.grader_model, config.retry)
            finally:
                await aclose_model(grader)
        return model, checked
    except BaseException:
        if owned:
            await aclose_model(model)
        raise


async def run_specs(specs: Iterable[TrialSpec], model: Any, policies: dict[str, Any], config: BenchConfig,
                    concurrency: int, max_in_flight: int,
                    on_record: Callable[[TrialSpec, dict[str, Any], list[dict[str, Any]]], None],
                    keep_going: Callable[[], bool] = lambda: True, *, count: int | None = None) -> None:
    """Run trials in this process, at most `concurrency` at once; `on_record` sees each as it ends.

    `specs` may be a generator (a long sweep's plan is never a list here): `count` says how many it yields."""
    shared = model if can_fork(model) else BoundedModel(model, max_in_flight)
    breaker = Breaker(on_record)  # stops the sweep on a streak of the same hard error (breaker.py)
    count = len(specs) if count is None and isinstance(specs, list | tuple) else count
    graders: list[Any] = []  # the grader model, made when the first model-graded trial needs it

    def grader_for(spec: TrialSpec) -> Any:
        if not (config.grader_model and getattr(spec.family, "agrade", None)):
            return None
        if not graders:
            made = load_model(config.grader_model)
            graders.append(made if can_fork(made) else BoundedModel(made, max_in_flight))
        return graders[0]

    queue = iter(specs)

    async def worker() -> None:
        while keep_going() and breaker.keep_going() and (spec := next(queue, None)) is not None:
            # Its own task, so its own timeline: on a virtual clock every trial starts at 0, whichever
            # trials ran before it in this worker (or process), so its event times are the same floats.
            row, events = await asyncio.create_task(run_trial(spec, shared, policy=policies[spec.task],
                                                              limits=config.limits, options=config.options,
                                                              retry=config.retry,
                                                              grader=grader_for(spec), tracing=config.tracing,
                                                              score_timeout_s=config.score_timeout_s))
            breaker(spec, row, events)

    try:
        workers = concurrency if count is None else min(concurrency, max(count, 1))
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        if breaker.tripped is None:
            breaker.flush()  # a streak that never reached the limit is ordinary results
        for grader in graders:
            await aclose_model(grader)  # a grader's SDK client belongs to this event loop, as the model's does
    if breaker.tripped is not None:
        raise SweepStopped(f"stopped: {breaker.tripped}")


def settings_of(config: BenchConfig) -> dict[str, Any]:
    """What the manifest records of a sweep's configuration."""
    return {"model": config.model, "seed": config.seed, "patterns": list(config.patterns), "tasks": list(config.tasks),
            "instances": config.instances, "trials": config.trials,
            "prompt_cache": on_off(config.options.prompt_cache), "max_tokens": config.options.max_tokens,
            "limits": vars_of(config.limits),
            "retry": vars_of(config.retry), "executor": config.executor,
            "grader_model": config.grader_model or config.model}


def vars_of(settings: Any) -> dict[str, Any]:
    """A settings dataclass (Limits, RetryPolicy) as a dict, for the manifest."""
    return {name: getattr(settings, name) for name in settings.__dataclass_fields__}
