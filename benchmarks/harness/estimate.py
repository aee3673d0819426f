"""The estimate printed before a paid sweep: what it will cost and how long it will take, each with a range.

The figures rest on a *basis*: trials already run whose usage is known, one row each (task, instance,
pattern, tokens, model calls, latency):

- a fresh sweep's basis is a **pilot on the simulator** (`pilot_rows`): the sweep's own tasks × designs on
  its first `PILOT_INSTANCES` instances, one trial each, run here on `sim:error_rate=0.1` (the default model,
  priced as the target where the table knows it, so the cache's thresholds are the target's). It costs
  nothing and takes a second or two;
- a resumed sweep's basis is the **folder's finished trials** (their real tokens, calls and latency); a task ×
  design the folder has no trial of yet gets the pilot's trials instead.

Each trial still to run is priced at the mean of its task × design in the basis, its tokens at the target
model's price (`patterns/prices.json`, `--prices FILE`); the sum is the point estimate. A model the table does
not price has its cost *unknown* (None), never $0.

Wall time is the larger of two bounds: the trials' summed latency spread over the calls in flight
(`min(concurrency, max_in_flight)`: a trial's calls mostly follow one another; a finished trial's measured
latency, which holds its waits, is spread over the trials in flight instead: `as_calls_in_flight`), and the
prompt tokens that count toward an input-token limit (input and cache writes: cache reads do not, for current
Claude models, the rate-limits page's "Cache-aware ITPM", https://platform.claude.com/docs/en/api/rate-limits;
`patterns.sim.ratelimit` quotes it) at the account's input-token limit a minute, when a reply's
`anthropic-ratelimit-input-tokens-limit` header told it (the pre-flight request's), less the first minute's
worth, which a full bucket lets through at once. Ramp-up, 429s and retries' waits are not in it.

**The range** is a 90% bootstrap interval: the basis's *instances* are resampled with replacement within
each task (the unit: an instance, whose trials share their input), 1,000 times, and the estimate is
recomputed from each resample; the range is the 5th to 95th percentile. It says how much the figure would
move on other instances like the basis's. It does not cover how far a real model's tokens differ from the
simulator's (on a pilot the larger unknown: a real model's replies may be longer or shorter), nor the
price table being out of date.

`rounds` is the most model calls any one basis trial made: a batched sweep (the Message Batches API) sends
each trial's next call only once the batch holding its last call has ended, so it needs that many batch
round trips. `batched` says whether the sweep asks for batches (the CLI prints the rounds only then).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from patterns.pricing import Price

PILOT_INSTANCES = 3
RESAMPLES = 1000
LEVEL = 0.90
PILOT_MODEL = "sim:error_rate=0.1"
TOKEN_COLUMNS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_VALUES = ("cost", "tokens", "prompt", "steps", "latency_s")


@dataclass(frozen=True)
class Estimate:
    """A sweep's estimated cost (USD) and wall time (s), each a point and a 90% range (module docstring)."""

    model: str
    trials: int  # the trials the estimate is for (those still to run)
    source: str  # "pilot", "finished" or "finished+pilot": what the basis is
    basis_trials: int
    basis_instances: int
    price_model: str | None  # the price table's entry; None: the price is unknown, and so is the cost
    cost_usd: float | None
    cost_low_usd: float | None
    cost_high_usd: float | None
    tokens: int  # every token of every call (input, output, cache reads and writes)
    calls: int  # model calls
    rounds: int  # the most model calls one basis trial made: a batched sweep's round trips
    wall_s: float
    wall_low_s: float
    wall_high_s: float
    wall_basis: str  # "calls in flight" or "input tokens per minute": which bound set the point
    in_flight: int
    input_tokens_per_minute: float | None  # the account's limit, when a reply's header told it
    batched: bool = False  # the sweep sends its calls as message batches (the CLI says how many rounds)
    per_trial: tuple[tuple[str, str, float | None, float], ...] = ()  # (task, pattern, cost, tokens): cell means

    def cell_cost(self, task: str, pattern: str) -> float | None:
        """The estimated cost of one trial of this task × design (None: unknown price or not estimated)."""
        return next((cost for t, p, cost, _ in self.per_trial if (t, p) == (task, pattern)), None)

    def cell_tokens(self, task: str, pattern: str) -> float | None:
        """The estimated tokens (every kind) of one trial of this task × design (None: not estimated)."""
        return next((tokens for t, p, _, tokens in self.per_trial if (t, p) == (task, pattern)), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (the manifest's `estimate`, `wva plan --json`), without the per-cell table."""
        doc = asdict(self)
        doc.pop("per_trial")
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in doc.items()}


def priced(rows: pd.DataFrame, price: Price | None) -> pd.DataFrame:
    """The basis's values per trial: cost (NaN without a price), tokens, prompt tokens, model calls, latency."""
    tokens = rows[list(TOKEN_COLUMNS)].apply(pd.to_numeric, errors="coerce").fillna(0.0)
    out = pd.DataFrame({"task": rows["task"].astype(str), "instance": rows["instance"].astype(str),
                        "pattern": rows["pattern"].astype(str)})
    out["cost"] = np.nan if price is None else 1e-6 * (
        tokens["input_tokens"] * price.input + tokens["output_tokens"] * price.output
        + tokens["cache_read_tokens"] * price.cache_read + tokens["cache_write_tokens"] * price.cache_write)
    out["tokens"] = tokens.sum(axis=1)
    out["prompt"] = tokens["input_tokens"] + tokens["cache_write_tokens"]  # what an ITPM limit counts: no cache reads
    out["steps"] = pd.to_numeric(rows["steps"], errors="coerce").fillna(0.0)
    out["latency_s"] = pd.to_numeric(rows["latency_s"], errors="coerce").fillna(0.0)
    return out


def estimate(basis: pd.DataFrame, counts: Mapping[tuple[str, str], int], *, model: str, price: Price | None,
             in_flight: int, itpm: float | None = None, source: str = "pilot", batched: bool = False,
             seed: int = 0) -> Estimate:
    """The estimate for `counts` trials per (task, pattern), from `basis` rows (runs.csv's columns)."""
    values = priced(basis, price)
    rng = np.random.default_rng(seed)
    point, boot = _totals(values, counts, rng)
    wall_point, wall_boot, by_tokens = _wall(point, boot, in_flight, itpm)
    cost_known = price is not None
    low, high = (np.quantile(boot["cost"], [(1 - LEVEL) / 2, (1 + LEVEL) / 2]) if cost_known else (None, None))
    wall_low, wall_high = np.quantile(wall_boot, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    means = values.groupby(["task", "pattern"])[["cost", "tokens"]].mean()
    cells = tuple((t, p, float(means.loc[(t, p), "cost"]) if cost_known and (t, p) in means.index else None,
                   float(means.loc[(t, p), "tokens"]) if (t, p) in means.index else float(values["tokens"].mean()))
                  for t, p in counts)
    return Estimate(
        model=model, trials=int(sum(counts.values())), source=source, basis_trials=len(values),
        basis_instances=int(values.groupby(["task", "instance"]).ngroups), price_model=price.model if price else None,
        cost_usd=float(point["cost"]) if cost_known else None,
        cost_low_usd=float(low) if low is not None else None, cost_high_usd=float(high) if high is not None else None,
        tokens=round(point["tokens"]), calls=round(point["steps"]), rounds=int(values["steps"].max() or 0),
        wall_s=wall_point, wall_low_s=float(wall_low), wall_high_s=float(wall_high),
        wall_basis="input tokens per minute" if by_tokens else "calls in flight", in_flight=in_flight,
        input_tokens_per_minute=itpm, batched=batched, per_trial=cells)


def _totals(values: pd.DataFrame, counts: Mapping[tuple[str, str], int],
            rng: np.random.Generator) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """(the totals over the trials to run, the same totals on each bootstrap resample of the instances)."""
    point = dict.fromkeys(_VALUES, 0.0)
    boot = {v: np.zeros(RESAMPLES) for v in _VALUES}
    overall = values[list(_VALUES)].mean()
    for task in sorted({t for t, _ in counts}):
        wanted = [p for t, p in counts if t == task]
        n = np.array([counts[(task, p)] for p in wanted], dtype=float)
        sub = values[values["task"] == task]
        for v in _VALUES:
            grid = sub.pivot_table(index="instance", columns="pattern", values=v, aggfunc="mean",
                                   dropna=False).reindex(columns=wanted).to_numpy(dtype=float) \
                if len(sub) else np.full((1, len(wanted)), np.nan)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: filled just below
                means = np.nanmean(grid, axis=0)
                resampled = np.nanmean(grid[rng.integers(0, len(grid), (RESAMPLES, len(grid)))], axis=1)
            means = np.where(np.isnan(means), overall[v], means)  # a cell no basis trial ran: the mean trial
            resampled = np.where(np.isnan(resampled), means, resampled)
            point[v] += float(means @ n)
            boot[v] += resampled @ n
    return point, boot


def _wall(point: dict[str, float], boot: dict[str, np.ndarray], in_flight: int,
          itpm: float | None) -> tuple[float, np.ndarray, bool]:
    """(wall time in s, on each resample, whether the token limit set the point): the larger of the two bounds."""
    by_calls, boot_calls = point["latency_s"] / in_flight, boot["latency_s"] / in_flight
    if not itpm:
        return by_calls, boot_calls, False
    # the account's token bucket starts full (the API's token-bucket rule): a minute's worth goes at once
    by_tokens = 60.0 * max(0.0, point["prompt"] - itpm) / itpm
    boot_tokens = 60.0 * np.maximum(0.0, boot["prompt"] - itpm) / itpm
    return max(by_calls, by_tokens), np.maximum(boot_calls, boot_tokens), by_tokens > by_calls


def cell_counts(plan: Any, positions: Any) -> dict[tuple[str, str], int]:
    """Trials per (task label, pattern) among the plan's `positions` (arithmetic on each position, no trial made)."""
    counts: dict[tuple[str, str], int] = {}
    for position in positions:
        task = next(t for t in reversed(plan.tasks) if t.start <= position)
        pattern = task.patterns[((position - task.start) // plan.trials) % len(task.patterns)]
        counts[(task.label, pattern)] = counts.get((task.label, pattern), 0) + 1
    return counts


def with_estimate(row: dict[str, Any], spec: Any, est: Estimate | None) -> dict[str, Any]:
    """The trial's row with what the sweep's estimate expected it to cost beside its bill (as it is without one)."""
    if est is None:
        return row
    return {**row, "estimated_cost_usd": est.cell_cost(spec.task, spec.pattern),
            "estimated_tokens": est.cell_tokens(spec.task, spec.pattern)}


def as_calls_in_flight(rows: pd.DataFrame, concurrency: int, in_flight: int) -> pd.DataFrame:
    """The basis with each measured latency put on the scale of the simulator's, so one wall-time rule fits both.

    A simulated trial's latency is its calls' modelled time, no waiting in it: `in_flight` of them overlap. A trial
    run on a provider was timed on the wall, its waits for a call slot included: by Little's law `concurrency`
    trials in flight, each that long, finish one per latency / concurrency — so it is scaled by in_flight /
    concurrency."""
    from patterns.specs import provider_of

    measured = rows["model"].map(lambda m: provider_of(m) != "sim") if "model" in rows else False
    latency = pd.to_numeric(rows["latency_s"], errors="coerce")
    return rows.assign(latency_s=latency.where(~measured, latency * in_flight / concurrency))


def account_itpm(model: Any) -> float | None:
    """The account's input tokens a minute, from the last reply's rate-limit headers (the pre-flight's), if any."""
    headers = getattr(model, "rate_headers", None) or {}
    try:
        value = float(headers["anthropic-ratelimit-input-tokens-limit"])
    except (KeyError, TypeError, ValueError):
        return None
    return value if value > 0 else None
