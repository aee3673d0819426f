"""A sweep's estimate (`benchmarks.harness.estimate`): its basis found — a pilot on the simulator, or the folder's
finished trials when resuming — and the trials still to run counted.

Only a provider model (`anthropic:`, `openai:`, a `wva sim-server` behind either counts too) gets one: the
simulator and a replayed cassette bill nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.harness.config import BenchConfig
from benchmarks.harness.estimate import (
    PILOT_INSTANCES,
    PILOT_MODEL,
    Estimate,
    account_itpm,
    as_calls_in_flight,
    cell_counts,
    estimate,
)
from benchmarks.harness.local import run_specs
from benchmarks.harness.plan import Plan
from patterns.pricing import batch_price_id, price_for
from patterns.specs import ModelSpec, load_model, provider_of

PAID = ("anthropic", "openai")


def pilot_spec(target: str) -> str:
    """The pilot's simulated model: the default one, priced as the target where the table knows it (so the
    simulated prompt cache keeps the target's minimum cacheable length)."""
    price = price_for(target)
    return PILOT_MODEL if price is None else f"{PILOT_MODEL},price_as={price.model}"


async def pilot_rows(config: BenchConfig, patterns: tuple[str, ...] | None = None,
                     instances: int = PILOT_INSTANCES) -> pd.DataFrame:
    """The sweep's tasks × `patterns` (default: its own) on its first `instances` instances, one trial each, on
    the simulator in this process: runs.csv's rows, nothing written. A model-graded task grades on the pilot's
    simulator too (a paid grader is never called)."""
    target = ModelSpec.parse(config.model).target
    pilot = replace(config, model=pilot_spec(target), patterns=patterns or config.patterns,
                    instances=min(instances, config.instances), trials=1, resume=False, overwrite=False,
                    allow_mixed=False, workers=1, executor="local", max_cost_usd=None, grader_model=None,
                    instances_by_task=(), tracing=None, manifest_extra=None, message_batches=False)
    plan = Plan(pilot)
    rows: list[dict[str, Any]] = []
    model = load_model(pilot.model)
    await run_specs(iter(plan), model, plan.policies, pilot, pilot.concurrency, pilot.max_in_flight,
                    lambda spec, row, events: rows.append(row), count=len(plan))
    return pd.DataFrame(rows)


def finished_rows(out: Path, plan: Plan) -> pd.DataFrame:
    """The folder's finished trials of this plan (runs.csv and the journals), as runs.csv's rows."""
    from benchmarks.harness import journal
    from benchmarks.harness.outputs import RUNS, read_table

    rows: list[dict[str, Any]] = []
    if (out / RUNS).exists():
        rows += read_table(out / RUNS, dtype=str, keep_default_na=False).to_dict("records")
    for path in journal.paths(out):
        rows += [record["row"] for _, record in journal.scan(path, [])]
    return pd.DataFrame([row for row in rows if plan.position(row) is not None])


async def sweep_estimate(config: BenchConfig, plan: Plan, missing: Iterable[int], model: Any = None, *,
                         resumed: bool = False, batched: bool = False) -> Estimate | None:
    """The estimate for the plan's `missing` positions on a provider model; None for the simulator or a cassette.

    `model` is the sweep's model after its pre-flight request (its rate-limit headers tell the account's limit)."""
    if provider_of(config.model) not in PAID:
        return None
    spec = ModelSpec.parse(config.model)
    counts = cell_counts(plan, missing)
    if not counts:
        return None
    in_flight = max(1, min(config.concurrency, config.max_in_flight))
    basis = finished_rows(config.out, plan) if resumed else pd.DataFrame()
    if len(basis):
        basis = as_calls_in_flight(basis, config.concurrency, in_flight)
    source = "finished" if len(basis) else "pilot"
    covered = set(zip(basis["task"], basis["pattern"], strict=True)) if len(basis) else set()
    lacking = tuple(p for p in config.patterns if any((t, p) not in covered for t, q in counts if q == p))
    if lacking:
        pilot = await pilot_rows(config, lacking)
        pilot = pilot[[(t, p) not in covered for t, p in zip(pilot["task"], pilot["pattern"], strict=True)]]
        basis = pd.concat([basis, pilot], ignore_index=True) if len(basis) else pilot
        source = "finished+pilot" if source == "finished" else "pilot"
    price = price_for(batch_price_id(spec.target) if batched else spec.target)  # a batch bills half
    return estimate(basis, counts, model=config.model, price=price, in_flight=in_flight,
                    itpm=account_itpm(model), source=source, batched=batched, seed=config.seed)
