"""A plan's instance ids, made once per process: the same ids as making them afresh, whatever the order of sizes
asked for; a shard given positions runs exactly the plan's trials there."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.harness import plan as plan_module
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.plan import Plan, instance_ids, per_instance_seeds, run_here
from benchmarks.tasks.base import iter_instances
from benchmarks.tasks.registry import load_task


@pytest.mark.parametrize("spec", ["multihop", "explore:readable=true", "repair"])
def test_remembered_ids_are_the_ids_made_afresh_at_any_size(spec: str) -> None:
    family = load_task(spec)
    assert per_instance_seeds(family)
    plan_module._IDS.clear()
    for n in (5, 12, 3, 12, 20):
        assert instance_ids(family, n, 7) == [inst.id for inst in iter_instances(family, n, 7)]
    assert instance_ids(family, 4, 8) == [inst.id for inst in iter_instances(family, 4, 8)]  # another seed


def test_a_plan_places_rows_as_before_with_its_index_made_lazily(tmp_path: Path) -> None:
    config = BenchConfig(patterns=("chain", "agent"), tasks=("pipeline", "multihop"), instances=6, trials=2,
                         model="sim", seed=3, out=tmp_path, instances_by_task=(("multihop", 4),))
    plan_module._IDS.clear()
    the_plan = Plan(config)
    assert [t.count for t in the_plan.tasks] == [6, 4] and len(the_plan) == (6 + 4) * 2 * 2
    for k, spec in enumerate(the_plan):
        row = {"task": spec.task, "instance": spec.instance.id, "pattern": spec.pattern, "trial": spec.trial,
               "model": "sim", "seed": 3, "run_id": spec.run_id}
        assert the_plan.position(row) == k


def test_a_shard_given_positions_runs_those_trials_and_refuses_a_run_id_that_is_not_there(tmp_path: Path) -> None:
    config = BenchConfig(patterns=("chain", "agent"), tasks=("pipeline",), instances=4, trials=1, model="sim",
                         seed=0, out=tmp_path)
    specs = list(Plan(config))
    positions = [1, 4, 6]
    ran: list[str] = []
    run_here(config, [specs[p].run_id for p in positions], 2, 4, lambda spec, row, events: ran.append(row["run_id"]),
             positions=positions)
    assert sorted(ran) == sorted(specs[p].run_id for p in positions)
    with pytest.raises(KeyError):
        run_here(replace(config, seed=1), [specs[1].run_id], 1, 1, lambda *a: None, positions=[1])
