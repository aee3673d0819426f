"""`wva bench`: sweep patterns × tasks × instances × trials on one model, durably, then write tidy results.

Trials run concurrently (asyncio, at most `concurrency` in flight). A simulated model in virtual
time costs no waiting, so there concurrency only interleaves; with a real model, a shared bound
on model calls in flight (`max_in_flight`) keeps a sweep inside the provider's rate limits,
however many calls a parallel workflow makes at once.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from patterns.limits import Limits
from patterns.model import aclose_model, can_fork
from patterns.replay import ReplayMismatch
from patterns.retry import RetryPolicy
from patterns.specs import load_model

from . import journal
from .breaker import Breaker
from .errors import SweepStopped
from .folder import check_writable
from .manifest import manifest
from .names import DEFAULT_INSTANCES, DEFAULT_MODEL, DEFAULT_TASKS, PATTERNS
from .outputs import records_from_outputs, write_outputs
from .preflight import preflight
from .tasks.base import task_label
from .tasks.registry import load_task
from .trial import TrialSpec, run_trial

EXECUTORS = ("local", "ray")


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
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    workers: int | None = 1  # processes (shards); None: all cores for a simulated model, else 1 (`shards.py`)
    executor: str = "local"  # "local" processes, or "ray" tasks on a Ray cluster
    address: str | None = None  # the Ray cluster (`auto`, `ray://host:10001`); None: a local Ray instance
    grader_model: str | None = None  # a model-graded task's grader (`--grader-model`); None: the run's model
    tracing: Any = None  # a `patterns.otel.Tracing` (`--otel`): spans per trial; one process only (not pickled)

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
        if self.resume:
            self._check_resumable()

    def _check_resumable(self) -> None:
        """Trials priced with and without prompt caching must not mix in one folder (run ids do not say which)."""
        path = self.out / "manifest.json"
        try:
            before = json.loads(path.read_text()).get("prompt_cache") if path.exists() else None
        except (OSError, ValueError):
            return  # an unreadable manifest says nothing to compare with (it is rewritten at the end)
        now = "on" if self.limits.prompt_cache else "off"
        if before in ("on", "off") and before != now:
            raise ValueError(f"--resume: {str(self.out)!r} was run with --prompt-cache {before}; resume it with "
                             f"--prompt-cache {before}, or write to another --out")


@dataclass(frozen=True)
class BenchOutcome:
    runs: pd.DataFrame
    summary: pd.DataFrame
    ran: int  # trials run by this invocation (the rest came from a resume)
    warnings: tuple[str, ...]
    out: Path


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
    """Every trial of the sweep, in a stable order, and each task's SimModel policy."""
    specs: list[TrialSpec] = []
    policies: dict[str, Any] = {}
    for task_spec in config.tasks:
        family = load_task(task_spec)
        label = task_label(family)
        policies[label] = family.policy()
        skipped = not_offered(family)  # e.g. `route` for a task file without [routes]
        for instance in family.instances(config.instances, config.seed):
            for pattern in (p for p in config.patterns if p not in skipped):
                for t in range(config.trials):
                    specs.append(TrialSpec(pattern, label, family, instance, t, config.model, config.seed))
    return specs, policies


def not_offered(family: Any) -> dict[str, str]:
    """The patterns a family does not offer, each with its reason (a family may declare `not_offered()`)."""
    declared = getattr(family, "not_offered", None)
    return dict(declared()) if callable(declared) else {}


