"""Drawability's parts: a walk from events (its fields, its input's), the drawing's shape (bounded loops, visits,
rare edges, the cap on the model's ways on, the routing table at the start), its graph, JSON, and the estimate
(too few instances, the learning curve, the row the criterion adds, the drawing instances)."""

from __future__ import annotations

import json
import math
import random

import pandas as pd
import pytest

from benchmarks.criterion.drawability import (
    END,
    START,
    THRESHOLD,
    Step,
    Walk,
    as_walk,
    check,
    drawability,
    drawability_row,
    drawing_instances,
    drawn_graph,
    fits,
    from_json,
    graph_size,
    learn,
    learn_graph,
    learning_curve,
    predict,
    to_graph,
    to_json,
    walks_by_instance,
)
from benchmarks.criterion.drawability.estimate import MAX_SPLITS, MIN_SPLITS, drawing_sets
from benchmarks.criterion.drawability.moves import moves
from benchmarks.criterion.drawability.walks import rounds_by_run, walk_of


def w(*rounds: str) -> Walk:
    """A walk written as rounds like "a" or "a+b" (no fields)."""
    return as_walk([r.split("+") for r in rounds])


def tool_call(tool: str, result: str, arguments: str | None = None, failed: bool = False) -> dict[str, object]:
    return {"run_id": "r", "kind": "tool_call", "gen_ai.tool.name": tool, "gen_ai.tool.call.arguments": arguments,
            "gen_ai.tool.call.result": result, "is_error": failed}


MODEL = {"run_id": "r", "kind": "model_call"}
EVENTS = [{"run_id": "r", "kind": "input", "wva.input.fields": {"ticket": "T-1"}},
          tool_call("fetch", '{"next": {"place": "shelf"}}', '{"id": "T-1"}'),  # code's call before any model call
          MODEL, tool_call("get", '[{"id": "A"}]', '{"k": 1}'), tool_call("get", "no such item", failed=True),
          MODEL, tool_call("check", "FAIL: line 3 is wrong"),
          MODEL]  # the answer: no round


def test_a_walk_is_its_rounds_with_what_code_can_read_of_their_results_and_of_the_input() -> None:
    walk = walk_of(rounds_by_run(EVENTS)["r"])
    assert walk.inputs == (("input.ticket", "T-1"),) and len(walk) == 3
    fetch, get, check_ = walk.steps
    assert fetch == Step(frozenset({"fetch"}), (("fetch.is_error", "false"), ("fetch.next.place", "shelf"),
                                                ("round.is_error", "false")), (("fetch", '{"id": "T-1"}'),))
    # two calls of one tool are one round; the second's fields under `get#2`, and the round failed if any did
    assert get.label == frozenset({"get"}) and get.calls == (("get", '{"k": 1}'), ("get", "{}"))
    assert dict(get.fields) == {"get.0.id": "A", "get.is_error": "false", "get#2.is_error": "true",
                                "round.is_error": "true"}
    assert dict(check_.fields)["check.status"] == "FAIL"  # a validator's status word; the rest is prose


def test_a_step_reads_its_single_tools_fields_without_its_name_and_a_fan_outs_with_them() -> None:
    walk = walk_of(rounds_by_run(EVENTS)["r"])
    first, second, third, last = moves(walk, frozenset())
    assert (first.u, first.v, dict(first.feats)) == (START, "fetch", {"input.ticket": "T-1"})
    assert second.feats == {"input.ticket": "T-1", "is_error": "false", "next.place": "shelf",
                            "round.is_error": "false"}
    assert (third.feats["0.id"], third.feats["get#2.is_error"], third.feats["round.is_error"]) == ("A", "true", "true")
    assert last.v == END and last.feats["status"] == "FAIL"
    fan = moves(as_walk([Step(frozenset({"a", "b"}), (("a.x", "1"), ("b.x", "2")))]), frozenset())
    assert fan[1].feats == {"a.x": "1", "b.x": "2"}


def test_walks_by_instance_orders_trials_and_a_run_without_events_walked_nothing() -> None:
    runs = pd.DataFrame({"run_id": ["r", "q", "z"], "pattern": ["agent"] * 3, "task": ["t"] * 3,
                         "instance": ["i", "i", "j"], "trial": [1, 0, 0]})
    events = [*EVENTS, {"run_id": "q", "kind": "model_call"}, {**tool_call("a", "ok"), "run_id": "q"}]
    got = walks_by_instance(runs, events, task="t")
    assert [x.labels() for x in got["i"]] == [(frozenset("a"),), walk_of(rounds_by_run(EVENTS)["r"]).labels()]
    assert got["j"] == [Walk(())]


