"""Run any workflow (or agent) spec on a model: one `Result`, whatever happens."""

from __future__ import annotations

from typing import Any

from ..hooks import Hooks
from ..limits import Abort, Limits
from ..model import Model
from ..options import RequestOptions
from ..result import Result
from ..retry import RetryPolicy
from ..run import Run
from ..sync import run_sync
from .choices import check_drawn


async def arun_workflow(
    spec: Any, model: Model, task: str, *, limits: Limits | None = None, options: RequestOptions | None = None,
    abort: Abort | None = None,
    hooks: Hooks | None = None, retry: RetryPolicy | None = None, seed: int = 0, tracer: Any = None,
) -> Result:
    """`await spec(run, task)` inside a fresh `Run`; every ending becomes the Result's terminal.

    `tracer` (an OpenTelemetry tracer or a `patterns.otel.Tracing`) exports the run's spans when it ends.
    A workflow in which the model picks among more than `choices.K` next steps on a loop is refused (`AgentLike`, a
    ValueError) before any call: it is the agent pattern and must not be reported as a workflow. A sweep finds such
    a design when it is set up (`benchmarks.harness.drawn_check`), so no trial is refused here."""
    check_drawn(spec)
    traced = None
    if tracer is not None:
        from ..otel import traced_model

        model = traced = traced_model(model, tracer)
    run = Run(model, pattern=getattr(spec, "pattern", type(spec).__name__.lower()), limits=limits, options=options,
              abort=abort, hooks=hooks, retry=retry, seed=seed)
    run.task = task
    result = await run.execute(lambda: spec(run, task), lambda: list(run.extra.get("messages", [])))
    if traced is not None:
        traced.export(result)
    return result


def run_workflow(spec: Any, model: Model, task: str, **kwargs: Any) -> Result:
    """Synchronous `arun_workflow` (works inside Jupyter too)."""
    return run_sync(arun_workflow(spec, model, task, **kwargs), closing=model)
