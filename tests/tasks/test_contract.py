"""The contract every task family keeps: the five built-in families, the minimal family
(examples/minimal_family.py) and a task file (examples/tickets/tickets.toml), one test each.

- instances are seeded: the same seed gives the same instances (and instance i does not depend on
  how many are asked for); another seed gives other instances. A task file's instances are its
  rows in file order whatever the seed, so only the first half applies to it;
- every pattern has a design (or, for a task file, a stated reason why not) whose graph is a
  networkx DiGraph, and an unknown pattern is a one-line ValueError;
- a trial's grade is in [0, 1], for every pattern, and for an empty or a garbage reply;
- policies never read `Instance.data`: the trial runs after the instance's data (read by
  `environment` first, as the harness does) is swapped for an object that raises on any access;
- policies are blind to the pattern: every request the family's designs send, framed once as an agent
  turn and once as a workflow step, gets the same decisions, judgements and tool calls (`wva audit`'s
  probe: exactly at error_rate=0 with checker_error_rate=1, within sampling error at error_rate=0.1),
  and the family's docstring has its capability table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from benchmarks.studies.audit import capability_table, probe
from benchmarks.tasks.base import PATTERNS, Instance
from benchmarks.tasks.registry import BUILTIN, load_task
from patterns.sim import SimModel
from patterns.workflows import run_workflow

ROOT = Path(__file__).resolve().parents[2]
TICKETS = str(ROOT / "examples" / "tickets" / "tickets.toml")
FAMILIES = [*BUILTIN, "examples.minimal_family:Capitals", TICKETS]
DRAWN = [spec for spec in FAMILIES if spec != TICKETS]  # families that draw their instances from the seed


class Sealed:
    """Ground truth no policy may see: any access is a test failure."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a policy read Instance.data")

    __getattr__ = __getitem__ = __iter__ = __contains__ = __len__ = __bool__ = _refuse
    keys = values = items = get = _refuse


def ident(spec: str) -> str:
    return Path(spec).name if spec.endswith(".toml") else spec


@pytest.fixture(scope="module", params=FAMILIES, ids=ident)
def family(request: pytest.FixtureRequest) -> Any:
    return load_task(request.param)


def test_the_same_seed_gives_the_same_instances(family: Any) -> None:
    assert family.instances(6, seed=3) == family.instances(6, seed=3)
    assert family.instances(3, seed=3) == family.instances(6, seed=3)[:3]
    assert len({i.id for i in family.instances(6, seed=3)}) == len(family.instances(6, seed=3))


@pytest.mark.parametrize("spec", DRAWN, ids=ident)
def test_another_seed_gives_other_instances(spec: str) -> None:
    family = load_task(spec)
    assert [(i.prompt, i.data) for i in family.instances(10, seed=0)] != \
        [(i.prompt, i.data) for i in family.instances(10, seed=1)]


def test_every_pattern_has_a_design_with_a_graph(family: Any, tmp_path: Path) -> None:
    env = family.environment(family.instances(1, seed=0)[0], tmp_path)
    not_offered = family.not_offered() if hasattr(family, "not_offered") else {}
    for pattern in PATTERNS:
        if pattern in not_offered:
            with pytest.raises(ValueError, match="not offered"):
                family.design(pattern, env)
            continue
        graph = family.design(pattern, env).graph
        assert isinstance(graph, nx.DiGraph) and graph.number_of_nodes() >= 1, pattern
    with pytest.raises(ValueError, match="unknown pattern 'nope'"):
        family.design("nope", env)


def sealed_trial(family: Any, pattern: str, instance: Instance, workdir: Path, seed: int) -> float:
    """One trial whose instance data is sealed while the model runs; its grade."""
    env = family.environment(instance, workdir)
    spec = family.design(pattern, env)
    data = instance.data
    object.__setattr__(instance, "data", Sealed())
    try:
        result = run_workflow(spec, SimModel(policy=family.policy(), error_rate=0.3, seed=seed), instance.prompt)
    finally:
        object.__setattr__(instance, "data", data)
    return family.grade(instance, env, result.output)


def test_policies_never_read_the_data_and_grades_are_in_0_1(family: Any, tmp_path: Path) -> None:
    offered = [p for p in PATTERNS if p not in (family.not_offered() if hasattr(family, "not_offered") else {})]
    for k, instance in enumerate(family.instances(2, seed=5)):
        for pattern in offered:
            workdir = tmp_path / f"{pattern}-{k}"
            workdir.mkdir()
            assert 0.0 <= sealed_trial(family, pattern, instance, workdir, seed=k) <= 1.0, pattern
        for output in ("", "no idea, sorry\n| a | b |\nANSWER: 42"):
            workdir = tmp_path / f"garbage-{k}-{len(output)}"
            workdir.mkdir()
            env = family.environment(instance, workdir)
            assert 0.0 <= family.grade(instance, env, output) <= 1.0


def test_the_sealed_data_is_noticed() -> None:
    """The seal itself works: a policy that reads the data fails the trial above."""
    capitals = load_task("examples.minimal_family:Capitals")
    instance = capitals.instances(1, seed=0)[0]

    class Peeking:
        def accepts(self, request: Any) -> bool:
            return True

        def respond(self, request: Any, decide: Any) -> Any:
            return instance.data["answer"]

    capitals.policy = Peeking  # type: ignore[method-assign]
    with pytest.raises(AssertionError, match=r"read Instance\.data"):
        sealed_trial(capitals, "single", instance, Path("."), seed=0)


def test_the_policy_treats_the_same_request_the_same_way_whichever_design_sends_it(family: Any) -> None:
    rows = probe(family, knobs={"error_rate": 0.1}, instances=2, samples=6, seed=1)
    assert [r.setting for r in rows] == ["strict", "default"]
    for row in rows:
        assert row.requests > 0
        assert row.symmetric, (row.setting, row.agent, row.step)
    assert capability_table(family).startswith("Capabilities"), "the family's docstring lacks its capability table"
