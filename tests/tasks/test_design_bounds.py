"""Fixed designs are sized to the family's stated range: at error_rate=0 every fixed workflow whose
design can solve a family solves all of its instances over the family's whole default range."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.tasks.registry import load_task
from patterns.sim import SimModel
from patterns.workflows import run_workflow

FIXED = ("single", "chain", "route", "orchestrate", "parallel", "evaluate_optimize")
FAMILIES = ("pipeline", "support", "fanout", "multihop", "repair")
# Designs that cannot solve a family by construction (each family's docstring says why).
CANNOT = {
    ("multihop", "single"): "one round of tools reads the start page only",
    ("repair", "single"): "one round of tools can look but not fix",
    ("repair", "orchestrate"): "the planner sees one validator report, so it plans one fix",
}
N = 24


def _scores(spec: str, pattern: str, tmp_path: Path, n: int = N) -> list[float]:
    family = load_task(spec)
    scores = []
    for i, instance in enumerate(family.instances(n, seed=0)):
        workdir = tmp_path / f"{pattern}-{i}"
        workdir.mkdir(parents=True)
        env = family.environment(instance, workdir)
        model = SimModel(policy=family.policy(), error_rate=0.0, seed=i)
        result = run_workflow(family.design(pattern, env), model, instance.prompt)
        scores.append(family.grade(instance, env, result.output))
    return scores


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("pattern", FIXED)
def test_every_fixed_design_that_can_solve_the_family_solves_all_of_it_at_error_0(
        family: str, pattern: str, tmp_path: Path) -> None:
    if (family, pattern) in CANNOT:
        pytest.skip(f"{pattern} cannot solve {family} by construction: {CANNOT[family, pattern]}")
    assert _scores(family, pattern, tmp_path) == [1.0] * N


def test_the_default_instances_cover_the_whole_stated_range() -> None:
    multihop, repair = load_task("multihop"), load_task("repair")
    assert {x.data["hops"] for x in multihop.instances(N, seed=0)} == set(range(1, 7))
    assert {len(x.data["faults"]) for x in repair.instances(N, seed=0)} == set(range(1, 6))


def test_the_bound_defaults_to_the_family_own_maximum_and_stays_a_design_parameter() -> None:
    assert load_task("multihop").depth == 6 and load_task("repair").rounds == 5
    assert load_task("multihop:hops=1-10").depth == 10
    assert load_task("repair:faults=2-7").rounds == 7
    assert load_task("multihop:depth=3").depth == 3 and load_task("repair:rounds=2").rounds == 2
    assert load_task("multihop:depth=auto").depth == 6


@pytest.mark.parametrize(("spec", "pattern"), [("multihop:hops=4,depth=3", "chain"),
                                                ("multihop:hops=4,depth=3", "parallel"),
                                                ("repair:faults=3,rounds=2", "chain"),
                                                ("repair:faults=3,rounds=2", "evaluate_optimize")])
def test_a_bound_below_the_range_cannot_reach_those_instances(spec: str, pattern: str, tmp_path: Path) -> None:
    assert _scores(spec, pattern, tmp_path, n=4) == [0.0] * 4
