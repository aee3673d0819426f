"""A plan asked for late positions only (a later look of a sequential run) makes the same instances as a plan
walked from the start: it starts at the first instance asked for instead of making the earlier ones again."""

from __future__ import annotations

from benchmarks.harness.config import BenchConfig
from benchmarks.harness.plan import Plan


def _key(spec: object) -> tuple[str, str, str, int, str]:
    return spec.task, spec.pattern, spec.instance.id, spec.trial, repr(spec.instance)  # type: ignore[attr-defined]


def test_late_positions_make_the_instances_a_full_walk_makes() -> None:
    plan = Plan(BenchConfig(tasks=("explore", "pipeline", "support"), patterns=("agent", "chain"), instances=12,
                            trials=1))
    every = [_key(s) for s in plan]
    late = [p for t in plan.tasks for p in range(t.start + t.size // 2, t.start + t.size)]
    assert [_key(s) for s in plan.specs(iter(late))] == [every[p] for p in late]
    assert len({k[2] for k in every}) == 3 * 12  # the keys tell the instances apart
