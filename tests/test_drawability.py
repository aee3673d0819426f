"""Drawability's parts: walks from events, the learned graph (loops, rare edges, the cap), fitting, JSON,
the array version against the plain one, and the estimate's behaviour with the number of instances."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.criterion.drawability import (
    END,
    START,
    THRESHOLD,
    drawability,
    drawability_row,
    drawing_instances,
    drawn_graph,
    fits,
    from_json,
    graph_size,
    learn_graph,
    learning_curve,
    predict,
    to_json,
    walk_of,
    walks_by_instance,
)
from benchmarks.criterion.drawability.estimate import drawing_sets
from benchmarks.criterion.drawability.graph import node_data
from benchmarks.criterion.drawability.table import encode, fit_shares
from benchmarks.criterion.read import load_inputs
from tests.synthetic_walks import PROCESSES, sample, write_folder


def w(*rounds: str) -> tuple[frozenset[str], ...]:
    """A walk written as rounds like "a" or "a+b"."""
    return tuple(frozenset(r.split("+")) for r in rounds)


def test_a_walk_is_its_rounds_labelled_by_the_set_of_tools_called() -> None:
    assert walk_of([("get", "get", "put"), (), ("get",)]) == (frozenset({"get", "put"}), frozenset({"get"}))


def test_a_repeated_round_becomes_a_loop_bounded_by_the_longest_stretch_seen() -> None:
    g = learn_graph([w("plan", "read", "read", "sum"), w("plan", "read", "read", "read", "sum")] * 5)
    assert node_data(g)["read"] == {"tools": ("read",), "bound": 3, "max_visits": 1}
    assert g.has_edge("read", "read") and g.edges["read", "read"]["loop"]
    assert fits(g, w("plan", "read", "sum")) and fits(g, w("plan", *["read"] * 3, "sum"))
    assert not fits(g, w("plan", *["read"] * 4, "sum"))  # past the bound
    assert not fits(g, w("plan", "sum"))  # no such edge
    assert graph_size(g).loops == 1 and graph_size(g).nodes == 3


def test_a_cycle_through_several_nodes_is_bounded_by_the_most_visits_seen() -> None:
    g = learn_graph([w("read+check", "fix", "check", "fix", "check"), w("read+check", "fix", "check")] * 3)
    assert node_data(g)["fix"]["max_visits"] == 2 and graph_size(g).revisited == 2
    assert fits(g, w("read+check", "fix", "check", "fix", "check"))
    assert not fits(g, w("read+check", "fix", "check", "fix", "check", "fix", "check"))


def test_rare_edges_are_dropped_and_each_node_keeps_at_most_cap_out_edges() -> None:
    common = [w("a", "b"), w("a", "c"), w("a", "d"), w("a", "e")]
    walks = common * 10 + [w("a", "e")] + [w("a", "f")]  # a -> f: 1 walk of 42, under 5 %
    g = learn_graph(walks)
    assert sorted(g.successors("a")) == ["b", "c", "e"]  # e is taken 11 times; b, c, d tie and b, c win by name
    assert "f" not in g and "d" not in g  # d: its edge was capped away, so no walk can reach it
    assert sorted(learn_graph(walks, cap=5, min_share=0.0).successors("a")) == ["b", "c", "d", "e", "f"]


def test_a_self_loop_and_the_answer_count_against_the_cap() -> None:
    walks = [w("a", "a", "b"), w("a", "a", "c"), w("a", "c"), w("a", "d"), w("a", "a")] * 4
    # the loop (12 walks) and a -> c (8) beat a -> b, a -> d and a -> end (4 each)
    assert sorted(learn_graph(walks, cap=2).successors("a")) == ["a", "c"]


def test_the_entry_is_a_routing_table_not_held_to_the_cap() -> None:
    firsts = ["a", "b", "c", "d", "e"]
    walks = [w(f, "z") for f in firsts] * 4
    g = learn_graph(walks)
    assert sorted(g.successors(START)) == ["a", "b", "c", "d", "e"] and graph_size(g).routes == 5
    assert all(fits(g, x) for x in walks)
    assert sorted(learn_graph(walks, routes=2).successors(START)) == ["a", "b"]
    # after a step the cap holds: the same five choices after `x` keep three
    after = [w("x", f, "z") for f in firsts] * 4
    assert len(list(learn_graph(after).successors("x"))) == 3
    with pytest.raises(ValueError, match="routes"):
        learn_graph(walks, routes=0)


def test_a_walk_without_a_round_goes_from_start_to_end() -> None:
    g = learn_graph([(), w("a")] * 3)
    assert g.has_edge(START, END) and fits(g, ()) and fits(g, w("a"))
    assert not fits(learn_graph([w("a")]), ())


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        learn_graph([w("a")], cap=0)
    with pytest.raises(ValueError, match="min_share"):
        learn_graph([w("a")], min_share=1.0)


@pytest.mark.parametrize("routes", [None, 2])
def test_the_graph_round_trips_through_json(routes: int | None) -> None:
    g = learn_graph([w("read+check", "fix", "check", "fix", "check"), w("read+check", "fix", "fix", "check")] * 3,
                    routes=routes)
    back = from_json(to_json(g))
    assert sorted(back.edges(data=True)) == sorted(g.edges(data=True))
    assert dict(back.nodes(data=True)) == dict(g.nodes(data=True)) and back.graph == g.graph
    assert to_json(back) == to_json(g)


HEAD = '{"format": "wva-drawn-graph", "version": 1, '
SETTINGS = '"cap": 3, "min_share": 0, "routes": null, "walks": 1, '


@pytest.mark.parametrize("text", [
    "{}", "not json", HEAD[:-2] + "}",
    HEAD + SETTINGS + '"nodes": [], "edges": [{"source": "start", "target": "x", "walks": 1}]}',
    HEAD + '"cap": "x", "min_share": 0, "routes": null, "walks": 1}',
    HEAD + SETTINGS + '"nodes": [{"id": "a", "tools": ["a"], "bound": 0, "max_visits": 1, "walks": 1}]}',
    "[1, 2]"])
def test_a_bad_json_graph_is_one_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match=r"^bad drawn graph: ") as info:
        from_json(text)
    assert "\n" not in str(info.value)


labels = st.sampled_from(["a", "b", "c", "a+b", "d"])
walk_lists = st.lists(st.lists(st.lists(labels, max_size=6).map(lambda r: w(*r)), min_size=1, max_size=3),
                      min_size=4, max_size=9)


@settings(max_examples=60, deadline=None)
@given(walk_lists, st.integers(1, 3), st.sampled_from([0.0, 0.05, 0.3]), st.sampled_from([None, 1, 2]),
       st.integers(0, 99))
def test_the_array_version_agrees_with_learn_graph_and_fits(instances: list[list[tuple[frozenset[str], ...]]],
                                                             cap: int, share: float, routes: int | None,
                                                             seed: int) -> None:
    walks = {f"i{k}": ws for k, ws in enumerate(instances)}
    drawing = drawing_sets(len(walks), 2, seed=seed)[:8]
    shares = fit_shares(encode(walks), drawing, cap=cap, min_share=share, routes=routes)
    for row, got in zip(drawing, shares, strict=True):
        g = learn_graph([x for k, ws in zip(row, walks.values(), strict=True) if k for x in ws], cap=cap,
                        min_share=share, routes=routes)
        want = [sum(fits(g, x) for x in ws) / len(ws) for ws in walks.values()]
        assert np.allclose(got, want)


def test_every_instance_draws_equally_often_and_is_tested() -> None:
    sets = drawing_sets(23, 5, permutations=200, seed=1)  # 200 permutations, each cut into 4 sets of 5
    assert sets.shape == (800, 23) and (sets.sum(axis=1) == 5).all()
    draws = sets.reshape(200, 4, 23).sum(axis=1)  # per permutation: 1 for the 20 instances that drew
    assert ((draws == 0) | (draws == 1)).all() and (draws.sum(axis=1) == 20).all()
    assert ((1 - sets).sum(axis=0) > 0).all()
    assert drawing_sets(23, 5, permutations=10).shape == (400, 23)  # at least MIN_SPLITS sets
    assert drawing_sets(2000, 1, permutations=200).shape == (6000, 2000)  # at most MAX_SPLITS


def test_too_few_instances_give_nan_and_the_curve_stops_where_they_run_out() -> None:
    walks = sample(PROCESSES[1], 11)
    assert math.isnan(drawability(walks).value) and drawability(walks).instances == 11
    assert [c.d for c in learning_curve(walks)] == [1, 2, 5]
    with pytest.raises(ValueError, match="d must be"):
        drawability(walks, 0)


def test_drawability_does_not_drift_with_the_number_of_instances() -> None:
    for process in PROCESSES[:2]:
        small = np.mean([drawability(sample(process, 20, seed=s), permutations=40).value for s in range(12)])
        large = drawability(sample(process, 400, seed=99), permutations=10).value
        assert abs(small - large) < 0.02, process.name


def test_the_learning_curve_of_branching_rises_as_the_branches_are_seen() -> None:
    curve = {c.d: c.value for c in learning_curve(sample(PROCESSES[2], 60), permutations=40)}
    assert curve[1] < 0.5 < curve[5] < curve[10] < curve[20]
    assert curve[20] > 0.9


def test_walks_come_back_from_a_results_folder(tmp_path: Path) -> None:
    walks = {p.name: sample(p, 15, seed=3) for p in PROCESSES}
    runs, events, _ = load_inputs(write_folder(tmp_path / "synthetic", walks))
    for name, want in walks.items():
        assert walks_by_instance(runs, events, task=name) == want


def test_the_row_the_criterion_will_add() -> None:
    walks = sample(PROCESSES[1], 30, seed=4)
    row = drawability_row(walks)
    assert row["drawability_ci_low"] <= row["drawability"] <= row["drawability_ci_high"]
    assert row["chapter_prediction"] == "workflow" and row["graph_nodes"] == 3 and row["graph_loops"] == 1
    assert math.isnan(drawability_row(sample(PROCESSES[1], 5))["graph_nodes"])
    assert predict(THRESHOLD - 0.01) == "agent" and predict(THRESHOLD) == "workflow" and predict(math.nan) is None


def test_the_drawing_instances_are_seeded_and_ignore_order() -> None:
    ids = [f"x-{k:02d}" for k in range(30)]
    assert drawing_instances(ids, 10, 1) == drawing_instances(ids[::-1], 10, 1) != drawing_instances(ids, 10, 2)
    chosen, g = drawn_graph(sample(PROCESSES[0], 30, seed=5), 10, seed=1)
    assert len(chosen) == 10 and graph_size(g).nodes == 3
