"""Scores for many drawing sets at once: per split, the drawing learned from its drawing instances and the
score (`fit.score`) of every instance outside it.

Learning is done once per split; checking a walk against a drawing is memoised by the drawing's content, since
most drawing sets of a regular task learn the same drawing, and a walk's steps (its fan-out merging) by the
order-free pairs they are merged under.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from benchmarks.criterion.drawability.fit import score
from benchmarks.criterion.drawability.learn import CAP, MIN_SHARE, ROUTES, Drawing, Move, learn, moves
from benchmarks.criterion.drawability.walks import Walk


def drawing_key(d: Drawing) -> Hashable:
    """What a drawing decides fits (equal keys: equal `check` results on every walk)."""
    return (d.free, tuple(sorted(d.rules.items())), d.anywhere, d.sequence, tuple(sorted(d.edges.items())),
            tuple(sorted(d.bound.items())), tuple(sorted(d.visits.items())), d.longest,
            tuple(sorted((n, c.ways, c.loop, c.drawn, c.measured) for n, c in d.choices.items())))


def fit_shares(walks: Mapping[str, Sequence[Walk]], drawing: np.ndarray, *, cap: int = CAP,
               min_share: float = MIN_SHARE, routes: int | None = ROUTES) -> np.ndarray:
    """splits × instances: each tested instance's coverage by the drawing learned from the split's drawing set
    (`drawing`: splits × instances, 1 for a drawing instance, in `walks`' order); 0 for drawing instances."""
    runs = [list(ws) for ws in walks.values()]
    out = np.zeros(drawing.shape, dtype=float)
    steps: dict[tuple[frozenset[frozenset[str]], int], list[list[Move]]] = {}
    covered: dict[tuple[Hashable, int], float] = {}

    def of(i: int, free: frozenset[frozenset[str]]) -> list[list[Move]]:
        if (free, i) not in steps:
            steps[free, i] = [moves(w, free, i) for w in runs[i]]
        return steps[free, i]

    for r, row in enumerate(drawing):
        chosen = [int(i) for i in np.flatnonzero(row)]
        flat = [(i, k) for i in chosen for k in range(len(runs[i]))]
        learned = learn([runs[i][k] for i, k in flat], cap=cap, min_share=min_share, routes=routes,
                        instances=[i for i, _ in flat], full=False,
                        moves_of=lambda j, free, flat=flat: of(flat[j][0], free)[flat[j][1]])
        key = drawing_key(learned)
        for i in np.flatnonzero(row == 0):
            if (key, i) not in covered:
                covered[key, i] = score(learned, of(i, learned.free))
            out[r, i] = covered[key, i]
    return out
