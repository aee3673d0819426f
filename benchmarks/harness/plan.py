"""The sweep's plan: every trial in a stable order, generated as it is needed, never held as a list.

The plan also runs a part of itself here (`run_here`): a shard or a Ray worker rebuilds the same plan from
the sweep's configuration and runs the trials it was given by run id.

The order is task, then instance, then pattern, then trial — the order of `runs.csv`. A trial's place
in it (its *position*) is arithmetic on those four, so a finished trial found in a journal or an old
`runs.csv` is put in its place with a few small lookups (one per task and instance), not a table of
every run id: the sweep's memory does not grow with its size (`benchmarks/perf/memory.py`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from benchmarks.harness.config import BenchConfig
from benchmarks.harness.local import run_specs
from benchmarks.harness.trial import TrialSpec, run_id
from benchmarks.names import DRAWN
from benchmarks.tasks.base import FamilyBase, iter_instances, task_label
from benchmarks.tasks.registry import load_task
from patterns.deadline import with_deadline
from patterns.model import aclose_model
from patterns.specs import load_model


def not_offered(family: Any, names: tuple[str, ...] = ()) -> dict[str, str]:
    """The patterns a family does not offer, each with its reason (a family may declare `not_offered()`), and
    the variants among `names` it does not offer (`benchmarks.tasks.variants`).
    The drawn graph is offered only by a family that designs it (`benchmarks.studies.drawn.DrawnTask`)."""
    from benchmarks.tasks.variants import not_offered as variants_not_offered

    declared = getattr(family, "not_offered", None)
    out = dict(declared()) if callable(declared) else {}
    out.update(variants_not_offered(family, names))
    from benchmarks.harness.drawn_check import agent_like_designs
    from benchmarks.tasks.variants import is_user_design

    out.update(agent_like_designs(family, [n for n in names if n not in out and not is_user_design(n)]))
    if not callable(getattr(family, f"design_{DRAWN}", None)):
        out[DRAWN] = "drawn from a results folder's agent walks, by python -m benchmarks.studies.run_drawn DIR"
    return out


@dataclass(frozen=True)
class TaskPlan:
    label: str
    family: Any
    count: int  # its instances (a dataset may hold fewer than asked for)
    patterns: tuple[str, ...]  # the sweep's patterns this task offers, in the sweep's order
    start: int  # the position of the task's first trial
    requested: int  # --instances (or the task's own count: `BenchConfig.instances_by_task`)
    trials_each: int
    seed: int

    @property
    def size(self) -> int:
        return self.count * len(self.patterns) * self.trials_each

    @cached_property
    def index(self) -> dict[str, int]:
        """Instance id -> its place among the task's instances: made when a row is first placed (a shard, which
        is given its trials' positions, never needs it)."""
        return {inst_id: i for i, inst_id in enumerate(instance_ids(self.family, self.count, self.seed))}

    def instances(self, start: int = 0) -> Iterator[Any]:
        """Made again when asked for (seeded, so the same), one at a time from `start`: a sweep holds one
        instance at once."""
        return iter_instances(self.family, self.requested, self.seed, start)


