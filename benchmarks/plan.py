"""The sweep's plan: every trial in a stable order, generated as it is needed, never held as a list.

The order is task, then instance, then pattern, then trial — the order of `runs.csv`. A trial's place
in it (its *position*) is arithmetic on those four, so a finished trial found in a journal or an old
`runs.csv` is put in its place with a few small lookups (one per task and instance), not a table of
every run id: the sweep's memory does not grow with its size (`benchmarks/perf/memory.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .tasks.base import task_label
from .tasks.registry import load_task
from .trial import TrialSpec, run_id


def not_offered(family: Any) -> dict[str, str]:
    """The patterns a family does not offer, each with its reason (a family may declare `not_offered()`)."""
    declared = getattr(family, "not_offered", None)
    return dict(declared()) if callable(declared) else {}


@dataclass(frozen=True)
class TaskPlan:
    label: str
    family: Any
    instances: list[Any]
    patterns: tuple[str, ...]  # the sweep's patterns this task offers, in the sweep's order
    start: int  # the position of the task's first trial
    index: dict[str, int]  # instance id -> its place among the task's instances
    requested: int  # --instances: a dataset may hold fewer
    trials_each: int

    @property
    def size(self) -> int:
        return len(self.instances) * len(self.patterns) * self.trials_each


class Plan:
    """`for spec in plan` (in order), `len(plan)`, `plan.position(row)` and `plan.spec_at(position)`."""

    def __init__(self, config: Any) -> None:
        self.model, self.seed, self.trials = config.model, config.seed, config.trials
        self.tasks: list[TaskPlan] = []
        self.policies: dict[str, Any] = {}
        start = 0
        for spec in config.tasks:
            family = load_task(spec)
            label = task_label(family)
            self.policies[label] = family.policy()
            skipped = not_offered(family)  # e.g. `route` for a task file without [routes]
            instances = list(family.instances(config.instances, config.seed))
            task = TaskPlan(label, family, instances, tuple(p for p in config.patterns if p not in skipped), start,
                            {inst.id: i for i, inst in enumerate(instances)}, config.instances, config.trials)
            self.tasks.append(task)
            start += task.size
        self.total = start
        self._by_label = {t.label: t for t in self.tasks}

    def __len__(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[TrialSpec]:
        for task in self.tasks:
            for instance in task.instances:
                for pattern in task.patterns:
                    for t in range(self.trials):
                        yield TrialSpec(pattern, task.label, task.family, instance, t, self.model, self.seed)

    def specs(self, positions: Iterator[int]) -> Iterator[TrialSpec]:
        """The trials at these positions (ascending), in order."""
        for position in positions:
            yield self.spec_at(position)

    def spec_at(self, position: int) -> TrialSpec:
        task = next(t for t in reversed(self.tasks) if t.start <= position)
        offset = position - task.start
        per_instance = len(task.patterns) * self.trials
        instance, rest = divmod(offset, per_instance)
        pattern, trial = divmod(rest, self.trials)
        return TrialSpec(task.patterns[pattern], task.label, task.family, task.instances[instance], trial,
                         self.model, self.seed)

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
        return [f"--instances {t.requested}: {t.label} has only {len(t.instances)}; running {len(t.instances)}"
                for t in self.tasks if len(t.instances) < t.requested]
