"""`fanout` is fair by construction: the policy decides from what a request says, never from which design sent
it; the declared parallel's aggregator checks its answer as the agent does; a decision made again has the
same key in an agent's conversation and in a workflow's retry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.studies.audit import probe, step_framed
from benchmarks.tasks.fanout import Fanout
from benchmarks.tasks.fanout.prompts import CHECK, RETRY
from patterns import Limits, RequestOptions, ScriptedModel, message
from patterns.scripted import tool_use_block
from patterns.sim import SimModel
from patterns.sync import run_sync
from patterns.workflows import run_workflow

from .decisions import KeyLog

WORK = Path(".")
BUILT = RequestOptions(prompt_cache=False)
THREE = Fanout(items="3", questions="total")


def _send(policy: Any, params: dict[str, Any], **knobs: Any) -> tuple[Any, SimModel]:
    model = SimModel(policy, **knobs).fork("t")
    return run_sync(model.create(**params)), model


def _requests(family: Fanout, pattern: str, instance: Any, replies: list[Any], steps: int) -> list[dict[str, Any]]:
    """The requests `pattern`'s own design sends, its model's replies scripted."""
    script = ScriptedModel(replies)
    run_workflow(family.design(pattern, family.environment(instance, WORK)), script, instance.prompt,
                 limits=Limits(max_steps=steps), options=RequestOptions(prompt_cache=False))
    return script.requests


def _agent_answer_turn(instance: Any, ids: list[str]) -> dict[str, Any]:
    """The agent's turn after looking up `ids` (all at once), built by the agent loop itself."""
    uses = [tool_use_block("get_item", {"item_id": i}) for i in ids]
    return _requests(THREE, "agent", instance, [message(*uses), message("ANSWER: 1")], 2)[1]


def _aggregator(family: Fanout, instance: Any) -> dict[str, Any]:
    return _requests(family, "parallel", instance, [message("ANSWER: 1")], 1)[0]


def test_the_audit_probe_finds_fanout_symmetric() -> None:
    for family in (Fanout(), Fanout(items="2-12", plain=True)):
        rows = probe(family, instances=2, samples=3)
        assert [r.symmetric for r in rows] == [True, True], rows


@pytest.mark.parametrize("knobs", [{"error_rate": 0.0, "checker_error_rate": 1.0}, {"error_rate": 0.3}])
def test_the_check_is_the_same_in_the_agent_turn_and_in_the_aggregator(knobs: dict[str, float]) -> None:
    """Each request gives the same counts framed either way; at error_rate 0 with every judgement a wrong
    doubt, the agent's answering turn and the aggregator both use their 2 rechecks: 3 decisions, 2 judgements."""
    instance = THREE.instances(1, 0)[0]
    turn, step = _agent_answer_turn(instance, instance.data["ids"]), _aggregator(THREE, instance)
    assert CHECK in turn["system"] and CHECK in step["messages"][0]["content"]
    for params in (turn, step):
        counts = set()
        for framed in (params, step_framed(params)):
            reply, model = _send(THREE.policy(), framed, **knobs)
            counts.add((model.decisions, model.judgements, tuple(b.type for b in reply.content)))
        assert len(counts) == 1, counts
        if knobs["error_rate"] == 0.0:
            assert counts == {(5, 2, ("text",))}


def test_the_plain_aggregator_is_not_told_to_check() -> None:
    plain = Fanout(items="3", questions="total", plain=True)
    step = _aggregator(plain, plain.instances(1, 0)[0])
    _, model = _send(plain.policy(), step, error_rate=0.0, checker_error_rate=1.0)
    assert CHECK not in step["messages"][0]["content"] and (model.decisions, model.judgements) == (1, 0)


def test_looking_again_is_the_same_agent_framed_and_step_framed() -> None:
    instance = THREE.instances(1, 0)[0]
    first, *rest = instance.data["ids"]
    turn = _agent_answer_turn(instance, rest)  # one product never looked up
    assert RETRY in turn["system"]
    for params in (turn, step_framed(turn)):
        reply, model = _send(THREE.policy(), params, error_rate=0.0, checker_error_rate=0.0)
        assert (model.decisions, model.judgements) == (2, 1)  # notices it (a judgement), then one lookup
        assert [(b.type, getattr(b, "input", None)) for b in reply.content][1:] == [("tool_use", {"item_id": first})]


def test_the_agent_and_the_aggregator_check_with_the_same_keys() -> None:
    instance = THREE.instances(1, 0)[0]
    logs = []
    for params in (_agent_answer_turn(instance, instance.data["ids"]), _aggregator(THREE, instance)):
        policy = KeyLog(THREE.policy())
        _send(policy, params, error_rate=0.0, checker_error_rate=1.0)
        logs.append(policy.log)
    assert logs[0] == logs[1]
    assert [kind for kind, _ in logs[0]] == ["decide", "judge", "decide", "judge", "decide"]
    assert logs[0][0][1] == f"fanout|aggregate|total|{','.join(sorted(instance.data['ids']))}"


def test_a_lookup_redone_by_the_agent_and_by_the_evaluator_optimizer_has_one_key() -> None:
    """The agent's retry after a misspelt id, and the generator's second round after a FAIL naming the
    missing product, decide the same lookup: the same key, so they are correlated alike."""
    family = Fanout(items="2", questions="total")
    instance = family.instances(1, 0)[0]
    good, bad = instance.data["ids"]
    wrong = f"{bad[0]}-{bad[2:][::-1]}" if bad[2] != bad[3] else f"{bad[0]}-{(int(bad[2:]) + 1) % 100:02d}"
    agent = _requests(family, "agent", instance, [message(tool_use_block("get_item", {"item_id": good}),
                                                          tool_use_block("get_item", {"item_id": wrong})),
                                                  message("done")], 2)[1]
    attempt = f'{good}: {{"id": "{good}"}}\n{bad}: not found\nANSWER: 1'
    evo = _requests(family, "evaluate_optimize", instance,
                    [message(attempt), message(f"FAIL: no record for {bad}; look it up."), message("x")], 3)[2]
    logs = []
    for params in (agent, evo):
        policy = KeyLog(family.policy())
        _send(policy, params, error_rate=0.0, checker_error_rate=0.0)
        logs.append([key for kind, key in policy.log if kind == "decide"])
    assert logs[0] == logs[1] == [f"fanout|item|{bad}"]


def test_the_declared_parallel_draws_its_lookups_and_its_checking_aggregator() -> None:
    graph = THREE.design("parallel", THREE.environment(THREE.instances(1, 0)[0], WORK)).graph
    kinds = {graph.nodes[n]["label"]: graph.nodes[n]["kind"] for n in graph.nodes}
    assert kinds["get_item ×N"] == "tool" and kinds["aggregate + check"] == "llm"
    assert kinds["read product ids"] == "code"


@pytest.mark.parametrize("plain", [False, True])
def test_the_declared_parallel_solves_every_instance_at_error_0(plain: bool) -> None:
    family = Fanout(plain=plain)
    instances = family.instances(24, seed=0)
    assert {len(x.data["ids"]) for x in instances} == set(range(2, 9))  # the default range, 2-8 products
    for i, instance in enumerate(instances):
        env = family.environment(instance, WORK)
        result = run_workflow(family.design("parallel", env), SimModel(family.policy(), seed=i), instance.prompt)
        assert family.grade(instance, env, result.output) == 1.0, result.output
