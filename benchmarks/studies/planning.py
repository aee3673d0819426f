"""`wva plan DIR`: from a pilot run, how many instances a run needs for the verdict to decide — the rule
itself simulated on planned runs drawn from the pilot (`benchmarks.studies.plan_sim`), per task.

The stated truths: no difference (a right verdict is `either`, or the side cheaper by the cost margin),
the agent or the comparator better by exactly the margin δ, and better by the effect a team names (default
2δ). For each, the smallest run with the target power (default 80%): at the pilot's spread of
per-instance differences, and at its 80% upper confidence limit (sd × √((n−1)/χ²₀.₂(n−1)), so a noisy
pilot asks for more). A task's figure is the largest of those upper-limit sizes: enough whichever truth
holds. For a pilot too small to decide, the plan also says what it can decide: the smallest margin whose
truths reach the target at the pilot's own size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import stats as st

from benchmarks.criterion.comparison import tables
from benchmarks.criterion.deciding import MODES, mode_of
from benchmarks.criterion.verdict import Options
from benchmarks.studies.plan_sim import Engine, Pilot

CONFIDENCE = 0.8  # the one-sided confidence of the spread's upper limit


@dataclass(frozen=True)
class Alternative:
    name: str
    truth: float  # agent − comparator success
    power_now: float  # at the pilot's size and spread: a new run of that size
    needed: int | None  # instances for the target power at the pilot's spread (None: over the largest size)
    needed_upper: int | None  # at the spread's upper confidence limit
    power_upper: float = math.nan  # a new run of the pilot's size, at the spread's upper confidence limit


@dataclass(frozen=True)
class TaskPlan:
    task: str
    comparator: str
    mode: str
    instances: int  # the pilot's, every compared pattern ran them
    spread: float  # sd of the comparator's per-instance success differences
    spread_upper: float
    alternatives: list[Alternative]
    needed: int | None  # the largest upper-limit size over the alternatives (None: over the largest)
    decidable_margin: float | None  # the smallest margin the pilot's size decides (None: not even 0.45)
    available: int | None = None  # the most instances the task has (a task file's rows), None: unbounded
    verdict: str = ""  # the folder's own verdict (its decided phase's, when it has one)
    verdict_instances: int | None = None  # the instances that verdict was reached on


def spread_factor(n: int, confidence: float = CONFIDENCE) -> float:
    """The upper confidence limit of a standard deviation from n instances, as a multiple of it."""
    return math.sqrt((n - 1) / st.chi2.ppf(1 - confidence, n - 1)) if n >= 2 else math.inf


def pilot_for(g: pd.DataFrame, flows: list[str], declared: str | None, options: Options) -> Pilot:
    """A task's pilot: the instances every compared pattern ran (declared or named: the agent and one
    workflow; selected: every workflow)."""
    _, one = mode_of(flows, declared, options.comparator)
    chosen = [one] if one is not None else flows
    t = tables(g, ["agent", *chosen])
    keep = t.success.notna().all(axis=1)
    cost = t.cost[keep].to_numpy(float)
    return Pilot(t.success[keep].to_numpy(float), None if np.isnan(cost).any() else cost, chosen)


def alternatives(margin: float, effect: float) -> list[tuple[str, float]]:
    out = [("no difference", 0.0), (f"agent +{margin:.2f}", margin), (f"workflow +{margin:.2f}", -margin)]
    if not math.isclose(effect, margin):
        out += [(f"agent +{effect:.2f}", effect), (f"workflow +{effect:.2f}", -effect)]
    return out


def decidable_margin(pilot: Pilot, options: Options, target: float, factor: float, seed: int) -> float | None:
    """The smallest margin (to 0.01) whose truths — 0 and ±margin — all reach `target` at the pilot's size."""
    def enough(margin: float) -> bool:
        engine = Engine(pilot, replace(options, margin=margin))
        return all(engine.power(t, pilot.instances, factor, seed=seed) >= target for t in (0.0, margin, -margin))

    low, high = 0.0, 0.45
    if not enough(high):
        return None
    while high - low > 0.01:
        mid = (low + high) / 2
        low, high = (mid, high) if not enough(mid) else (low, mid)
    return round(high, 2)


def plan_task(task: str, g: pd.DataFrame, declared: str | None, options: Options, effect: float,
              target: float = 0.8, largest: int = 10000, seed: int = 0) -> TaskPlan:
    """One task's plan (module docstring)."""
    flows = sorted(set(g["pattern"]) - {"agent"})
    pilot = pilot_for(g, flows, declared, options)
    mode, _ = mode_of(flows, declared, options.comparator)
    engine, factor = Engine(pilot, options), spread_factor(pilot.instances)
    alts = []
    for name, truth in alternatives(options.margin, effect):
        alts.append(Alternative(name, truth, engine.power(truth, pilot.instances, seed=seed),
                                engine.smallest_n(truth, target, 1.0, largest, seed),
                                engine.smallest_n(truth, target, factor, largest, seed),
                                engine.power(truth, pilot.instances, factor, seed=seed)))
    sizes = [a.needed_upper for a in alts]
    spread = float(pilot.diffs()[:, pilot.best()].std(ddof=1))
    return TaskPlan(task, pilot.flows[pilot.best()], MODES[mode], pilot.instances, spread, spread * factor, alts,
                    None if None in sizes else max(s for s in sizes if s is not None),
                    decidable_margin(pilot, options, target, factor, seed))


