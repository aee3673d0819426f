"""`wva bench`: sweep patterns × tasks × instances × trials on one model, durably, then write tidy results.

Trials run concurrently (asyncio, at most `concurrency` in flight). A simulated model in virtual
time costs no waiting, so there concurrency only interleaves; with a real model, a shared bound
on model calls in flight (`max_in_flight`) keeps a sweep inside the provider's rate limits,
however many calls a parallel workflow makes at once.

What a sweep may do with a folder that already holds trials is `benchmarks.harness.resume`'s rule; the
folder is locked for the sweep's whole life (`benchmarks.harness.folder`); each finished trial is appended to
a journal as it ends, and the tidy files are written from the journals at the end, trial by trial
(`benchmarks.harness.store`), so memory stays flat however long the sweep.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.harness import bench_folder as folder
from benchmarks.harness.bench_folder import BenchOutcome
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.errors import SweepCapped, SweepRefused, SweepStopped
from benchmarks.harness.local import run_specs
from benchmarks.harness.outputs import write_manifest
from benchmarks.harness.plan import Plan
from benchmarks.harness.preflight import preflight
from benchmarks.harness.spend import Spend, start_spend
from benchmarks.harness.trial import TrialSpec
from patterns.deadline import with_deadline
from patterns.model import aclose_model
from patterns.pricing import batch_price_id
from patterns.specs import ModelSpec, load_model, provider_of

__all__ = ["BenchConfig", "BenchOutcome", "run_bench"]


async def run_bench(config: BenchConfig, *, on_trial: Callable[[dict[str, Any]], None] | None = None,
                    on_start: Callable[[int, int], None] | None = None, model: Any = None,
                    on_warning: Callable[[str], None] | None = None,
                    on_estimate: Callable[[Any], None] | None = None) -> BenchOutcome:
    """Run the sweep (or its missing trials, with `resume`), then write the tidy files. `model` overrides
    `load_model(config.model)` (e.g. an `AnthropicModel` with a client timeout); `config.model` labels the rows.
    `on_warning` sees each warning as it arises (else they are in the outcome). Raises `SweepRefused` (nothing
    ran: the folder's rules, the pre-flight request) and `SweepStopped` (the circuit breaker). On a provider model,
    `on_estimate` sees the sweep's `Estimate` (cost and wall time) after the pre-flight, before any trial starts."""
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
        spend = _spend(config, survey)  # before the pre-flight: a cap that cannot be kept is refused first
        model, checked = await _checked(config, model)
        try:
            config = await _estimated(config, the_plan, survey, model, warn, on_estimate)
            claim.make()  # the folder exists from here on, locked
            doc = folder.start(config, the_plan, survey, checked, warn)
            try:
                ran = await _run_missing(config, the_plan, survey, _batched(config, model), owns_model, on_trial,
                                         on_start, spend)
            except SweepStopped:
                if spend is not None and spend.reached:  # why it stopped, for the user and for the next --resume
                    write_manifest(config.out, {**doc, "spend": spend.summary(),
                                                "stopped": {"reason": "max_cost", **spend.summary()}})
                raise
            folder.finish(config, the_plan, survey, {**doc, **({"spend": spend.summary()} if spend else {}),
                                                     **({"estimate": config.estimate.to_dict()} if config.estimate
                                                        else {})})
        finally:
            if spend is not None:
                spend.close()
            if owns_model:
                await aclose_model(model)  # an SDK client's connections belong to this event loop: close them in it
    return folder.outcome(config, survey, ran=ran, warnings=warnings)


async def _run_missing(config: BenchConfig, the_plan: Plan, survey: Any, model: Any, owns_model: bool,
                       on_trial: Callable[[dict[str, Any]], None] | None,
                       on_start: Callable[[int, int], None] | None, spend: Spend | None = None) -> int:
    """Run the trials the folder does not hold yet, each appended to the journal as it ends; how many ran."""
    from benchmarks.harness import journal
    from benchmarks.harness.shards import run_local, workers_for
    from patterns.replay import ReplayMismatch

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
            if count and config.executor == "ray":
                from benchmarks.harness.ray_executor import run_ray

                survey.executed = await run_ray(config, list(todo), workers, record)
            elif count and workers > 1:
                positions = list(survey.sources.missing())
                await run_local(config, list(the_plan.specs(iter(positions))), positions, workers, record)
            else:
                await run_specs(todo, model, the_plan.policies, config, config.concurrency, config.max_in_flight,
                                record, count=count, spend=spend)
        except ReplayMismatch:
            if survey.action == folder.FRESH:  # nothing of this failed sweep is left behind
                log.__exit__()
                folder.undo(config)
            raise
        except SweepStopped as exc:  # the circuit breaker or the cap: what finished stays in the journal
            then = "run it again with --resume and a higher --max-cost" if isinstance(exc, SweepCapped) else \
                "fix the cause, then run the same command with --resume"
            raise type(exc)(f"{exc}; the {survey.sources.count() + done} trials that finished are kept in "
                            f"{config.out}/: {then}") from None
    return done


async def _estimated(config: BenchConfig, the_plan: Plan, survey: Any, model: Any, warn: Callable[[str], None],
                     on_estimate: Callable[[Any], None] | None) -> BenchConfig:
    """The config with the sweep's estimate (a provider model only), which `on_estimate` sees before any trial runs.

    A sweep is never stopped by its estimate failing: that is one warning, and the sweep runs unestimated."""
    from dataclasses import replace

    from benchmarks.harness.estimate_sweep import PAID, sweep_estimate

    if provider_of(config.model) not in PAID:  # `config.model` may be only a label, with `model` given
        return config
    try:
        # batched: the estimate prices at the batch price and says how many batch rounds the sweep needs
        est = await sweep_estimate(config, the_plan, survey.sources.missing(), model,
                                   resumed=survey.action == folder.RESUME,
                                   batched=config.message_batches)
    except Exception as exc:  # an estimate is advice: its failure must not cost the sweep
        warn(f"no estimate before the sweep: {type(exc).__name__}: {exc}")
        return config
    if est is not None and on_estimate is not None:
        on_estimate(est)
    return config if est is None else replace(config, estimate=est)


def _spend(config: BenchConfig, survey: Any) -> Spend | None:
    """The sweep's spending account under `--max-cost`, from what the folder already spent; `SweepRefused` for
    a model whose bill cannot be capped (the simulator's or a cassette's, or one without a price)."""
    if config.max_cost_usd is None:
        return None
    spec = ModelSpec.parse(config.model)
    if spec.provider not in ("anthropic", "openai"):
        raise SweepRefused(f"--max-cost caps what a provider model bills (anthropic:, openai:); {config.model} bills "
                           "nothing (nothing was run)")
    try:
        resumed = survey.action == folder.RESUME
        price_id = batch_price_id(spec.target) if config.message_batches else spec.target  # half, batched
        return start_spend(config.max_cost_usd, price_id, recorded_usd(config.out) if resumed else 0.0,
                           survey.old if resumed else None, out=config.out, overwrite=config.overwrite)
    except ValueError as exc:
        raise SweepRefused(str(exc)) from None


def _batched(config: BenchConfig, model: Any) -> Any:
    """The sweep's model with `--message-batches`: its calls gathered into Message Batches, recorded in the
    folder for `--resume` (`benchmarks.harness.batching`); the pre-flight request went out on its own before."""
    if not config.message_batches:
        return model
    from benchmarks.harness.batch_record import NAME, BatchRecord
    from benchmarks.harness.batching import BatchedModel

    if config.overwrite:  # only --overwrite forgets the folder's batches: a sweep killed before any trial
        (config.out / NAME).unlink(missing_ok=True)  # finished starts fresh, and still reuses what it paid for
    return BatchedModel(model, BatchRecord(config.out), request_timeout_s=config.request_timeout_s)


async def _checked(config: BenchConfig, model: Any) -> tuple[Any, dict[str, Any] | None]:
    """(the sweep's model, what its pre-flight request took): a paid model makes one cheap call first."""
    owned = model is None
    model = with_deadline(load_model(config.model) if owned else model, config.request_timeout_s)
    try:
        checked = await preflight(model, config.model, config.retry, config.request_timeout_s)
        if config.grader_model and config.grader_model != config.model:  # a grader on another paid model
            grader = load_model(config.grader_model)
            try:
                await preflight(grader, config.grader_model, config.retry, config.request_timeout_s)
            finally:
                await aclose_model(grader)
        return model, checked
    except BaseException:
        if owned:
            await aclose_model(model)
        raise


def recorded_usd(out: Path) -> float:
    """The cost of the finished trials in `out` (runs.csv and the journals; a trial whose cost is unknown
    because it made no call counts nothing)."""
    from benchmarks.harness import journal
    from benchmarks.harness.outputs import RUNS, read_table

    columns = ("cost_usd", "grader_cost_usd")
    total = 0.0
    if (out / RUNS).exists():
        frame = read_table(out / RUNS, usecols=lambda c: c in columns)
        total += float(frame.sum(numeric_only=True).sum())
    for path in journal.paths(out):
        for _, record in journal.scan(path, []):
            total += sum(float(record["row"].get(c) or 0.0) for c in columns)
    return total
