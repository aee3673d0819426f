"""`wva bench --until-decided`: a sweep run in batches of instances that stops each task once its verdict is
decided, under the group-sequential design of `benchmarks.criterion.sequential` (α spent over the looks).

**How the folder grows (the decision).** One folder, one ordinary sweep per look. `BenchConfig` carries a
per-task instance count (`instances_by_task`), and look k is `run_bench` on the same folder with each task
still running at its k-th planned count and each stopped task at the count it stopped with. A resume may
already extend a sweep by instances (`benchmarks.harness.resume`: `instances` is not a compared setting), so
look k+1 is a resume of look k: finished trials are kept as they are, only the new instances run, and between
looks the folder is an ordinary results folder that `wva criterion` and `wva report` read like any other. A
folder per look merged at the end would have needed a merge step that the resume rules know nothing about.

**The manifest** keeps, under `until_decided`, the design (batch, maximum, spending), the verdict options
the looks used and every look of every task (`Decision.record()`). The harness writes it in each manifest
it writes (`BenchConfig.manifest_extra`) without reading it, so a sweep killed mid-look still says how it
was run. The criterion reads each task at the levels of the look it stopped at (`stopping_levels`), so
the verdict printed at the end is the one that stopped it.

**Resume.** The looks follow from the data: every finished look is decided again from runs.csv (each
task's first n instances at its look, with the same seeded code), so a resumed sweep takes the decisions
an uninterrupted one took, and the look in progress is completed by the harness's own resume (its
journal). A folder recorded with another design or other verdict options is refused, naming the flag, and
so is a folder whose trials do not follow from the flags (a task holding more instances than its looks
give it). The harness's rules (other settings, another run's trials, `--resume` needed) apply unchanged.

A task whose dataset holds fewer instances than `--max-instances` gets its dataset's size as its maximum,
so its last look spends what is left of the error budget; one smaller than a batch runs in one look.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from benchmarks.criterion.read import criterion_inputs
from benchmarks.criterion.sequential import KEY, Decision, Design, decide_at_look, design, stopped_at
from benchmarks.criterion.table import COLUMNS_READ, NO_CALLS, NO_DATA, any_model_call_succeeded
from benchmarks.criterion.verdict import Options
from benchmarks.criterion.withheld import REASON, WITHHELD
from benchmarks.harness.bench import BenchConfig, BenchOutcome, run_bench
from benchmarks.harness.config import settings_of
from benchmarks.harness.errors import SweepRefused
from benchmarks.harness.manifest import SETTINGS, read_manifest
from benchmarks.harness.outputs import RUNS, write_manifest
from benchmarks.harness.plan import Plan
from benchmarks.tasks.dataset import sim_warning

# what the looks depend on, beside the harness's settings: compared on resume, named by its flag
FLAGS = {"batch": "--batch", "max_instances": "--max-instances", "spending": "--spending", "margin": "--margin",
         "comparator": "--comparator", "cost_margin": "--cost-margin", "value_per_success": "--value-per-success"}


@dataclass(frozen=True)
class Tasks:
    """What the looks need of each task: its design, its family's declared workflow, the run's seed."""

    designs: dict[str, Design]
    declared: dict[str, str | None]
    options: Options
    seed: int
    withheld: frozenset[str] = frozenset()  # task files on sim: no verdict, so no look to wait for


@dataclass(frozen=True)
class State:
    """Where a sequential sweep is: the next look to decide, each task's count at it, the records so far."""

    look: int
    counts: dict[str, int]  # per task: the instances it runs at `look` (a stopped task: those it stopped with)
    running: tuple[str, ...]
    records: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class UntilDecided:
    outcome: BenchOutcome  # the last look's sweep (`ran`: the trials run by this invocation, every look)
    design: Design
    records: tuple[dict[str, Any], ...]  # every look of every task, in order

    def stopped(self) -> dict[str, dict[str, Any]]:
        """Per task, the record of the look it stopped at."""
        return stopped_at(list(self.records))