class Plan:
    """`for spec in plan` (in order), `len(plan)`, `plan.position(row)` and `plan.specs(positions)`."""

    def __init__(self, config: Any) -> None:
        self.model, self.seed, self.trials = config.model, config.seed, config.trials
        self.tasks: list[TaskPlan] = []
        self.policies: dict[str, Any] = {}
        start = 0
        for spec in config.tasks:
            family = load_task(spec)
            label = task_label(family)
            self.policies[label] = family.policy()
            skipped = not_offered(family, config.patterns)  # e.g. `route` for a task file without [routes]
            requested = config.instances_of(label)
            count = requested if per_instance_seeds(family) else len(instance_ids(family, requested, config.seed))
            only = dict(getattr(config, "patterns_by_task", ())).get(label)  # the decided phase: agent and one
            patterns = tuple(p for p in config.patterns if p not in skipped and (only is None or p in only))
            task = TaskPlan(label, family, count, patterns, start, requested, config.trials, config.seed)
            self.tasks.append(task)
            start += task.size
        self.total = start
        self._by_label = {t.label: t for t in self.tasks}

    def __len__(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[TrialSpec]:
        return self.specs(iter(range(self.total)))

    def specs(self, positions: Iterator[int]) -> Iterator[TrialSpec]:
        """The trials at these positions (ascending), in order, each task's instances made once."""
        task: TaskPlan | None = None
        made: Iterator[Any] = iter(())
        current, index = None, -1  # the instance made last, and its place
        for position in positions:
            at = next(t for t in reversed(self.tasks) if t.start <= position)
            offset = position - at.start
            instance, rest = divmod(offset, len(at.patterns) * self.trials)
            if at is not task:  # start at the first instance asked for (a later look needs none before it)
                task, made, current, index = at, at.instances(instance), None, instance - 1
            while index < instance:  # positions ascend: each instance is made once, when first needed
                current, index = next(made), index + 1
            pattern, trial = divmod(rest, self.trials)
            yield TrialSpec(at.patterns[pattern], at.label, at.family, current, trial, self.model, self.seed)

    def position(self, row: dict[str, Any]) -> int | None:
        """The row's place in this plan, or None if it is not one of its trials (another model, seed, task…).

        The row's `run_id` must be the one its fields give: a row edited by hand is not this plan's."""
        try:
            task = self._by_label[str(row["task"])]
            instance = task.index[str(row["instance"])]
            pattern = task.patterns.index(str(row["pattern"]))
            trial = int(row["trial"])
        except (KeyError, ValueError, TypeError):
            return None
        same_run = (str(row.get("model")), str(row.get("seed"))) == (self.model, str(self.seed))
        if not (same_run and 0 <= trial < self.trials):
            return None
        if str(row.get("run_id")) != run_id(task.patterns[pattern], task.label, str(row["instance"]), trial,
                                            self.model, self.seed):
            return None
        return task.start + (instance * len(task.patterns) + pattern) * self.trials + trial

    def short_datasets(self) -> list[str]:
        """A line per task whose dataset holds fewer instances than --instances asked for."""
        return [f"--instances {t.requested}: {t.label} has only {t.count}; running {t.count}"
                for t in self.tasks if t.count < t.requested]


# Instance ids already made in this process, per family (its class and label) and seed. Only for a family whose
# instance i is made from its own seed alone (`per_instance_seeds`), so the first n ids are the same whatever n
# is asked for: the looks of a sequential sweep, each a new plan one batch longer, make each instance once.
_IDS: dict[tuple[Any, ...], list[str]] = {}


def per_instance_seeds(family: Any) -> bool:
    """Whether the family makes instance i from its own seed alone (`benchmarks.tasks.base.iter_instances`): then
    it has exactly as many as asked for, and the first n are the same whatever n is asked for."""
    kind = type(family)
    return isinstance(family, FamilyBase) and kind.instances is FamilyBase.instances and \
        kind.iter_instances is FamilyBase.iter_instances


def instance_ids(family: Any, n: int, seed: int) -> list[str]:
    """The ids of the family's first `n` instances (fewer if its dataset holds fewer)."""
    if not per_instance_seeds(family):
        return [inst.id for inst in iter_instances(family, n, seed)]
    known = _IDS.setdefault((type(family), task_label(family), seed), [])
    if len(known) < n:
        known += [inst.id for inst in iter_instances(family, n, seed, len(known))]
    return known[:n]


def bounds(config: BenchConfig, workers: int) -> tuple[int, int]:
    """(trials in flight, model calls in flight) for each of `workers` shards."""
    return max(1, math.ceil(config.concurrency / workers)), max(1, config.max_in_flight // workers)


@lru_cache(maxsize=4)
def _planned(config: BenchConfig) -> tuple[dict[str, TrialSpec], dict[str, Any]]:
    the_plan = Plan(config)
    return {s.run_id: s for s in the_plan}, the_plan.policies


def run_here(config: BenchConfig, run_ids: list[str], concurrency: int, max_in_flight: int,
             on_record: Callable[[TrialSpec, dict[str, Any], list[dict[str, Any]]], None], *,
             model_spec: str | None = None, positions: list[int] | None = None) -> None:
    """Run some trials of the sweep in this (other) process, from the same plan as the parent's.

    `positions` (ascending), when given, are the trials' places in the plan: only their instances are made (a
    look of a sequential sweep makes the new batch's, not every earlier one), and each must hold the run id
    given for it (a KeyError, as for a run id the plan does not have). `model_spec` is what to load when it
    differs from `config.model`, which labels the rows (a Ray worker gets a cassette's absolute path)."""
    if positions is None:
        by_id, policies = _planned(config)
        specs = [by_id[rid] for rid in run_ids]
    else:
        the_plan = Plan(config)
        specs, policies = list(the_plan.specs(iter(positions))), the_plan.policies
        wrong = [rid for rid, spec in zip(run_ids, specs, strict=True) if spec.run_id != rid]
        if wrong:
            raise KeyError(wrong[0])
    model = with_deadline(load_model(model_spec or config.model), config.request_timeout_s)

    async def main() -> None:
        try:
            await run_specs(specs, model, policies, config, concurrency, max_in_flight, on_record)
        finally:
            await aclose_model(model)

    asyncio.run(main())
