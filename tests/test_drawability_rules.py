"""What code decides in a drawing, and what the model does: dispatches learned from results and the input
(`names`, `equals`, `always`), the pipeline with switched steps, arguments code can fill in, order-free fan-out
steps, decisions judged against the agent's self-agreement and the instance dependence of a model choice — each on
walks small enough to check by hand."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.criterion.drawability import (
    END,
    START,
    THRESHOLD,
    Rule,
    Step,
    Walk,
    as_walk,
    check,
    drawability,
    fits,
    learn,
    learn_graph,
    score,
)
from benchmarks.criterion.drawability.decisions import judged, kappa
from benchmarks.criterion.drawability.estimate import drawing_sets
from benchmarks.criterion.drawability.moves import Move, moves, order_free
from benchmarks.criterion.drawability.shares import fit_shares
from benchmarks.criterion.drawability.walks import round_fields


def s(tool: str, failed: bool = False, key: str = "K", **result: object) -> Step:
    """One call of `tool(key)`, answering `result` as JSON."""
    return Step(frozenset({tool}), round_fields([(tool, json.dumps(result), failed)]),
                ((tool, json.dumps({"key": key})),))


def walk(*steps: str | Step, **inputs: str) -> Walk:
    return Walk(tuple(x if isinstance(x, Step) else s(x) for x in steps),
                tuple(sorted((f"input.{k}", v) for k, v in inputs.items())))


def w(*rounds: str) -> Walk:
    return as_walk([r.split("+") for r in rounds])


def trail(*tools: str, readable: bool = True) -> Walk:
    """A trail: the input names its first tool and each result the next (or, in prose, nothing code can read)."""
    if not readable:
        return walk(*tools)
    return walk(*(s(t, next=n) for t, n in zip(tools, [*tools[1:], None], strict=True)), first=tools[0])


TRAILS = [trail("p1", "p2", "p3"), trail("p2", "p4"), trail("p3", "p1", "p4", "p2"), trail("p4", "p3")]


def test_a_field_naming_the_next_tool_is_a_dispatch_that_reaches_tools_no_walk_called() -> None:
    d = learn(TRAILS)
    assert Rule("names", "next") in d.anywhere and d.rules[START] == (Rule("names", "input.first"),)
    assert d.edges == {}  # nothing is left to the model
    assert check(d, trail("p1", "p9", "p2")) == ()  # p9: never walked, reached by the rule
    assert check(d, trail("p9", "p1")) == ()
    assert check(d, trail("p1", "p9", "p2", "p9")) is None  # visited as often as the most visited step, once
    detour = walk(s("p1", next="p2"), s("p3", next=None), first="p1")
    assert check(d, detour) is None  # p1 named p2: going to p3 is no way the drawing has


def test_a_call_retried_when_its_result_says_it_failed_is_a_dispatch_on_is_error() -> None:
    # three walks each three times (nine instances): a rule on two ways must beat a coin (chance.beats_chance)
    walks = [walk(*[s("fetch", failed=True)] * k, "fetch", "parse") for k in range(3)] * 3
    d = learn(walks)
    assert d.rules["fetch"][0] == Rule("equals", "is_error", "true", "fetch") and d.bound["fetch"] == 3
    assert check(d, walk(s("fetch", failed=True), "fetch", "parse")) == ()
    assert check(d, walk(s("fetch", failed=True), "parse")) is None  # code retries a failed fetch
    assert check(d, walk(*[s("fetch", failed=True)] * 3, "fetch", "parse")) is None  # past the bound


def test_the_first_step_picked_by_an_input_field_is_a_dispatch_on_it() -> None:
    # six instances a kind: two of a kind's moves could be a coin's, six right of six cannot (2 × 2^-6 < 0.05)
    d = learn([walk("refund", "reply", kind="money"), walk("track", "reply", kind="parcel")] * 6)
    assert set(d.rules[START]) == {Rule("equals", "input.kind", "money", "refund"),
                                   Rule("equals", "input.kind", "parcel", "track")}
    assert START not in d.edges  # no route left to the model
    assert check(d, walk("track", "reply", kind="parcel")) == ()
    assert check(d, walk("refund", "reply", kind="parcel")) is None


def test_a_step_always_followed_by_the_same_step_is_a_fixed_edge_and_two_ways_on_are_not() -> None:
    d = learn_graph([w("a", "b"), w("a", "b")])
    assert d.rules[START] == (Rule("always", target="a"),) and d.rules["a"] == (Rule("always", target="b"),)
    assert check(d, w("a", "b")) == ()
    slip = learn([w("a", "b")] * 11 + [w("a", "c")], instances=[k // 3 for k in range(12)])  # one in twelve slips
    assert slip.rules["a"] == (Rule("always", target="b"),)
    few = learn([w("a", "b")] * 3 + [w("a", "c")], instances=[0, 0, 1, 1])  # three of four: a coin could do that
    assert "a" not in few.rules
    two = learn([w("a", "b")] * 3 + [w("a", "c")] * 3, instances=[0, 0, 0, 1, 1, 1])  # each instance its own way
    assert "a" not in two.rules and two.edges["a"] == ("b", "c")
    assert check(two, w("a", "c")) == (("a", "c"), ("c", END))  # c's end: one instance, no rule


def test_a_pipeline_whose_optional_steps_the_input_switches_on() -> None:
    flags = [("true", "true"), ("true", "false"), ("false", "true"), ("false", "false")]
    walks = [walk(*(["s1"] if f1 == "true" else []), *(["s2"] if f2 == "true" else []), "fin", f1=f1, f2=f2)
             for f1, f2 in flags]
    d = learn(walks)
    assert d.sequence == (("s1", "input.f1", "true"), ("s2", "input.f2", "true"), ("fin", "", ""))
    assert check(d, walk("s2", "fin", f1="false", f2="true")) == ()
    assert check(d, walk("fin", f1="false", f2="true")) is None  # s2 is switched on: code calls it
    # a step no input field switches on is no pipeline's
    assert learn([walk("s1", "fin", f="1"), walk("fin", f="1"), walk("s1", "fin", f="2"), walk("fin", f="2")]
                 ).sequence == ()


def test_code_fills_in_arguments_that_a_field_held_in_every_drawing_call() -> None:
    walks = [walk(s("find", key=f"K{i}", id=f"D{i}"), s("read", key=f"D{i}"), s("note", key=f"n{i}"), key=f"K{i}")
             for i in range(3)]
    d = learn(walks)
    # find's key was the input's, read's the id find answered; note's came from nowhere code can read
    assert d.args == {"find": (("key", "key"),), "read": (("key", "id"),)}
    assert learn(walks[:1] * 3, instances=[0, 0, 0]).args == {}  # one instance's calls: nothing generalises


def test_lookups_whose_order_varies_within_an_instance_are_one_fan_out_step() -> None:
    walks = [w("a", "b", "c", "reply"), w("c", "b", "a", "reply"), w("b", "a", "c", "reply"),
             w("c", "a", "b", "reply")]
    instances = [0, 0, 1, 1]
    assert order_free(walks, instances) == {frozenset("ab"), frozenset("ac"), frozenset("bc")}
    d = learn(walks, instances=instances)
    assert set(d.tools) == {"a+b+c", "reply"} and d.rules["a+b+c"] == (Rule("always", target="reply"),)
    assert check(d, w("b", "c", "a", "reply")) == ()  # an order no trial took: the same step


def test_an_order_the_instance_decides_is_a_trail_not_a_fan_out() -> None:
    same_within = [w("a", "b", "reply"), w("a", "b", "reply"), w("b", "a", "reply"), w("b", "a", "reply")]
    assert order_free(same_within, [0, 0, 1, 1]) == frozenset()
    assert order_free(same_within, [0, 1, 2, 3]) == frozenset()  # one trial each: no order seen to vary
    one_instance = [w("a", "b"), w("b", "a")] * 2
    assert order_free(one_instance, [0, 0, 0, 0]) == frozenset()  # varies, but in fewer than two instances


def test_a_deviation_is_a_slip_where_the_rule_is_right_at_least_as_often_as_the_agent_agrees_with_itself() -> None:
    """By hand: at one lined-up state, R = the rule's share right, A = agreeing pairs / pairs."""
    at = ((), "x", ())
    assert judged([(at, True, "a"), (at, True, "a"), (at, False, "b")], True) == 1.0  # R 2/3 >= A 1/3
    assert judged([(at, False, "b"), (at, False, "b"), (at, True, "a")], True) == 1.0  # R 1/3 >= A 1/3
    assert judged([(at, False, "b")] * 3 + [(at, True, "a")], True) == 0.5  # R 1/4 < A 3/6: R / A
    assert judged([(at, False, "b")], False) == 0.0  # nothing lined up: A is 1, the score is R