async def run_bench(config: BenchConfig, *, on_trial: Callable[[dict[str, Any]], None] | None = None,
                    on_start: Callable[[int, int], None] | None = None, model: Any = None) -> BenchOutcome:
    """Run the sweep (or its missing trials, with `resume`), then write the tidy files. `model` overrides
    `load_model(config.model)` (e.g. an `AnthropicModel` with a client timeout); `config.model` labels the rows."""
    check_writable(config.out)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    owns_model = model is None
    model, checked = await _checked(config, model)
    specs, policies = plan(config)
    config.out.mkdir(parents=True, exist_ok=True)
    path = config.out / journal.NAME
    warnings: list[str] = []
    done: dict[str, dict[str, Any]] = {}
    if config.resume:
        loaded = journal.load_all(config.out)  # the sweep's journal and any shard's
        warnings += loaded.warnings
        done = {**records_from_outputs(config.out), **loaded.records}
    else:
        journal.remove_all(config.out)
    todo = [s for s in specs if s.run_id not in done]
    if on_start:
        on_start(len(specs), len(specs) - len(todo))
    t0 = time.perf_counter()

    with journal.Journal(path) as log:
        def record(spec: TrialSpec, row: dict[str, Any], events: list[dict[str, Any]], *, logged: bool = False) -> None:
            if not logged:
                log.append(row, events)
            done[spec.run_id] = {"row": row, "events": events}
            if on_trial:
                on_trial(row)

        from .shards import run_sharded, workers_for

        workers = workers_for(config, len(todo), model_given=not owns_model)
        try:
            if todo and (workers > 1 or config.executor != "local"):
                await run_sharded(config, todo, workers, record)
            else:
                await run_specs(todo, model, policies, config, config.concurrency, config.max_in_flight, record)
        except ReplayMismatch:
            if not config.resume:  # nothing of this failed sweep is left behind
                log.__exit__()
                journal.remove_all(config.out)
            raise
        except SweepStopped as exc:  # the circuit breaker: what finished stays in the journal
            raise SweepStopped(f"{exc}; the {len(done)} trials that finished are kept in {config.out}/: fix the "
                               "cause, then run the same command with --resume") from None
        finally:
            if owns_model:
                await aclose_model(model)  # an SDK client's connections belong to this event loop: close them in it
    records = [done[s.run_id] for s in specs]
    doc = manifest(**settings_of(config), workers=workers, started=started,
                   finished=datetime.now(UTC).isoformat(timespec="seconds"),
                   sweep_seconds=round(time.perf_counter() - t0, 3), trials_total=len(specs),
                   **({"preflight": checked} if checked else {}))
    runs, summary = write_outputs(config.out, records, doc)
    journal.remove_all(config.out)  # everything is in the tidy files now
    return BenchOutcome(runs, summary, len(todo), tuple(warnings), config.out)


async def _checked(config: BenchConfig, model: Any) -> tuple[Any, dict[str, Any] | None]:
    """(the sweep's model, what its pre-flight request took): a paid model makes one cheap call first."""
    owned = model is None
    model = load_model(config.model) if owned else model
    try:
        return model, await preflight(model, config.model, config.retry)
    except BaseException:
        if owned:
            await aclose_model(model)
        raise


async def run_specs(specs: list[TrialSpec], model: Any, policies: dict[str, Any], config: BenchConfig,
                    concurrency: int, max_in_flight: int,
                    on_record: Callable[[TrialSpec, dict[str, Any], list[dict[str, Any]]], None],
                    keep_going: Callable[[], bool] = lambda: True) -> None:
    """Run trials in this process, at most `concurrency` at once; `on_record` sees each as it ends."""
    shared = model if can_fork(model) else BoundedModel(model, max_in_flight)
    breaker = Breaker(on_record)  # stops the sweep on a streak of the same hard error (breaker.py)
    grader = None
    if config.grader_model and any(getattr(s.family, "agrade", None) for s in specs):
        grader = load_model(config.grader_model)
        grader = grader if can_fork(grader) else BoundedModel(grader, max_in_flight)
    queue = deque(specs)

    async def worker() -> None:
        while queue and keep_going() and breaker.keep_going():
            spec = queue.popleft()
            # Its own task, so its own timeline: on a virtual clock every trial starts at 0, whichever
            # trials ran before it in this worker (or process), so its event times are the same floats.
            row, events = await asyncio.create_task(run_trial(spec, shared, policy=policies[spec.task],
                                                              limits=config.limits, retry=config.retry,
                                                              grader=grader, tracing=config.tracing))
            breaker(spec, row, events)

    try:
        await asyncio.gather(*(worker() for _ in range(min(concurrency, max(len(specs), 1)))))
    finally:
        if breaker.tripped is None:
            breaker.flush()  # a streak that never reached the limit is ordinary results
        if grader is not None:
            await aclose_model(grader)  # a grader's SDK client belongs to this event loop, as the model's does
    if breaker.tripped is not None:
        raise SweepStopped(f"stopped: {breaker.tripped}")


def settings_of(config: BenchConfig) -> dict[str, Any]:
    """What the manifest records of a sweep's configuration."""
    return {"model": config.model, "seed": config.seed, "patterns": list(config.patterns), "tasks": list(config.tasks),
            "instances": config.instances, "trials": config.trials,
            "prompt_cache": "on" if config.limits.prompt_cache else "off", "limits": vars_of(config.limits),
            "retry": vars_of(config.retry), "executor": config.executor,
            "grader_model": config.grader_model or config.model}


def vars_of(settings: Any) -> dict[str, Any]:
    """A settings dataclass (Limits, RetryPolicy) as a dict, for the manifest."""
    return {name: getattr(settings, name) for name in settings.__dataclass_fields__}
