"""`wva plan`'s estimate: what a run of the size it recommends would cost and how long it would take.

The run is each task at the instances its plan needs (`TaskPlan.needed`), with the designs and the trials per
instance the pilot folder ran, from scratch. The basis is the folder's own trials (`benchmarks.harness.estimate`:
each trial priced at its task × design's mean, a 90% bootstrap range over the folder's instances), priced at
`model`'s price — by default the folder's model: a simulator's `price_as` (the tier its cost column used), a
provider's model id; a cassette has no price of its own. Wall time assumes `wva bench`'s default bounds (16 trials
and 8 model calls in flight) and no known token limit. A task no size up to `--max-instances` decides is left out
and named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.harness.config import BenchConfig
from benchmarks.harness.estimate import Estimate, as_calls_in_flight, estimate
from benchmarks.harness.outputs import MANIFEST, read_runs
from patterns.pricing import price_for
from patterns.specs import ModelSpec, provider_of, sim_knobs


def price_model(model: str) -> str | None:
    """The price table id a model spec's calls are priced at (None: a cassette, which has no price of its own, or
    a folder's model that is no spec)."""
    if not provider_of(model):
        return None
    spec = ModelSpec.parse(model)
    if spec.is_sim:
        return str(spec.knob_values().get("price_as", sim_knobs()["price_as"][1]))
    return spec.target if spec.provider in ("anthropic", "openai") else None


def plan_estimate(folder: Path, plans: list[Any], model: str | None = None) -> tuple[Estimate | None, list[str]]:
    """(the estimate for the recommended run, or None when no task has a size; the tasks left out)."""
    runs = read_runs(folder)
    manifest = json.loads((folder / MANIFEST).read_text()) if (folder / MANIFEST).exists() else {}
    trials = int(manifest.get("trials") or (runs["trial"].astype(int).max() + 1))
    model = model or str(runs["model"].iloc[0])
    sized = [p for p in plans if p.needed is not None]
    left_out = [p.task for p in plans if p.needed is None]
    counts = {(p.task, pattern): p.needed * trials for p in sized
              for pattern in sorted(set(runs.loc[runs["task"] == p.task, "pattern"]))}
    if not counts:
        return None, left_out
    defaults = BenchConfig()
    in_flight = min(defaults.concurrency, defaults.max_in_flight)
    basis = as_calls_in_flight(runs[runs["task"].isin([p.task for p in sized])], defaults.concurrency, in_flight)
    price_id = price_model(model)
    est = estimate(basis, counts, model=model, price=price_for(price_id) if price_id else None,
                   in_flight=in_flight, source="finished")
    return est, left_out
