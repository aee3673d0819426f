"""Does a walk fit a drawing, and how much of an instance's process does a drawing draw?

**Fits** (`check`): every transition is explained by the drawing's code (a dispatch rule predicts it, or it is
a fixed edge) or is one of the model's kept ways on; every step within its bounds (repeats in a row, visits).
A fitting walk's *signature* is the sequence of the model's choices it made (the transitions no code explains).
It says whether a workflow run along the drawing could have taken this exact walk.

**Score** (`score`): what drawability averages. Not whether whole walks fit, which falls as (1 - e)^L with the
agent's slips and the walk's length, but decision by decision (`decisions.py`): the instance's trials lined up by
state, a deviation from code's rule counted as a slip where the rule is right at least as often as the agent
agrees with itself, a model choice drawn only when it is no agent in disguise and depends on the instance, and
the instance scored by its least drawn decision.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

from benchmarks.criterion.drawability.decisions import State, judged
from benchmarks.criterion.drawability.learn import END, Drawing, Move, moves
from benchmarks.criterion.drawability.walks import Walk

Signature = tuple[tuple[str, str], ...]


def check(drawing: Drawing, walk: Walk, ms: Sequence[Move] | None = None) -> Signature | None:
    """The walk's model choices if it fits the drawing, else None (`ms`: its moves, if already computed)."""
    ms = moves(walk, drawing.free) if ms is None else ms
    most = max(drawing.visits.values(), default=1)
    choices: list[tuple[str, str]] = []
    visits: Counter[str] = Counter()
    at, stretch = "", 0
    for m in ms:
        if m.v != END:
            at, stretch = (at, stretch + 1) if m.v == at else (m.v, 1)
            visits[m.v] += stretch == 1
            if stretch > drawing.bound.get(m.v, 1) or visits[m.v] > drawing.visits.get(m.v, most):
                return None
        if drawing.predict(m.u, m.feats) == m.v:
            continue
        if m.v not in drawing.edges.get(m.u, ()):
            return None
        choices.append((m.u, m.v))
    return tuple(choices)


def classify(drawing: Drawing, m: Move) -> tuple[Hashable, bool, bool | None] | None:
    """Who decides move `m`: (the decision it belongs to, whether the drawing takes the same step there, whether
    that decision is drawn, None when that was not measured); None where the drawing never saw anyone decide."""
    pred = drawing.predict(m.u, m.feats)
    if pred is not None:
        ways = drawing.edges.get(m.u, ())
        room = m.stretch < drawing.bound.get(m.u, 1)
        if pred == m.u and not room and any(v != m.u for v in ways):  # a bounded loop's exit
            return ("code", m.u), m.v in ways and m.v != m.u, True
        if pred != m.u and room and m.u in ways and drawing.in_sequence(m.u, m.feats) == pred:
            return ("code", m.u), m.v in (m.u, pred), True  # a pipeline step repeated, within its bound
        return ("code", m.u), m.v == pred, True
    choice = drawing.choices.get(m.u)
    if choice is None:
        return None
    return ("model", choice.nodes), m.v in drawing.edges.get(m.u, ()), choice.gate


def score(drawing: Drawing, trials: Sequence[Sequence[Move]]) -> float:
    """An instance's drawability under a drawing, from its trials' moves: the lowest score of its decisions
    (`decisions.py`: lined up by state, deviations where the rule beats the agent's self-agreement are slips, a
    model choice that is agent-like or not the instance's scores 0; NaN where a model choice's dependence on the
    instance was not measured, `decisions.repeats`, and no other decision scores 0)."""
    lined = len(trials) >= 2
    reached: dict[State, set[int]] = defaultdict(set)
    entries: list[tuple[Hashable, State, bool, str]] = []
    gates: dict[Hashable, bool | None] = {}
    for t, ms in enumerate(trials):
        for m in ms:
            got = classify(drawing, m)
            if got is None:
                continue
            key, right, gates[key] = got
            s = m.state()
            reached[s].add(t)
            entries.append((key, s, right, m.v))
    groups: dict[Hashable, list[tuple[State, bool, str]]] = defaultdict(list)
    for key, s, right, v in entries:
        if not lined or len(reached[s]) >= 2:
            groups[key].append((s, right, v))
    scores = [judged(g, lined) if gates[key] else 0.0 for key, g in groups.items() if gates[key] is not None]
    least = min(scores, default=1.0)
    # a decision whose drawing was not measured leaves the score unknown, unless another decision already scores 0
    return math.nan if least > 0 and any(gates[key] is None for key in groups) else least


def fits(drawing: Drawing, walk: Walk) -> bool:
    """Does the walk fit the drawing (its structure and bounds; agreement across trials aside)?"""
    return check(drawing, walk) is not None