def tasks_of(config: BenchConfig, d: Design, options: Options) -> tuple[Tasks, list[str]]:
    """Each task's design (its dataset may cap the maximum) and a warning per capped task; a `SweepRefused` for
    patterns or options the looks cannot decide with."""
    flows = [p for p in config.patterns if p != "agent"]
    if "agent" not in config.patterns or not flows:
        raise SweepRefused("--until-decided compares the agent with workflows: --patterns needs agent and a workflow")
    if options.comparator not in (None, "declared", "selected") and options.comparator not in flows:
        raise SweepRefused(f"--comparator {options.comparator} is not among --patterns ({','.join(config.patterns)})")
    plan = Plan(replace(config, instances=d.max_instances, instances_by_task=()))
    designs, warnings, withheld = {}, [], set()
    for t in plan.tasks:
        if sim_warning(config.model, [t.family]):  # benchmarks.criterion.withheld: no look could ever decide it
            withheld.add(t.label)
            warnings.append(f"{t.label} is a task file on the simulator, whose verdict is withheld (no ground truth): "
                            "it stops at its first look; a real model or a cassette (examples/oracle.py) decides it")
        if "agent" not in t.patterns or len(t.patterns) < 2:
            raise SweepRefused(f"--until-decided: {t.label} offers {','.join(t.patterns)} of --patterns, and its looks "
                               "compare the agent with a workflow")
        designs[t.label] = design(d.batch, d.max_instances, d.spending) if t.count >= d.max_instances else \
            _capped(t.label, t.count, d)
        if t.count < d.max_instances:
            warnings.append(f"--max-instances {d.max_instances}: {t.label} has only {t.count}; its last look is at "
                            f"{t.count}")
    declared = {t.label: getattr(t.family, "natural_workflow", None) for t in plan.tasks}
    return Tasks(designs, declared, options, config.seed, frozenset(withheld)), warnings


def _capped(label: str, count: int, d: Design) -> Design:
    if count < 5:
        raise SweepRefused(f"{label} has only {count} instances: --until-decided needs at least 5")
    return design(min(d.batch, count), count, d.spending)


def block(d: Design, options: Options, tasks: Tasks, state: State) -> dict[str, Any]:
    """The manifest's `until_decided` record (JSON-ready)."""
    capped = {t: x.max_instances for t, x in tasks.designs.items() if x.max_instances != d.max_instances}
    return json.loads(json.dumps({
        "batch": d.batch, "max_instances": d.max_instances, "spending": d.spending, "margin": options.margin,
        "comparator": options.comparator or "declared", "cost_margin": options.cost_margin,
        "value_per_success": options.value_per_success, **({"max_by_task": capped} if capped else {}),
        "looks": list(state.records)}))


def decide(tasks: Tasks, look: int, g: pd.DataFrame, task: str, n: int) -> Decision:
    """Task `task`'s decision at look `look` on its first `n` instances (in the folder's order)."""
    first = list(dict.fromkeys(g["instance"]))[:n]
    part = g[g["instance"].isin(first)]
    d = tasks.designs[task]
    if not any_model_call_succeeded(part):  # a wrong key or base URL: nothing was measured, nothing more to spend
        return Decision(task, look, len(d.looks), len(first), True, NO_DATA, "", "", NO_CALLS, d.levels(look))
    if task in tasks.withheld:
        return Decision(task, look, len(d.looks), len(first), True, WITHHELD, "", "", REASON, d.levels(look))
    return decide_at_look(d, look, part, task, tasks.declared[task], tasks.options, tasks.seed)


def catch_up(state: State, tasks: Tasks, runs: dict[str, pd.DataFrame],
             on_look: Callable[[list[Decision]], None] | None = None) -> State:
    """Decide every look whose instances the folder holds for every task still running; the state after."""
    held = {t: int(g["instance"].nunique()) for t, g in runs.items()}
    while state.running and all(held.get(t, 0) >= state.counts[t] for t in state.running):
        decisions = [decide(tasks, state.look, runs[t], t, state.counts[t]) for t in state.running]
        running = tuple(x.task for x in decisions if not x.stop)
        counts = {**state.counts, **{t: tasks.designs[t].looks[state.look] for t in running}}
        state = State(state.look + 1, counts, running, (*state.records, *(x.record() for x in decisions)))
        if on_look:
            on_look(decisions)
    beyond = [t for t, n in held.items() if t in state.counts and n > state.counts[t]]
    if beyond:
        t = beyond[0]
        raise SweepRefused(f"the folder's trials do not follow from these flags: {t} holds {held[t]} instances, and "
                           f"under them it runs {state.counts[t]} (another --margin, --comparator or --cost-margin?): "
                           "use another --out, or --overwrite to start again")
    return state


