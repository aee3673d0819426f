"""Does a walk fit a drawing, and is what the model chose in it a function of the instance?

**Fits** (`check`): every transition is explained by the drawing's code (a dispatch rule predicts it, or it is
a fixed edge) or is one of the model's kept ways on; every step within its bounds (repeats in a row, visits).
A fitting walk's *signature* is the sequence of the model's choices it made (the transitions no code explains).

**Coverage of an instance** (`coverage`): the share of its walks that fit *and* whose model choices its other
fitting trials repeat. The drawing's model choices are routers fixed in advance: drawn, only if what the model
chooses there follows from the instance. A choice that differs from trial to trial of the same input (a random
walk, a first tool picked at random) is nothing a router can be drawn for, however few tools it ranges over; one
the input decides (which lookup a ticket needs, how many hops a question takes) is. So a fitting walk counts
by the share of the instance's other fitting walks with the same signature (pairwise agreement, whose expected
value does not depend on how many trials there are), and in full when no other trial fitted (nothing
contradicts it; with one trial per instance agreement cannot be read and coverage is that of fitting alone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

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


def coverage(signatures: Sequence[Signature | None]) -> float:
    """An instance's coverage from its walks' `check` results (see the module docstring)."""
    if not signatures:
        return 0.0
    fitting = [s for s in signatures if s is not None]
    same = Counter(fitting)
    total = 0.0
    for s in fitting:
        others = len(fitting) - 1
        total += 1.0 if others == 0 else (same[s] - 1) / others
    return total / len(signatures)


def fits(drawing: Drawing, walk: Walk) -> bool:
    """Does the walk fit the drawing (its structure and bounds; agreement across trials aside)?"""
    return check(drawing, walk) is not None
