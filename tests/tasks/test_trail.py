"""The open-ended families (`explore`, `debug`) and their one mechanism (`benchmarks.tasks.trail`): the same trails
in two forms that differ only in where a note points; prose that code cannot read (a dispatch on tool names in
the text does no better than chance, and the world knowledge refuses code); the declared designs."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.registry import load_task
from benchmarks.tasks.trail import knowledge
from benchmarks.tasks.trail.world import answer_of
from patterns.events import Kind
from patterns.sim import SimModel
from patterns.workflows import Dispatch, Loop, agent_like, run_workflow

FAMILIES = ["explore", "debug"]


def run(family: Any, pattern: str, instance: Any, tmp: Path, error_rate: float = 0.0, seed: int = 0) -> tuple:
    env = family.environment(instance, tmp)
    result = run_workflow(family.design(pattern, env), SimModel(policy=family.policy(), error_rate=error_rate,
                                                                seed=seed), instance.prompt)
    return result, family.grade(instance, env, result.output), env


@pytest.mark.parametrize("name", FAMILIES)
def test_the_two_forms_share_the_trails_and_differ_only_in_where_a_note_points(name: str) -> None:
    prose, readable = load_task(name), load_task(f"{name}:readable=true")
    for a, b in zip(prose.instances(5, seed=2), readable.instances(5, seed=2), strict=True):
        assert {k: v for k, v in a.data.items() if k != "readable"} == \
               {k: v for k, v in b.data.items() if k != "readable"}
        place, key = a.data["trail"][0]
        said_prose, said_readable = answer_of(a.data, place, key, prose.spec)[0], \
            answer_of(b.data, place, key, readable.spec)[0]
        assert place not in said_prose and not said_prose.lstrip().startswith("{")  # prose names no tool
        nxt = json.loads(said_readable)["next"]
        assert nxt is None or (nxt["place"] == a.data["trail"][1][0] and nxt["key"] in said_prose)


@pytest.mark.parametrize("name", FAMILIES)
def test_code_that_dispatches_on_a_tool_name_in_prose_does_no_better_than_chance(name: str, tmp_path: Path) -> None:
    """A `Loop` whose code dispatch calls whichever tool name appears in the last result (else a random tool,
    with the last key found) against picking the next tool at random: prose names no tool, so both fail alike."""
    family = load_task(name)
    places = [p.tool for p in family.spec.places]

    def guess(rng: random.Random, by_name: bool) -> Any:
        def pick(text: str) -> tuple[str, dict[str, str]] | None:
            found = [p for p in places if p in text] if by_name else []
            keys = re.findall(r"\b[A-Z]-\d{4}\b", text)
            return (found[0] if found else rng.choice(places), {"key": keys[-1] if keys else "K-0000"})
        return pick

    def reached(pick: Any, instance: Any) -> bool:
        env = family.environment(instance, tmp_path)
        spec = Loop(Dispatch("guess", env.tools, pick, keep=lambda t, r, e: t if e else r), until=lambda t: False,
                    max_rounds=12)
        result = run_workflow(spec, SimModel(policy=family.policy()), instance.prompt)
        return family.spec.answer_sentence.split("{")[0] in result.output

    instances = family.instances(40, seed=4)
    by_name = sum(reached(guess(random.Random(i), True), inst) for i, inst in enumerate(instances))
    at_random = sum(reached(guess(random.Random(i), False), inst) for i, inst in enumerate(instances))
    assert by_name <= at_random + 3, (by_name, at_random)


def test_no_code_may_read_the_world_knowledge() -> None:
    spec = load_task("explore").spec
    with pytest.raises(knowledge.NotAModel):
        knowledge.place_of(spec, "the harbour master's books")
    with knowledge.reading():
        assert knowledge.place_of(spec, "... in the harbour master's books, under K-1234.") == "port_registry"


@pytest.mark.parametrize("spec", ["explore", "explore:readable=true", "debug", "debug:readable=true"])
def test_every_design_runs_without_reading_the_world_knowledge_and_is_drawn(spec: str, tmp_path: Path) -> None:
    family = load_task(spec)
    for pattern in ("single", "chain", "route", "parallel", "agent"):
        for i, instance in enumerate(family.instances(3, seed=1)):
            result, _, env = run(family, pattern, instance, tmp_path, error_rate=0.1, seed=i)
            assert not [e for e in result.events if e.error_type == "NotAModel"], (pattern, result.detail)
            assert "NotAModel" not in result.detail
        assert pattern == "agent" or agent_like(family.design(pattern, env)) is None


@pytest.mark.parametrize("spec", ["explore", "debug"])
def test_with_no_slip_the_declared_walks_and_the_agent_find_every_answer(spec: str, tmp_path: Path) -> None:
    for readable in (False, True):
        family = load_task(f"{spec}:readable={str(readable).lower()}")
        for instance in family.instances(6, seed=3):
            for pattern in ("chain", "route", "agent"):
                assert run(family, pattern, instance, tmp_path)[1] == 1.0, (readable, pattern, instance.prompt)


def test_the_readable_chain_asks_the_model_once_and_the_prose_survey_looks_everywhere(tmp_path: Path) -> None:
    instance = load_task("explore:readable=true").instances(1, seed=5)[0]
    hops = len(instance.data["trail"])
    result, score, _ = run(load_task("explore:readable=true"), "chain", instance, tmp_path)
    assert score == 1.0 and result.steps == 1 and result.tool_calls == hops  # code followed every `next`
    prose = load_task("explore")
    result, score, _ = run(prose, "chain", prose.instances(1, seed=5)[0], tmp_path)
    places = len(prose.spec.places)
    assert score == 1.0 and result.tool_calls == hops * places  # each round, every place under the note's key
    assert result.steps == hops + 2  # a read step per note (the last says END), and the answer


def test_a_false_lead_sends_the_agent_back_to_the_note_it_trusts(tmp_path: Path) -> None:
    """At error_rate 1 every reading is wrong: the agent tries another place, follows the decoy to its false
    lead, goes back, and never calls a place twice for the same note."""
    family = load_task("explore:hops=2")
    instance = family.instances(1, seed=0)[0]
    result, score, env = run(family, "agent", instance, tmp_path, error_rate=1.0)
    calls = env.state["calls"]
    first_key = instance.data["trail"][0][1]
    tried = [p for p, k in calls if k == first_key]
    assert len(tried) == len(set(tried)) > 1
    assert score == 0.0 and result.events[-1].kind in (Kind.MODEL_CALL, Kind.LIMIT)


@pytest.mark.parametrize("name", FAMILIES)
def test_places_widens_the_world_with_copies_the_world_knowledge_tells_apart(name: str, tmp_path: Path) -> None:
    own = load_task(name)
    assert load_task(f"{name}:places={len(own.spec.places)}").instances(3, 1) == own.instances(3, 1)
    wide = load_task(f"{name}:places=100")
    tools = [p.tool for p in wide.spec.places]
    assert len(set(tools)) == 100 and tools[:len(own.spec.places)] == [p.tool for p in own.spec.places]
    phrases = [ph for p in wide.spec.places for ph in p.phrases]
    assert len(set(phrases)) == len(phrases)
    with knowledge.reading():
        for p in wide.spec.places:
            for ph in p.phrases:
                assert knowledge.place_of(wide.spec, f"The trail continues in {ph}, under K-1234.") == p.tool
    instance = wide.instances(1, 0)[0]
    for pattern in ("agent", "chain"):
        _, score, env = run(wide, pattern, instance, tmp_path)
        assert score == 1.0 and len(env.tools.tools) == 100


def test_the_survey_looks_in_every_place_and_its_read_step_carries_what_it_saw(tmp_path: Path) -> None:
    family = load_task("explore:places=40,hops=3,call_cost=0.001")
    instance = family.instances(1, 0)[0]
    result, score, _ = run(family, "chain", instance, tmp_path)
    reads = [e for e in result.events if e.kind is Kind.MODEL_CALL and e.name == "read"]
    looks = [e for e in result.events if e.kind is Kind.TOOL_CALL]
    assert score == 1.0 and len(looks) == 40 * (len(reads) - 1)  # the last read ends the trail: nothing to look up
    assert abs(sum(e.cost_usd or 0 for e in looks) - 0.001 * len(looks)) < 1e-9
    assert all(e.usage.input_tokens + e.usage.cache_read_tokens + e.usage.cache_write_tokens > 40 * 10
               for e in reads[:-1])  # forty results, each a note of ten tokens or more, in the read's prompt


@pytest.mark.parametrize("spec", ["explore:places=1", "debug:places=161", "debug:places=5"])
def test_a_world_too_small_or_too_wide_is_refused_in_one_line(spec: str) -> None:
    with pytest.raises(ValueError, match="places"):
        load_task(spec)
