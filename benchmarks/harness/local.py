"""Trials run in this process: at most `concurrency` at once, model calls bounded across them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from benchmarks.harness import workdirs
from benchmarks.harness.adaptive import AdaptiveBound
from benchmarks.harness.breaker import Breaker
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.errors import CapReached, SweepCapped, SweepStopped
from benchmarks.harness.estimate import with_estimate
from benchmarks.harness.spend import TRIAL_BILL, CappedModel, Spend
from benchmarks.harness.trial import TrialSpec, run_trial
from patterns.deadline import with_deadline
from patterns.model import aclose_model, can_fork
from patterns.specs import load_model

Record = Callable[..., None]  # bench's record(spec, row, events, *, logged=False)


class BoundedModel:
    """A model whose calls in flight are bounded by one shared bound (rate limits are per account): `bound`
    calls at most, paced by the account's rate-limit headers and fewer while the provider answers 429 or 529
    (`AdaptiveBound`: the headers' ledger, then additive increase and multiplicative decrease)."""

    def __init__(self, inner: Any, bound: int) -> None:
        self.inner = inner
        self.bound = AdaptiveBound(bound)

    def __getattr__(self, name: str) -> Any:  # clock, price_id and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Any:
        return await self.bound.run(lambda: self.inner.create(**params),
                                    lambda: getattr(self.inner, "rate_headers", None), params)


def bounded(model: Any, max_in_flight: int) -> Any:
    """The model shared by the trials: its calls in flight bounded, unless it sends them in Message Batches
    (one request per batch, whatever the calls in it: `benchmarks.harness.batching`)."""
    return model if getattr(model, "batched", False) else BoundedModel(model, max_in_flight)


async def run_specs(specs: Iterable[TrialSpec], model: Any, policies: dict[str, Any], config: BenchConfig,
                    concurrency: int, max_in_flight: int,
                    on_record: Callable[[TrialSpec, dict[str, Any], list[dict[str, Any]]], None],
                    keep_going: Callable[[], bool] = lambda: True, *, count: int | None = None,
                    spend: Spend | None = None) -> None:
    """Run trials in this process, at most `concurrency` at once; `on_record` sees each as it ends.

    `specs` may be a generator (a long sweep's plan is never a list here): `count` says how many it yields.
    With a `spend` (`--max-cost`) every model call is reserved against the cap first; a trial whose call the cap
    refuses is abandoned (never recorded), no new trial starts, and `SweepCapped` is raised at the end."""
    capped = model if spend is None else CappedModel(model, spend)  # inside the bound: only calls sent reserve
    shared = model if can_fork(model) else bounded(capped, max_in_flight)
    breaker = Breaker(on_record)  # stops the sweep on a streak of the same hard error (breaker.py)
    count = len(specs) if count is None and isinstance(specs, list | tuple) else count
    graders: list[Any] = []  # the grader model, made when the first model-graded trial needs it

    def grader_for(spec: TrialSpec) -> Any:
        if not (config.grader_model and getattr(spec.family, "agrade", None)):
            return None
        if not graders:
            made = with_deadline(load_model(config.grader_model), config.request_timeout_s)
            graders.append(made if can_fork(made) else BoundedModel(made, max_in_flight))
        return graders[0]

    queue = iter(specs)

    def going() -> bool:
        return keep_going() and breaker.keep_going() and (spend is None or not spend.reached)

    async def worker() -> None:
        while going() and (spec := next(queue, None)) is not None:
            bill = [0.0]  # the trial's own spend, seen by its task (a copy of this context) and its branches
            TRIAL_BILL.set(bill)
            # Its own task, so its own timeline: on a virtual clock every trial starts at 0, whichever
            # trials ran before it in this worker (or process), so its event times are the same floats.
            try:
                row, events = await asyncio.create_task(run_trial(spec, shared, policy=policies[spec.task],
                                                                  limits=config.limits, options=config.options,
                                                                  retry=config.retry,
                                                                  grader=grader_for(spec), tracing=config.tracing,
                                                                  score_timeout_s=config.score_timeout_s))
            except CapReached:
                assert spend is not None
                spend.abandoned, spend.abandoned_usd = spend.abandoned + 1, spend.abandoned_usd + bill[0]
                return
            breaker(spec, with_estimate(row, spec, config.estimate), events)

    try:
        workers = concurrency if count is None else min(concurrency, max(count, 1))
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        if breaker.tripped is None:
            breaker.flush()  # a streak that never reached the limit is ordinary results
        await _finish(shared, graders)
    if breaker.tripped is not None:
        raise SweepStopped(f"stopped: {breaker.tripped}")
    if spend is not None and spend.reached:
        raise SweepCapped(f"stopped at --max-cost ${spend.cap_usd:g}: ${spend.spent_usd:.4f} spent, the next calls "
                          f"could pass it ({spend.abandoned} trials in flight stopped, to run again on --resume)")


async def _finish(shared: Any, graders: list[Any]) -> None:
    """Close the graders (a grader's SDK client belongs to this event loop, as the model's does) and retire the
    bounds, so that the progress line's calls in flight are those of the sweep that runs next."""
    workdirs.release()  # the trials' spare empty folders
    for grader in graders:
        await aclose_model(grader)
    for bounded in (shared, *graders):
        if isinstance(bounded, BoundedModel):
            bounded.bound.retire()