def test_a_repeated_round_is_a_loop_bounded_by_the_longest_stretch_seen() -> None:
    d = learn_graph([w("plan", "read", "read", "sum"), w("plan", "read", "read", "read", "sum")] * 5)
    assert d.bound == {"plan": 1, "read": 3, "sum": 1} and d.edges["read"] == ("read",)
    assert fits(d, w("plan", "read", "sum")) and fits(d, w("plan", *["read"] * 3, "sum"))
    assert not fits(d, w("plan", *["read"] * 4, "sum"))  # past the bound
    assert not fits(d, w("plan", "sum"))  # code goes from plan to read
    assert graph_size(d).loops == 1 and graph_size(d).nodes == 3


def test_a_cycle_through_several_steps_is_bounded_by_the_most_visits_seen() -> None:
    d = learn_graph([w("read+check", "fix", "check", "fix", "check"), w("read+check", "fix", "check")] * 3)
    assert d.visits == {"check+read": 1, "fix": 2, "check": 2} and graph_size(d).revisited == 2
    assert fits(d, w("read+check", "fix", "check", "fix", "check"))
    assert not fits(d, w("read+check", "fix", "check", "fix", "check", "fix", "check"))


def test_rare_ways_on_are_dropped_and_a_step_keeps_at_most_cap_of_the_models() -> None:
    common = [w("a", "b"), w("a", "c"), w("a", "d"), w("a", "e")]
    walks = common * 10 + [w("a", "e")] + [w("a", "f")]  # a -> f: 1 walk of 42, under 5 %
    d = learn_graph(walks)
    assert d.edges == {"a": ("e", "b", "c", "d")}  # not on a loop: a router keeps every way; e first (11 walks)
    assert fits(d, w("a", "c")) and fits(d, w("a", "d")) and not fits(d, w("a", "f"))
    assert learn_graph(walks, min_share=0.0).edges["a"] == ("e", "b", "c", "d", "f")
    places = [w(*random.Random(k).sample("bcdefgh", 5)) for k in range(12) for _ in range(3)]  # picks again: a loop
    looped = learn(places, instances=[k for k in range(12) for _ in range(3)])
    assert any(c.agent_like for c in looped.choices.values())
    assert all(len(ways) <= looped.cap for n, ways in looped.edges.items() if n != START)


def test_the_start_is_a_routing_table_not_held_to_the_cap() -> None:
    walks = [w(first, "z") for first in "abcde"] * 4
    d = learn_graph(walks)
    assert d.edges == {START: ("a", "b", "c", "d", "e")} and graph_size(d).routes == 5
    assert all(fits(d, x) for x in walks)
    assert learn_graph(walks, routes=2).edges[START] == ("a", "b")
    assert learn_graph([w("x", f, "z") for f in "abcde"] * 4).edges["x"] == ("a", "b", "c", "d", "e")  # once
    with pytest.raises(ValueError, match="routes"):
        learn_graph(walks, routes=0)


def test_a_walk_without_a_round_goes_from_start_to_end() -> None:
    d = learn_graph([w(), w("a")] * 3)
    assert fits(d, w()) and fits(d, w("a"))
    assert not fits(learn_graph([w("a")]), w())


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        learn_graph([w("a")], cap=0)
    with pytest.raises(ValueError, match="min_share"):
        learn_graph([w("a")], min_share=1.0)


def test_the_graph_shows_the_models_ways_on_and_the_transitions_code_decides() -> None:
    g = to_graph(learn_graph([w("a", "b"), w("a", "c")] * 3))
    assert g.edges[START, "a"] == {"walks": 6, "code": True, "label": "a"}
    assert g.edges["a", "b"] == {"walks": 3, "model": True} and g.edges["b", END]["code"]
    assert g.nodes["a"]["tools"] == ("a",) and g.graph["cap"] == 3


def test_the_graph_shows_the_steps_a_pipeline_takes_in_code() -> None:
    g = to_graph(learn_graph([w("plan", "read", "sum"), w("plan", "read", "read", "sum")] * 3))
    assert g.has_edge("read", "sum") and g.edges["read", "sum"]["walks"] == 6  # the pipeline's, in every walk


def _rich() -> list[Walk]:
    """Walks with most parts of a drawing: a retry, a round of two tools, arguments, a model choice."""
    out = []
    for i in range(12):  # a retry seen six times: a coin could not have done it (chance.beats_chance)
        fetch = [Step(frozenset({"fetch"}), (("fetch.is_error", "true"),), (("fetch", json.dumps({"id": f"T{i}"})),))
                 ] * (i % 2) + [Step(frozenset({"fetch"}), (("fetch.is_error", "false"),),
                                     (("fetch", json.dumps({"id": f"T{i}"})),))]
        tail = [*w("x+y", "b" if i < 6 else "c").steps]
        out.append(Walk((*fetch, *tail), (("input.id", f"T{i}"),)))
    return out


@pytest.mark.parametrize("routes", [None, 2])
def test_the_drawing_round_trips_through_json(routes: int | None) -> None:
    d = learn(_rich(), routes=routes)
    assert d.args == {"fetch": (("id", "id"),)} and d.rules["fetch"]
    back = from_json(to_json(d, {"task": "t"}))
    assert back == d and to_json(back) == to_json(d)
    assert json.loads(to_json(d, {"task": "t"}))["about"] == {"task": "t"}


