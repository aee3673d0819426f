"""The default `wva bench`'s repeats phase: the agent alone, `REPEATS_TRIALS` trials on each task's first
`REPEATS_INSTANCES` instances, in the results folder's `repeats/` sub-folder (docs/stopping-early.md, "The default
run"), so that drawability can be measured on a sweep of one trial per instance.

**Why.** Drawability judges a model decision drawn only when its choice depends on the instance: agreement within
an instance's trials must clearly exceed agreement between instances (`benchmarks.criterion.drawability`). That
needs an instance's trials repeated, and the default sweep runs one trial per instance (the verdict gains more from
new instances than from repeated ones). A results folder holds one plan with one trial count for every design, so
the repeats grow in a folder of their own, like the decided phase's: the same model, seed, limits and options, the
agent only, the pilot's first instances (the seeded instances are the same whatever the count; a trial's run id
fixes its outcome, so each instance's first trial is the pilot's own, run again). `wva criterion DIR` reads
drawability from `repeats/` (`benchmarks.criterion.repeats_runs`) and everything else from the pilot, as before.

**When it runs.** When the sweep runs fewer than `REPEATS_TRIALS` trials per instance and the agent is among its
designs, on at least the `D` + 2 instances drawability needs (below that it is not measured, whatever the
trials); never with `--no-repeats` (then drawability reads the pilot's trials); on the simulator by default, on
any other model (a paid one, or a cassette that holds only the requests it recorded) only when `--repeats` asks:
it is `REPEATS_INSTANCES` × `REPEATS_TRIALS` agent trials per task of money. Not with `--max-cost`, which caps
one sweep: this would be a second. At `REPEATS_TRIALS` trials or more the sweep itself is read, as before.

**The manifest.** The folder's manifest records the phase under `repeats` (the folder, the design, the trials,
the instances, the tasks and why it ran); the criterion reads `repeats/` only while that record is there and the
sub-folder is this sweep's (the same model, seed and code). A run with `--no-repeats` drops the record, so the
manifest always says where drawability is read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from benchmarks.criterion.drawability import D
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.manifest import read_manifest
from benchmarks.harness.outputs import write_manifest
from benchmarks.harness.plan import not_offered
from benchmarks.names import REPEATS, REPEATS_INSTANCES, REPEATS_TRIALS
from benchmarks.tasks.registry import load_task
from patterns.specs import provider_of

KEY = REPEATS  # the folder manifest's record of the repeats phase
WHY = ("drawability reads whether each model decision depends on the instance (agreement within an instance's "
       "trials above agreement between instances), which needs an instance's trials repeated")


@dataclass(frozen=True)
class Phase:
    """The repeats phase of a folder: its sweep's config (None: not run) and, when not run, why (None: nothing to
    say, as when the sweep has its own repeated trials)."""

    config: BenchConfig | None
    skipped: str | None = None
    forget: BenchConfig | None = None  # `--no-repeats`: the folder whose record of the phase is dropped


def phase(pilot: BenchConfig, skip: bool = False, paid: bool = False, instances: int = REPEATS_INSTANCES) -> Phase:
    """The repeats phase of `pilot`'s folder. `skip`: `--no-repeats`; `paid`: `--repeats`, run it on a model other
    than the simulator too; `instances`: per task, at most (the pilot's count when it ran fewer)."""
    n = min(instances, pilot.instances)
    needed = pilot.trials < REPEATS_TRIALS and "agent" in pilot.patterns and n >= D + 2
    if skip:  # the folder's record of an earlier phase goes too: the manifest says where drawability is read
        return Phase(None, f"repeats: skipped (--no-repeats); drawability reads the sweep's {pilot.trials} trial(s) "
                     "per instance, where it cannot tell a choice that depends on the instance from a coin"
                     if needed else None, pilot)
    if not needed:
        return Phase(None)  # its own repeated trials; no agent; too few instances for drawability to be read
    if pilot.max_cost_usd is not None:
        return Phase(None, "repeats: not run: --max-cost caps one sweep, and the repeats phase would be a second; "
                     "drawability reads the sweep's own trials")
    if provider_of(pilot.model) != "sim" and not paid:
        return Phase(None, f"repeats: not run on {pilot.model} ({n} instances x {REPEATS_TRIALS} agent trials per "
                     "task, which a paid model charges for and a cassette may not hold): --repeats runs it; "
                     "drawability reads the sweep's own trials")
    tasks = tuple(spec for spec in pilot.tasks if "agent" not in not_offered(load_task(spec), ("agent",)))
    if not tasks:
        return Phase(None)
    record = {"why": WHY, "pattern": "agent", "instances": n, "trials": REPEATS_TRIALS}
    return Phase(replace(pilot, out=pilot.out / REPEATS, tasks=tasks, patterns=("agent",), instances=n,
                         trials=REPEATS_TRIALS, instances_by_task=(), patterns_by_task=(),
                         manifest_extra={KEY: record}))


async def run_repeats(p: Phase, run: Callable[..., Any], **hooks: Callable[..., Any] | None) -> Any:
    """Run the phase and record it in the pilot folder's manifest: the outcome of `run` (the harness's `run_bench`,
    given by the caller as `benchmarks.studies.drawn` is given it: it keeps this module off the longest chain of
    imports; hooks: its callbacks), None when the phase does not run (with `--no-repeats` its record, if any, is
    dropped; a run that only did not ask for it on a paid model keeps the repeats it paid for)."""
    if p.config is None:
        if p.forget is not None:
            forget(p.forget)
        return None
    outcome = await run(p.config, **hooks)
    record(p, outcome.trials)
    return outcome


def record(p: Phase, trials: int) -> None:
    """The pilot folder's manifest gets the phase under `repeats` (not a compared setting: a resume still holds)."""
    assert p.config is not None
    c = p.config
    entry = {"folder": REPEATS, "pattern": "agent", "instances": c.instances, "trials_per_instance": c.trials,
             "trials": trials, "tasks": list(c.tasks), "why": f"the sweep runs fewer than {REPEATS_TRIALS} trials "
             f"per instance, and {WHY}: drawability is read here, everything else from the folder itself"}
    pilot = c.out.parent
    doc = read_manifest(pilot)
    if doc is not None and doc.get(KEY) != entry:
        write_manifest(pilot, {**doc, KEY: entry})


def forget(pilot: BenchConfig) -> None:
    """Drop the phase's record from the folder's manifest (a run without the phase: drawability reads the folder)."""
    doc = read_manifest(pilot.out)
    if doc is not None and KEY in doc:
        write_manifest(pilot.out, {k: v for k, v in doc.items() if k != KEY})
