"""One trial: a pattern's design for one task instance, run once on one model, graded, as one row.

Whatever happens inside — an API error, a limit, a bug in the pattern's code — the trial
ends as a row with its terminal and error kinds (never a missing row); only the harness's
own failures propagate. An error of the task's own code is marked apart from the model's
failures (`code_errors.py`): a scorer that raises or overruns `score_timeout_s` keeps the
run's usage, cost and events beside its `ScorerError`.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks.harness import code_errors
from benchmarks.harness.errors import CapReached
from benchmarks.harness.workdirs import workdir as trial_folder
from benchmarks.names import SCORE_TIMEOUT_S
from benchmarks.tasks.base import Instance
from benchmarks.tasks.variants import design_for
from patterns.caching import uncached_cost_usd
from patterns.events import Kind
from patterns.fields import fields
from patterns.limits import Limits
from patterns.model import can_fork, faults_injected, fork_model, stream_model
from patterns.options import RequestOptions
from patterns.redact import redact
from patterns.replay import ReplayMismatch
from patterns.result import Result, Terminal
from patterns.retry import RetryPolicy
from patterns.specs import provider_of
from patterns.threads import call_in_thread
from patterns.workflows import arun_workflow

RUN_COLUMNS = [
    "run_id", "pattern", "task", "instance", "trial", "model", "seed", "success", "score", "terminal", "steps",
    "tool_calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens",
    "cost_usd", "latency_s", "wall_s", "errors", "retries", "recoveries", "error_kinds", "faults_injected", "detail",
    "uncached_cost_usd",  # the same calls with every prompt token billed as input: cost_usd without prompt caching
    "grader_cost_usd",  # a model-graded scorer's own cost (task files' `model:<rubric>`), never in cost_usd
    "cost_source",  # what cost_usd is: billed (a provider's reported usage), estimated (the simulator's), replayed
    "estimated_cost_usd",  # the estimate made before the sweep for a trial of its task × design (paid sweeps only)
    "estimated_tokens",  # ... and its tokens, beside total_tokens
]
COST_SOURCES = {"anthropic": "billed", "openai": "billed", "sim": "estimated", "replay": "replayed"}


def cost_source(model_spec: str) -> str:
    """What a row's `cost_usd` is on this model: `billed` (the usage a provider's replies reported, a `wva
    sim-server` behind the SDK included, at the price table's prices), `estimated` (the simulator's modelled
    tokens at `price_as`'s prices: nothing is billed) or `replayed` (a cassette's recorded usage)."""
    return COST_SOURCES.get(provider_of(model_spec), "")


def run_id(pattern: str, task: str, instance: str, trial: int, model: str, seed: int) -> str:
    """Stable across runs and resumes: derived from what the trial is, never from when it ran."""
    key = "|".join((pattern, task, instance, str(trial), model, str(seed)))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class TrialSpec:
    pattern: str
    task: str  # the task label (family + non-default parameters)
    family: Any
    instance: Instance
    trial: int
    model_spec: str
    seed: int

    @property
    def run_id(self) -> str:
        return run_id(self.pattern, self.task, self.instance.id, self.trial, self.model_spec, self.seed)


def trial_model(model: Any, spec: TrialSpec, policy: Any) -> Any:
    """The model for one trial: a simulated model gets its own random stream and the family's policy; a model
    behind an SDK labels its requests with that stream (a simulator behind `wva sim-server` forks by it)."""
    if not can_fork(model):
        return stream_model(model, spec.run_id)
    twin = fork_model(model, spec.run_id)
    if policy is not None and hasattr(twin, "policy"):
        twin.policy = policy
    return twin




async def grade_output(family: Any, instance: Instance, env: Any, output: str, model: Any, *,
                       timeout_s: float | None = SCORE_TIMEOUT_S, **run_options: Any) -> tuple[float, Result | None]:
    """(score, the grader's own Result if a model graded it).

    A family's `grade` runs in a worker thread (`patterns.threads`), off the event loop, so that a scorer
    that hangs neither stops the other trials nor the process: past `timeout_s` it raises TimeoutError
    (the families shipped with the package grade on the loop: `_shipped`).
    A model-graded family (`agrade`, unless it says `model_graded = False`) grades on the loop: its time
    is its model calls', bounded as the run's are."""
    agrade = getattr(family, "agrade", None)
    if agrade is not None and getattr(family, "model_graded", True):
        score, graded = await agrade(instance, env, output, model, **run_options)
        return float(score), graded
    if _shipped(family):
        return float(family.grade(instance, env, output)), None
    score = await call_in_thread(lambda: float(family.grade(instance, env, output)), timeout_s,
                                 key=("grade", type(family).__qualname__, getattr(family, "name", "")))
    return score, None


def _shipped(family: Any) -> bool:
    """A family shipped with this package (not a task file): its `grade` is ours, pure and quick, so it runs on
    the loop; a thread hop per trial cost the default sweep 7-12% of its time (measured on 2 cores)."""
    module = type(family).__module__
    return module.startswith("benchmarks.tasks.") and not module.startswith("benchmarks.tasks.dataset.")


async def run_trial(spec: TrialSpec, model: Any, *, policy: Any = None, limits: Limits | None = None,
                    options: RequestOptions | None = None,
                    retry: RetryPolicy | None = None, grader: Any = None, tracing: Any = None,
                    score_timeout_s: float | None = SCORE_TIMEOUT_S) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(runs.csv row, events.jsonl rows) for one trial; `grader` grades a model-graded task (default: `model`).

    `tracing` (a `patterns.otel.Tracing`) exports the trial's spans once it is graded (the grader's calls
    are not in them), with the trial's identity and verdict as attributes of the run's span."""
    wall0 = time.perf_counter()
    m = trial_model(model, spec, policy)
    traced = None
    if tracing is not None:
        from patterns.otel import traced_model

        traced = traced_model(m, tracing)
    failed: Exception | None = None  # the scorer's
    score, graded = None, None
    with trial_folder() as workdir:  # empty; one its trial left empty serves the next (workdirs.py)
        try:
            env = spec.family.environment(spec.instance, Path(workdir))
            design = design_for(spec.family, spec.pattern, env)
            result = await arun_workflow(design, traced or m, spec.instance.prompt, limits=limits, options=options,
                                         retry=retry, seed=spec.seed)
        except (ReplayMismatch, CapReached):
            raise  # the cassette does not fit this sweep, or the spending cap: not a trial's outcome
        except Exception as exc:  # a bug in one trial's code is that trial's error, not the sweep's end
            return _crash_row(spec, m, exc, time.perf_counter() - wall0), []
        g = m if grader is None else trial_model(grader, replace(spec, trial=-1 - spec.trial), policy)
        try:
            score, graded = await grade_output(spec.family, spec.instance, env, result.output, g,
                                               timeout_s=score_timeout_s, retry=retry, seed=spec.seed)
        except (ReplayMismatch, CapReached):
            raise
        except Exception as exc:  # the run happened and was paid for: keep it, and say the score is missing
            failed = exc
    wall = time.perf_counter() - wall0
    row = {**_row(spec, m, result, score, wall), "grader_cost_usd": graded.cost_usd if graded else None}
    if failed is not None:
        row = _scorer_failed(row, failed)
    if traced is not None:
        identity = {f"wva.{key}": value for key, value in _base(spec).items()}  # run_id, task, instance, trial...
        traced.export(result, {**identity, "wva.success": row["success"], "wva.score": score})
    events = _input_rows(spec) + [_event_row(spec.run_id, e) for e in result.events]
    if graded is not None:  # the grader's calls are its own events, apart from the pattern's
        rows = (_event_row(spec.run_id, e) for e in graded.events)
        events += [{**row, "kind": f"grader_{row['kind']}"} for row in rows]
    return row, events


def _base(spec: TrialSpec) -> dict[str, Any]:
    return {"run_id": spec.run_id, "pattern": spec.pattern, "task": spec.task, "instance": spec.instance.id,
            "trial": spec.trial, "model": spec.model_spec, "seed": spec.seed}


def _row(spec: TrialSpec, model: Any, result: Result, score: float | None, wall: float) -> dict[str, Any]:
    kinds = [e.error_type or "Error" for e in result.events if e.kind in (Kind.RETRY, Kind.ERROR)]
    recorded = {e.error_type for e in result.events if e.kind is Kind.ERROR}
    kinds += [err.kind for err in result.errors if err.kind not in recorded]  # workflow failures have no event
    if result.terminal is Terminal.ERROR and (mechanical := code_errors.design_error(result.events)):
        kinds.append(mechanical)  # the design's own bug, named apart from the pattern failing as designed
    u = result.usage
    return {
        **_base(spec), "success": bool(result.terminal is Terminal.COMPLETED and score is not None and score >= 1.0),
        "score": score,
        "terminal": str(result.terminal), "steps": result.steps, "tool_calls": result.tool_calls,
        "input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "cache_read_tokens": u.cache_read_tokens,
        "cache_write_tokens": u.cache_write_tokens, "total_tokens": u.total_tokens, "cost_usd": result.cost_usd,
        "latency_s": round(result.latency_s, 6), "wall_s": round(wall, 6), "errors": len(kinds),
        "retries": result.retries, "recoveries": result.recoveries, "error_kinds": ";".join(kinds),
        "faults_injected": faults_injected(model), "detail": redact(result.detail)[:300],
        "uncached_cost_usd": uncached_cost(model, result), "cost_source": cost_source(spec.model_spec),
    }


def uncached_cost(model: Any, result: Result) -> float | None:
    """What the run's model calls cost with every prompt token billed as input (no prompt caching).

    Priced call by call as `Run` prices them (the model's `price_id`, else the reply's model), so with
    the cache off it is `cost_usd`; None when a call is unpriced."""
    price_id = getattr(model, "price_id", None)
    total = 0.0
    for e in result.events:
        if e.kind is Kind.MODEL_CALL and e.usage is not None:
            price = uncached_cost_usd(price_id or e.model, e.usage)
            if price is None:
                return None
            total += price
        elif e.kind is Kind.TOOL_CALL and e.cost_usd:  # a tool's own fee: the same with or without caching
            total += e.cost_usd
    return total


def _scorer_failed(row: dict[str, Any], exc: Exception) -> dict[str, Any]:
    """The run's row with its score missing and the scorer's error beside the run's own."""
    entry = code_errors.kind(code_errors.SCORER_ERROR, exc)
    detail = "; ".join(filter(None, (code_errors.describe(entry, exc), row["detail"])))
    return {**row, "success": False, "score": None, "errors": row["errors"] + 1,  # joined, cut again at a word
            "error_kinds": ";".join(filter(None, (row["error_kinds"], entry))),
            "detail": code_errors.whole(redact(detail))}


def _crash_row(spec: TrialSpec, model: Any, exc: Exception, wall: float) -> dict[str, Any]:
    kind = code_errors.kind(code_errors.CODE_ERROR, exc)
    return {
        **_base(spec), "success": False, "score": 0.0, "terminal": str(Terminal.ERROR), "steps": 0, "tool_calls": 0,
        "input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0, "total_tokens": 0,
        "cost_usd": None, "latency_s": 0.0, "wall_s": round(wall, 6), "errors": 1, "retries": 0, "recoveries": 0,
        "error_kinds": kind, "faults_injected": faults_injected(model),
        "detail": redact(code_errors.describe(kind, exc))[:300],
        "uncached_cost_usd": None, "grader_cost_usd": None, "cost_source": cost_source(spec.model_spec),
    }


def _input_rows(spec: TrialSpec) -> list[dict[str, Any]]:
    """The instance's code-readable input fields (`patterns.fields`), as one `input` event ahead of the run's own:
    what drawability may learn a dispatch on. None for a prose input."""
    found = fields(spec.instance.prompt)
    if not found:
        return []
    return [{"run_id": spec.run_id, "kind": "input", "wva.input.fields": {k: redact(v) for k, v in found.items()}}]


def _event_row(rid: str, event: Any) -> dict[str, Any]:
    return {"run_id": rid, **event.to_dict()}