HEAD = '{"format": "wva-drawn-graph", "version": 3, '
SETTINGS = '"cap": 3, "min_share": 0, "routes": null, "walks": 1, "longest": 1, "free": [], "anywhere": [], '
REST = '"start": {"rules": []}, "choices": [], "taken": [], "sequence": [], "args": {}'


@pytest.mark.parametrize("text", [
    "{}", "not json", "[1, 2]", HEAD[:-2] + "}",
    to_json(learn_graph([w("a")])).replace('"version": 3', '"version": 2'),  # a file written before rules
    HEAD + SETTINGS + '"nodes": [], "edges": [{"source": "start", "target": "x", "walks": 1}], ' + REST + "}",
    HEAD + SETTINGS.replace('"cap": 3', '"cap": "x"') + '"nodes": [], "edges": [], ' + REST + "}",
    HEAD + SETTINGS + '"nodes": [{"id": "a", "tools": ["a"], "bound": 0, "max_visits": 1, "walks": 1, '
                      '"rules": []}], "edges": [], ' + REST + "}",
    HEAD + SETTINGS + '"nodes": [], "edges": [], ' + REST.replace('"args": {}', '"args": []') + "}"])
def test_a_bad_drawing_file_is_one_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match=r"^bad drawn graph: ") as info:
        from_json(text)
    assert "\n" not in str(info.value)


def test_a_hand_written_minimal_file_is_read() -> None:
    d = from_json(HEAD + SETTINGS + '"nodes": [], "edges": [{"source": "<start>", "target": "<end>", "walks": 1}], '
                  + REST + "}")
    assert d.edges == {START: (END,)} and check(d, w()) == ((START, END),)


def test_every_instance_draws_equally_often_and_is_tested() -> None:
    sets = drawing_sets(23, 5, permutations=20, seed=1)  # 20 permutations, each cut into 4 sets of 5
    assert sets.shape == (80, 23) and (sets.sum(axis=1) == 5).all()
    draws = sets.reshape(20, 4, 23).sum(axis=1)  # per permutation: 1 for the 20 instances that drew
    assert ((draws == 0) | (draws == 1)).all() and (draws.sum(axis=1) == 20).all()
    assert ((1 - sets).sum(axis=0) > 0).all()
    assert drawing_sets(23, 5, permutations=1).shape == (math.ceil(MIN_SPLITS / 4) * 4, 23)
    assert drawing_sets(2000, 1, permutations=10).shape == (2000, 2000)  # one permutation: every set of one
    assert drawing_sets(200, 1, permutations=10).shape == (MAX_SPLITS // 200 * 200, 200)


def routed(n: int, routes: int = 6) -> dict[str, list[Walk]]:
    """n instances, two trials each: instance i takes the route i % `routes` from the start, then replies."""
    return {f"i{k:02d}": [w(f"r{k % routes}", "reply")] * 2 for k in range(n)}


def test_too_few_instances_give_nan_and_the_curve_stops_where_they_run_out() -> None:
    walks = routed(11)
    assert math.isnan(drawability(walks).value) and drawability(walks).instances == 11
    assert [c.d for c in learning_curve(walks, ds=(1, 2, 5, 10))] == [1, 2, 5]
    with pytest.raises(ValueError, match="d must be"):
        drawability(walks, 0)


def test_the_learning_curve_rises_as_the_routes_are_seen() -> None:
    """24 instances over 6 routes, 4 each: a drawing from one instance knows its route, which 3 of the 23 others
    take, whichever instance drew (every pair is a split once per permutation): 3/23 exactly."""
    curve = {c.d: c.value for c in learning_curve(routed(24), ds=(1, 5, 20))}
    assert curve[1] == pytest.approx(3 / 23)
    assert curve[1] < curve[5] < curve[20] and curve[20] > 0.9


def test_the_row_the_criterion_will_add() -> None:
    row = drawability_row(routed(30, routes=2))
    assert row["drawability_ci_low"] <= row["drawability"] == 1.0 <= row["drawability_ci_high"]
    assert row["chapter_prediction"] == "workflow" and (row["graph_nodes"], row["graph_routes"]) == (3, 2)
    assert math.isnan(drawability_row(routed(5))["graph_nodes"])
    assert predict(THRESHOLD - 0.01) == "agent" and predict(THRESHOLD) == "workflow" and predict(math.nan) is None


def test_the_drawing_instances_are_seeded_and_ignore_order() -> None:
    ids = [f"x-{k:02d}" for k in range(30)]
    assert drawing_instances(ids, 10, 1) == drawing_instances(ids[::-1], 10, 1) != drawing_instances(ids, 10, 2)
    walks = {k: [w("a", "b")] for k in ids}
    chosen, d = drawn_graph({**walks, "empty": []}, 10, seed=1)
    assert chosen == drawing_instances(ids, 10, 1) and d.walks == 10 and graph_size(d).nodes == 2