def runs_by_task(config: BenchConfig) -> dict[str, pd.DataFrame]:
    """The folder's finished trials per task, read as the criterion reads them ({} for none)."""
    if not (config.out / RUNS).exists():
        return {}
    found: dict[str, list[pd.DataFrame]] = {}
    for chunk in criterion_inputs(config.out, COLUMNS_READ)[0]:
        for task, g in chunk.groupby("task", sort=False):
            found.setdefault(str(task), []).append(g)
    return {t: pd.concat(gs, ignore_index=True) for t, gs in found.items()}


def recorded(config: BenchConfig, new: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """The finished trials a resume (or a folder with nothing to do) starts from, once the folder's record
    agrees with the flags; {} where the harness decides alone (a fresh run, another run's settings)."""
    if config.overwrite or not config.out.is_dir():
        return {}
    old = read_manifest(config.out)
    if old is None or _settings_differ(old, config):
        return {}  # the harness refuses it, naming what differs, or starts afresh
    was = old.get(KEY)
    if not isinstance(was, dict):
        if (config.out / RUNS).exists():
            raise SweepRefused(f"{config.out}/ holds a sweep run without --until-decided: use another --out, or "
                               "--overwrite to start again")
        return {}
    for key, flag in FLAGS.items():
        if was.get(key) != new[key]:
            raise SweepRefused(f"{config.out}/ holds an --until-decided sweep run with {flag} {was.get(key)}, and "
                               f"this one asks for {flag} {new[key]}: use another --out, or --overwrite to start again")
    return runs_by_task(config)


def _settings_differ(old: dict[str, Any], config: BenchConfig) -> bool:
    new = json.loads(json.dumps(settings_of(config), default=str))
    # "study" is this study's own mark (compared just after, flag by flag), not a user's setting
    return any(json.loads(json.dumps(old.get(k), default=str)) != new.get(k) for k in SETTINGS if k != "study")


def config_at(config: BenchConfig, state: State, extra: dict[str, Any], first: bool) -> BenchConfig:
    """The sweep of the look `state` is at: the user's flags for the first sweep, a resume after it."""
    return replace(config, instances=max(state.counts.values()), instances_by_task=tuple(sorted(state.counts.items())),
                   resume=config.resume or not first, overwrite=config.overwrite and first,
                   manifest_extra={KEY: extra})


def save_looks(config: BenchConfig, extra: dict[str, Any]) -> bool:
    """Put the looks in the folder's manifest; whether it changed (a folder with nothing to do is not touched)."""
    doc = read_manifest(config.out)
    if doc is None or doc.get(KEY) == extra:
        return False
    write_manifest(config.out, {**doc, KEY: extra})  # not a compared setting: the fingerprint still holds
    return True


async def run_until_decided(config: BenchConfig, d: Design, options: Options, *,
                            on_trial: Callable[[dict[str, Any]], None] | None = None,
                            on_start: Callable[[int, int], None] | None = None,
                            on_warning: Callable[[str], None] | None = None,
                            on_look: Callable[[list[Decision]], None] | None = None,
                            on_estimate: Callable[[Any], None] | None = None) -> UntilDecided:
    """Run the sweep look by look until every task has decided or reached its maximum (module docstring).
    Raises what `run_bench` raises, and `SweepRefused` for a folder whose looks are not these flags'."""
    tasks, warnings = tasks_of(config, d, options)
    for line in warnings:
        if on_warning:
            on_warning(line)
    state = State(1, {t: x.looks[0] for t, x in tasks.designs.items()}, tuple(tasks.designs))
    state = catch_up(state, tasks, recorded(config, block(d, options, tasks, state)))
    ran, idle, first = 0, True, True
    while True:
        outcome = await run_bench(config_at(config, state, block(d, options, tasks, state), first), on_trial=on_trial,
                                  on_start=on_start, on_warning=on_warning, on_estimate=on_estimate)
        ran, idle, first, look = ran + outcome.ran, idle and outcome.nothing_to_do, False, state.look
        state = catch_up(state, tasks, runs_by_task(config), on_look)
        if state.running and state.look == look:  # never: each look's sweep runs the instances it decides on
            raise RuntimeError(f"look {look} ran, but the folder does not hold its instances")
        idle = not save_looks(config, block(d, options, tasks, state)) and idle
        if not state.running:
            break
    outcome = replace(outcome, ran=ran, nothing_to_do=idle, warnings=(*warnings, *outcome.warnings))
    return UntilDecided(outcome, d, state.records)