def move(instance: int, v: str, u: str = "x") -> Move:
    return Move(instance, u, v, {})


def test_kappa_is_within_instance_agreement_over_between_instance_agreement_corrected_for_chance() -> None:
    """By hand: each instance always the same way (W 1, B 0: kappa 1); a coin in each (W 0, B 1/2: kappa -1);
    three trials a, a, b and a, a, b (W 1/3, B 5/9: kappa (1/3 - 5/9) / (4/9) = -1/2)."""
    assert kappa([move(0, "a")] * 3 + [move(1, "b")] * 3) == 1.0
    assert kappa([move(0, "a"), move(0, "b"), move(1, "a"), move(1, "b")]) == -1.0
    assert np.isclose(kappa([move(0, "a"), move(0, "a"), move(0, "b"), move(1, "a"), move(1, "a"), move(1, "b")]),
                      -0.5)
    assert kappa([move(0, "a"), move(1, "a")]) == 1.0  # one way only: nothing to tell apart


def instance(d: Any, *trials: Walk) -> float:
    return score(d, [moves(t, d.free) for t in trials])


def test_one_undrawn_choice_is_not_diluted_by_code_steps_and_slips_are_not_undrawable() -> None:
    pipeline = [walk("a", "b", "c", "d", "e")] * 3
    d = learn(pipeline * 4, instances=[k for k in range(4) for _ in range(3)])
    assert instance(d, *pipeline) == 1.0
    slipped = walk("a", "c", "b", "c", "d", "e")  # one call to a wrong tool, then the process goes on
    assert instance(d, slipped, *pipeline[:2]) == 1.0
    coin = [walk("a", "b", "c", "d", "e", x) for x in ("f", "g", "f", "g", "g", "f")]  # a coin after five steps
    d = learn(coin * 2, instances=[k // 3 for k in range(12)])
    assert d.choices["e"].kappa < 0.3 and instance(d, *coin[:3]) == 0.0


def test_a_wide_model_choice_on_a_loop_is_agent_like_and_a_wide_router_once_is_routing() -> None:
    places = [f"p{i}" for i in range(8)]
    loops = [walk(*random.Random(k).sample(places, 4)) for k in range(10) for _ in range(3)]
    d = learn(loops, instances=[k for k in range(10) for _ in range(3)])
    assert any(c.agent_like for c in d.choices.values())
    routed = [walk("lookup", f"h{k % 6}", "reply") for k in range(12) for _ in range(3)]
    d = learn(routed, instances=[k for k in range(12) for _ in range(3)])
    assert d.choices["lookup"].ways == 6 and not d.choices["lookup"].agent_like and d.choices["lookup"].drawn
    assert len(d.edges["lookup"]) == 6  # a router not on a loop keeps all its ways


def test_tools_named_start_and_end_are_steps_like_any_other() -> None:
    d = learn([walk("start", "end")] * 4, instances=[0, 0, 1, 1])
    assert {"start", "end"} <= set(d.tools) and START not in d.tools and instance(d, walk("start", "end")) == 1.0


def test_a_parallel_round_of_any_typed_workers_is_one_step() -> None:
    workers = ["w_a", "w_b", "w_c", "w_d", "w_e", "w_f"]
    rounds = [Walk((Step(frozenset(random.Random(k).sample(workers, 2 + k % 4))), Step(frozenset({"synth"}))))
              for k in range(14) for _ in range(3)]
    d = learn(rounds, instances=[k for k in range(14) for _ in range(3)])
    assert "+".join(workers) in d.tools  # one step, not one per set of workers
    assert drawability({f"i{k}": rounds[3 * k: 3 * k + 3] for k in range(14)}).value == 1.0


def routes(n: int, change: int) -> dict[str, list[Walk]]:
    """n instances, two trials each over two routes: the second trial takes the other route if `change`."""
    return {f"i{k:02d}": [w(f"r{(k + t * change) % 2}", "reply") for t in range(2)] for k in range(n)}


def test_a_first_step_that_differs_between_an_instances_trials_is_not_drawable_even_over_two_tools() -> None:
    assert drawability(routes(16, change=0)).value == 1.0
    assert drawability(routes(16, change=1)).value == 0.0


def trails(n: int, readable: bool) -> dict[str, list[Walk]]:
    """n instances, each hiding a trail of 2-8 of ten tools, walked the same in both trials."""
    out = {}
    for k in range(n):
        rng = random.Random(k)
        path = rng.sample([f"p{i}" for i in range(10)], rng.randint(2, 8))
        out[f"i{k:02d}"] = [trail(*path, readable=readable)] * 2
    return out


def test_trails_named_in_results_are_drawable_and_the_same_trails_in_prose_are_not() -> None:
    assert drawability(trails(16, readable=True)).value == 1.0
    assert drawability(trails(16, readable=False)).high < THRESHOLD


def test_a_walk_that_fits_stays_within_its_steps_bounds() -> None:
    d = learn_graph([w("a", "b", "b"), w("a", "b")] * 2)
    assert fits(d, w("a", "b", "b")) and not fits(d, w("a", "b", "b", "b"))


labels = st.sampled_from(["a", "b", "c", "a+b"])
steps = st.builds(lambda label, failed: Step(frozenset(label.split("+")), round_fields(
    (t, "{}", failed) for t in sorted(label.split("+")))), labels, st.booleans())
walks_st = st.builds(lambda ss, flag: Walk(tuple(ss), flag), st.lists(steps, max_size=5),
                     st.sampled_from([(), (("input.f", "1"),), (("input.f", "2"),)]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(walks_st, min_size=1, max_size=3), min_size=4, max_size=8), st.integers(1, 3),
       st.sampled_from([0.0, 0.05, 0.3]), st.sampled_from([None, 1, 2]), st.integers(0, 99))
def test_the_shares_of_many_drawing_sets_are_those_of_learning_and_checking_each(
        instances: list[list[Walk]], cap: int, share: float, routes_: int | None, seed: int) -> None:
    walks = {f"i{k}": ws for k, ws in enumerate(instances)}
    sets = drawing_sets(len(walks), 2, seed=seed)[:8]
    got = fit_shares(walks, sets, cap=cap, min_share=share, routes=routes_)
    for row, shares in zip(sets, got, strict=True):
        chosen = [k for k in range(len(instances)) if row[k]]
        d = learn([x for k in chosen for x in instances[k]], instances=[k for k in chosen for _ in instances[k]],
                  cap=cap, min_share=share, routes=routes_)
        want = [0.0 if row[k] else score(d, [moves(x, d.free) for x in ws]) for k, ws in enumerate(instances)]
        assert np.allclose(shares, want, equal_nan=True)  # NaN: a choice not measured (one trial)
