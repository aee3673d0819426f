"""Could a coin have done it? The two one-sided tests that keep chance from reading as a drawn decision.

With ten drawing instances × 3 trials, a coin between two tools agrees with itself 2 of 3 times on many of them,
so point thresholds on agreement (or a rule's hit rate) passed one coin in five by chance. Both tests take the
coin as the null hypothesis: the agent picks among the ways it took uniformly and afresh each time, whatever the
instance. Its trials are then independent, so the tests below are exact under that null.

- `beats_chance`: a rule (or a fixed way) right `hits` of `n` times, against a coin over `ways` ways: the
  binomial tail P(X >= hits) at 1/ways, times `ways` because the way the rule names was picked after looking
  (Bonferroni over the ways it could have named).
- `dependence`: agreement among an instance's trials at the same state, against the same moves with their
  instances shuffled among the moves made at the same state (the instance carrying nothing): the share of
  `PERMUTATIONS` seeded shuffles that agree at least as much (with the observed one counted, so never 0).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np
from scipy import stats

from benchmarks.criterion.drawability.moves import Move

ALPHA = 0.05  # the tests' level: a coin passes at most this often
PERMUTATIONS = 400  # shuffles in `dependence` (its p-value's resolution: 1/401)


def beats_chance(hits: int, n: int, ways: int, alpha: float = ALPHA) -> bool:
    """Whether `hits` right of `n` is more than a coin over `ways` ways gives by chance (one-sided, at `alpha`,
    the named way picked after looking). With one way, or nothing to judge, there is no coin to beat."""
    if ways <= 1 or n == 0:
        return True
    return ways * float(stats.binom.sf(hits - 1, n, 1 / ways)) <= alpha


def _codes(keys: Sequence[Hashable]) -> np.ndarray:
    index: dict[Hashable, int] = {}
    return np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)


def dependence(moves: Sequence[Move], scope: Callable[[Move], Hashable], permutations: int = PERMUTATIONS,
               seed: int = 0) -> float:
    """The permutation p-value of the agreement among an instance's trials at the same state (pairs of its moves
    at one `Move.state` that took the same way), with each move's way shuffled among the moves at the same
    `scope(m)` (a state without the instance's own fields). 1 where no two moves of an instance share a state."""
    if len(moves) < 2:
        return 1.0
    cell = _codes([(m.instance, m.state()) for m in moves])
    way = _codes([m.v for m in moves])
    group = _codes([scope(m) for m in moves])
    cells, ways = int(cell.max()) + 1, int(way.max()) + 1
    if np.bincount(cell).max() < 2:
        return 1.0

    def pairs(chosen: np.ndarray) -> np.ndarray:  # rows × moves of ways -> agreeing pairs per row
        rows = chosen.shape[0]
        keys = (np.arange(rows)[:, None] * cells + cell[None, :]) * ways + chosen
        counts = np.bincount(keys.ravel(), minlength=rows * cells * ways).reshape(rows, -1)
        return (counts * (counts - 1) // 2).sum(axis=1)

    observed = pairs(way[None, :])[0]
    rng = np.random.default_rng(seed)
    order = np.argsort(group, kind="stable")  # positions sorted by scope: each row fills them within its scope
    shuffled = np.argsort(group[None, :] + rng.random((permutations, len(moves))), axis=1)
    chosen = np.empty((permutations, len(moves)), dtype=np.int64)
    chosen[:, order] = way[shuffled]
    return float((1 + (pairs(chosen) >= observed).sum()) / (1 + permutations))
