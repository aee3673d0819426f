"""What a sweep is asked to do (`BenchConfig`) and what the manifest records of it (`settings_of`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.names import (
    DEFAULT_INSTANCES,
    DEFAULT_MODEL,
    DEFAULT_TASKS,
    MAX_INSTANCES,
    MAX_TRIALS,
    PATTERNS,
    REQUEST_TIMEOUT_S,
    SCORE_TIMEOUT_S,
)
from patterns.limits import Limits
from patterns.options import RequestOptions, on_off
from patterns.retry import RetryPolicy

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
    # A model call's attempt, whole (connect, first byte, reply), on a model behind the network (`--request-timeout`,
    # `patterns.deadline`); never compared on resume: it changes how patient the sweep is, not what it measures.
    request_timeout_s: float | None = REQUEST_TIMEOUT_S
    # The sweep's spending cap in USD (`--max-cost`, `benchmarks.harness.spend`); not compared on resume: a resume
    # with a higher cap continues the same sweep.
    max_cost_usd: float | None = None
    # Model calls through Anthropic's Message Batches API (`--message-batches`, `benchmarks.harness.batching`):
    # compared on resume, since a batched call's latency is queue time and its price half.
    message_batches: bool = False
    # Per task label, its own instance count instead of `instances` (a sequential sweep's tasks grow look by look,
    # each to its own count: `benchmarks.studies.until_decided`). Like `instances`, never compared on resume.
    instances_by_task: tuple[tuple[str, int], ...] = ()
    # Per task label, the only designs it runs (of `patterns`), instead of every one it offers: the decided phase
    # runs each task's agent against its own declared workflow (`benchmarks.studies.decided`). Compared on resume
    # through the plan: a folder's trials of another pattern set are another sweep's.
    patterns_by_task: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # What a study running this sweep adds to its manifest, under its own keys (JSON-ready): written in every
    # manifest the sweep writes, never read by the harness, not compared on resume, not part of the plan.
    manifest_extra: Mapping[str, Any] | None = field(default=None, compare=False)
    # The estimate made before a paid sweep (`benchmarks.harness.estimate`): each row's `estimated_cost_usd` is its
    # task × design's. Set by `run_bench`, never given; like the cap, not compared on resume.
    estimate: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        from benchmarks.tasks.variants import check_name

        for name in self.patterns:  # a pattern, pattern:variant or file.py:function (drawn: benchmarks.studies.drawn)
            check_name(name)
        if len(set(self.patterns)) != len(self.patterns):
            raise ValueError(f"--patterns names a design twice: {', '.join(self.patterns)}")
        for name in ("instances", "trials", "concurrency", "max_in_flight"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        for name, ceiling in (("instances", MAX_INSTANCES), ("trials", MAX_TRIALS)):
            if getattr(self, name) > ceiling:
                raise ValueError(f"--{name} must be <= {ceiling:,}, got {getattr(self, name)}")
        for label, count in self.instances_by_task:
            if count < 1:
                raise ValueError(f"{label}: instances must be >= 1, got {count}")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"--workers must be >= 1, got {self.workers}")
        if self.executor not in EXECUTORS:
            raise ValueError(f"unknown executor {self.executor!r}: choose from {', '.join(EXECUTORS)}")
        if self.resume and self.overwrite:
            raise ValueError("--resume and --overwrite contradict each other: choose one")
        if self.max_cost_usd is not None and ((self.workers or 1) > 1 or self.executor != "local"):
            raise ValueError("--max-cost keeps one account of the spend, in one process: drop --workers N > 1 and "
                             "--executor ray")
        if self.message_batches:
            check_batches(self)
        if self.allow_mixed and not self.resume:
            raise ValueError("--allow-mixed goes with --resume")

    def instances_of(self, label: str) -> int:
        """The instances the task labelled `label` runs."""
        return dict(self.instances_by_task).get(label, self.instances)


def settings_of(config: BenchConfig) -> dict[str, Any]:
    """What the manifest records of a sweep's configuration."""
    return {"model": config.model, "seed": config.seed, "patterns": list(config.patterns), "tasks": list(config.tasks),
            "instances": config.instances, "trials": config.trials,
            "prompt_cache": on_off(config.options.prompt_cache), "max_tokens": config.options.max_tokens,
            "limits": vars_of(config.limits),
            # how long a call may keep retrying is how patient the sweep is, not what it measures (like the
            # per-attempt deadline, --request-timeout): not compared on resume
            "retry": {k: v for k, v in vars_of(config.retry).items() if k != "max_total_s"},
            "executor": config.executor,
            "grader_model": config.grader_model or config.model,
            **({"message_batches": True} if config.message_batches else {}),  # latency is queue time, price half
            # a study that grows the folder (--until-decided) names its record: a plain --resume of its folder, or
            # the study's resume of a plain folder, would read the trials as the other kind of run
            **({"study": sorted(config.manifest_extra)} if config.manifest_extra else {})}


def check_batches(config: BenchConfig) -> None:
    """`--message-batches` needs an `anthropic:` model (the one provider with that API here) and one process
    (the calls of the trials in flight are gathered into batches in that process); a ValueError otherwise."""
    from patterns.specs import ModelSpec

    if ModelSpec.parse(config.model).provider != "anthropic":
        raise ValueError(f"--message-batches sends model calls through Anthropic's Message Batches API: it needs an "
                         f"anthropic:<model-id> model, and {config.model} has no batch API here")
    if (config.workers or 1) > 1 or config.executor != "local":
        raise ValueError("--message-batches gathers the calls of the trials in flight in one process: drop "
                         "--workers N > 1 and --executor ray")


def vars_of(settings: Any) -> dict[str, Any]:
    """A settings dataclass (Limits, RetryPolicy) as a dict, for the manifest."""
    return {name: getattr(settings, name) for name in settings.__dataclass_fields__}