def plan_frame(plans: list[TaskPlan]) -> pd.DataFrame:
    """`plan.csv`: one row per task and stated truth."""
    return pd.DataFrame([{
        "task": p.task, "comparator": p.comparator, "comparator_mode": p.mode, "pilot_instances": p.instances,
        "spread": p.spread, "spread_upper": p.spread_upper, "truth": a.name, "difference": a.truth,
        "power_at_pilot": a.power_now, "power_at_pilot_upper": a.power_upper,
        "instances_needed": a.needed, "instances_needed_upper": a.needed_upper,
        "task_instances_needed": p.needed, "decidable_margin": p.decidable_margin,
        "instances_available": p.available, "folder_verdict": p.verdict,
        "folder_verdict_instances": p.verdict_instances} for p in plans
        for a in p.alternatives])


def plan_folder(out_dir: str, options: Options, effect: float | None = None, target: float = 0.8,
                largest: int = 10000) -> list[TaskPlan]:
    """A plan for every task of a results folder with agent and workflow runs (the folder is the pilot)."""
    from benchmarks.criterion import families
    from benchmarks.criterion.read import load_inputs

    runs, _, manifest = load_inputs(out_dir)
    specs = families.task_specs(manifest)
    seed = int(manifest.get("seed", 0) or 0)
    plans = []
    for task, g in runs.groupby("task", sort=False):
        flows = sorted(set(g["pattern"]) - {"agent"})
        if "agent" not in set(g["pattern"]) or not flows:
            continue
        if options.comparator not in (None, "declared", "selected") and options.comparator not in flows:
            continue
        family = families.load_family(specs.get(str(task), str(task)))
        declared = getattr(family, "natural_workflow", None)
        plan = plan_task(str(task), g, declared, options, 2 * options.margin if effect is None else effect, target,
                         largest, seed)
        verdict, n = folder_verdict(out_dir, str(task), g, declared, options, manifest)
        plans.append(replace(plan, available=available(family), verdict=verdict, verdict_instances=n))
    return plans


def folder_verdict(out_dir: str, task: str, g: pd.DataFrame, declared: str | None, options: Options,
                   manifest: dict[str, object]) -> tuple[str, int | None]:
    """(the folder's own verdict on the task, the instances it read): what `wva criterion` says of it, read at
    the look a sequential run stopped at, with a decided phase's rows in place of the pilot's."""
    from benchmarks.criterion.bounds import FIXED
    from benchmarks.criterion.decided_runs import DecidedRuns, merged
    from benchmarks.criterion.deciding import decide_task
    from benchmarks.criterion.read import stopping_levels

    grown = DecidedRuns(out_dir, manifest, options.comparator, list(g.columns))
    levels = {**stopping_levels(manifest), **grown.levels}.get(task, FIXED)
    rows = merged(g, grown.of(task))
    seed = int(str(manifest.get("seed", 0) or 0))
    d = decide_task(rows, sorted(set(rows["pattern"]) - {"agent"}), declared, options, seed, levels)
    return d.verdict.verdict, d.pair.instances


def available(family: object) -> int | None:
    """The most instances a task has: a finite dataset's size (`max_instances()`, a task file's rows), else None."""
    size = getattr(family, "max_instances", None)
    return int(size()) if callable(size) else None


def _size(n: int | None, largest: int) -> str:
    return f"over {largest}" if n is None else str(n)


def plan_lines(p: TaskPlan, target: float = 0.8, largest: int = 10000) -> list[str]:
    """The plan of one task in words and a small table."""
    lines = [f"{p.task} (against {p.comparator}, {p.mode}): the pilot's {p.instances} instances, per-instance "
             f"spread {p.spread:.2f} ({p.spread_upper:.2f} at its {CONFIDENCE:.0%} upper limit)"]
    if p.verdict and p.verdict not in ("inconclusive", "withheld", "no data"):
        lines.append(f"  this folder is decided: {p.verdict} at n = {p.verdict_instances}; the power below is for a "
                     f"new run of {p.instances} instances, not for this one")
    lines.append(f"    {'if the truth is':<18} {f'power at {p.instances}':>12} {'(upper spread)':>14}  "
                 f"{f'instances for {target:.0%}':>17}  {'(upper spread)':>14}")
    lines += [f"    {a.name:<18} {a.power_now:>12.0%} {a.power_upper:>14.0%}  {_size(a.needed, largest):>17}  "
              f"{_size(a.needed_upper, largest):>14}" for a in p.alternatives]
    if p.needed is not None and p.needed <= p.instances:
        lines.append(f"  → a run of {p.instances} instances decides whichever of these is true")
        return lines
    if p.available is not None and (p.needed is None or p.needed > p.available):
        lines.append(f"  → the task has only {p.available} instances (its dataset's rows), fewer than the "
                     f"{_size(p.needed, largest)} this plan needs: more trials per instance narrow the spread "
                     "between trials only, so add rows, or accept a wider margin (below)")
    lines.append(f"  → a new run of {p.instances} instances is not sure to decide a {p.alternatives[1].truth:.2f} "
                 f"margin (under {target:.0%} power for some truth); {_size(p.needed, largest)} instances decide "
                 "whichever of these is true")
    can = (f"a margin of {p.decidable_margin:.2f}" if p.decidable_margin is not None else "no margin up to 0.45")
    lines.append(f"  → with {p.instances} instances the rule decides {can} (its truths 0 and ±margin at "
                 f"{target:.0%} power)")
    return lines
