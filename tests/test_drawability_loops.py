"""Drawability reads "on a loop" with the one definition (`patterns.workflows.choices.on_loop`, as `check_drawn`
and `wva audit` do), on the drawing's graph: code's steps and the model's kept ways."""

from __future__ import annotations

from itertools import pairwise

from benchmarks.criterion.drawability.decisions import choice_pools, ways_graph
from benchmarks.criterion.drawability.moves import END, START, Move
from patterns.workflows.choices import model_choices, on_loop


def walk(instance: int, *nodes: str) -> list[Move]:
    path = [START, *nodes, END]
    return [Move(instance, u, v, {}) for u, v in pairwise(path)]


def twice(*nodes: str) -> list[Move]:
    """Two instances, two trials each, taking the same way (a way one instance takes twice is kept)."""
    return [m for i in (0, 1) for _ in range(2) for m in walk(i, *nodes)]


def test_a_model_choice_taken_again_after_its_answer_is_on_a_loop_as_the_patterns_read_it() -> None:
    model = [m for m in twice("a", "b", "a") if m.u != START]
    pools = choice_pools(model)
    graph = ways_graph(model)
    assert pools["a"][1] and pools["b"][1]
    assert on_loop(graph, "a") and {c.node for c in model_choices(graph) if c.on_loop} == {"a", "b"}


def test_a_router_after_a_lookup_is_not_on_a_loop() -> None:
    model = [m for h in ("h1", "h2", "h3", "h4") for m in twice("lookup", h) if m.u == "lookup"]
    pools = choice_pools(model, code={(START, "lookup"), ("h1", END), ("h2", END), ("h3", END), ("h4", END)})
    assert pools["lookup"] == (frozenset({"lookup"}), False)


def test_a_loop_through_a_step_code_takes_is_a_loop() -> None:
    """The model picks b at a; code takes b -> c; the model picks a again at c: the pick at a answered and the
    model picks again. Without code's step the drawing's graph has no cycle."""
    moves = twice("a", "b", "c", "a")
    model = [m for m in moves if (m.u, m.v) in {("a", "b"), ("c", "a")}]
    assert choice_pools(model, code={("b", "c")})["a"][1]
    assert not choice_pools(model)["a"][1]
