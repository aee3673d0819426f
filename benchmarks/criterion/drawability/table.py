"""The same learning and fitting as `graph.py`, for many drawing sets at once, on arrays.

Drawability learns a graph for each of hundreds of drawing sets and tests every other instance's walks
against it; `learn_graph` + `fits` per split would take seconds per task. Here every distinct walk is
encoded once (its transitions, its longest stretch and its visits per label), and a split is a vector
of how many times each distinct walk is in its drawing set, so that learning and fitting are a few
array operations for all splits together. `tests/test_drawability.py` checks that it agrees with
`graph.learn_graph` and `graph.fits` walk for walk.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.criterion.drawability.graph import CAP, END, MIN_SHARE, ROUTES, START
from benchmarks.criterion.drawability.walks import Walk, name_of, runs_of

CELLS = 4_000_000  # array cells per chunk of splits (splits × distinct walks × labels): bounds the memory


@dataclass(frozen=True)
class WalkTable:
    """Every instance's walks, encoded (see the module docstring)."""

    instances: tuple[str, ...]
    counts: np.ndarray  # instances × distinct walks: how many of the instance's trials walked it
    edges: np.ndarray  # distinct walks × edges: 1 if the walk takes the edge (a self-loop: repeats the label)
    loop: np.ndarray  # per label: the index of its self-loop among the edges (len(edges) if never repeated)
    longest: np.ndarray  # distinct walks × labels: the longest stretch of the label in a row (0: absent)
    visits: np.ndarray  # distinct walks × labels: how many separate stretches of the label
    path: np.ndarray  # distinct walks × steps: the walk's edge indices, padded with len(edges) (always allowed)
    rank: np.ndarray  # per edge: its position among its source's edges when ordered by target name
    first: np.ndarray  # per edge, in (source, target name) order: where its source's group starts
    entry: np.ndarray  # per edge: does it leave start (an entry of the routing table)


def _distinct(walks: Mapping[str, Sequence[Walk]]) -> tuple[list[tuple[tuple[str, int], ...]], np.ndarray]:
    """(the distinct walks as (node name, stretch) runs, instances × distinct walks counts)."""
    distinct: dict[tuple[tuple[str, int], ...], int] = {}
    rows = []
    for ws in walks.values():
        row: dict[int, int] = {}
        for w in ws:
            k = distinct.setdefault(tuple((name_of(label), n) for label, n in runs_of(w)), len(distinct))
            row[k] = row.get(k, 0) + 1
        rows.append(row)
    counts = np.zeros((len(rows), len(distinct)))
    for i, row in enumerate(rows):
        counts[i, list(row)] = list(row.values())
    return list(distinct), counts


def encode(walks: Mapping[str, Sequence[Walk]]) -> WalkTable:
    """The table of `walks` (instance -> its walks); instances in the mapping's order."""
    distinct, counts = _distinct(walks)
    labels = sorted({name for runs in distinct for name, _ in runs})
    column = {name: j for j, name in enumerate(labels)}
    paths = [[START, *(name for name, _ in runs), END] for runs in distinct]
    loops = [{(name, name) for name, n in runs if n > 1} for runs in distinct]
    # sorted by (source, target): each source's edges are contiguous and in the order ties are broken in
    edge_list = sorted({e for p in paths for e in itertools.pairwise(p)}.union(*loops))
    edge_at = {e: i for i, e in enumerate(edge_list)}
    width = max(len(p) - 1 for p in paths) if paths else 0
    shape = (len(distinct), len(labels))
    edges, path = np.zeros((len(distinct), len(edge_list))), np.full((len(distinct), width), len(edge_list))
    longest, visits = np.zeros(shape, dtype=int), np.zeros(shape, dtype=int)
    for w, (runs, p) in enumerate(zip(distinct, paths, strict=True)):
        ids = [edge_at[e] for e in itertools.pairwise(p)]
        edges[w, ids + [edge_at[e] for e in loops[w]]] = 1
        path[w, : len(ids)] = ids
        for name, n in runs:
            j = column[name]
            longest[w, j], visits[w, j] = max(longest[w, j], n), visits[w, j] + 1
    loop = np.array([edge_at.get((name, name), len(edge_list)) for name in labels], dtype=int)
    starts: dict[str, int] = {}
    for i, (u, _) in enumerate(edge_list):
        starts.setdefault(u, i)
    first = np.array([starts[u] for u, _ in edge_list], dtype=int)
    return WalkTable(tuple(walks), counts, edges, loop, longest, visits, path, np.arange(len(edge_list)) - first,
                     first, np.array([u == START for u, _ in edge_list], dtype=bool))


def fit_shares(table: WalkTable, drawing: np.ndarray, *, cap: int = CAP, min_share: float = MIN_SHARE,
               routes: int | None = ROUTES) -> np.ndarray:
    """splits × instances: the share of each instance's walks that fit the graph learned from each split's
    drawing set (`drawing`: splits × instances, 1 for a drawing instance). Drawing instances included."""
    out = np.empty(drawing.shape, dtype=float)
    trials = table.counts.sum(axis=1)
    w, width = table.path.shape
    chunk = max(1, CELLS // max(1, w * max(width, table.longest.shape[1])))
    # per edge, how many of its source's edges may be kept: `cap`, or `routes` for start's (the routing table)
    limits = np.where(table.entry, len(table.first) if routes is None else routes, cap)
    for lo in range(0, drawing.shape[0], chunk):
        fit = _fits(table, drawing[lo: lo + chunk] @ table.counts, limits, min_share)
        out[lo: lo + chunk] = (fit @ table.counts.T) / np.maximum(trials, 1)
    return out


def _kept(table: WalkTable, taken: np.ndarray, walks: np.ndarray, limits: np.ndarray, min_share: float) -> np.ndarray:
    """splits × edges: the edges each split's graph keeps (rare ones dropped, at most `limits` per source)."""
    common = (taken > 0) & (taken >= min_share * walks[:, None])
    score = np.where(common, taken, -1.0)
    n_edges = len(table.first)
    # within each source's group: most walks first, then by target name (the group's static rank)
    key = table.first[None, :] * (n_edges * (taken.max(initial=0) + 2)) \
        - score * n_edges + table.rank[None, :]
    order = np.argsort(key, axis=1, kind="stable")
    position = np.empty_like(order)
    np.put_along_axis(position, order, np.arange(n_edges)[None, :].repeat(len(order), axis=0), axis=1)
    return common & (position - table.first[None, :] < limits[None, :])


def _fits(table: WalkTable, mult: np.ndarray, limits: np.ndarray, min_share: float) -> np.ndarray:
    """splits × distinct walks: does each walk fit each split's graph (`mult`: the drawing walks' counts)."""
    walks = mult.sum(axis=1)
    kept = _kept(table, mult @ table.edges, walks, limits, min_share)
    allowed = np.concatenate([kept, np.ones((len(kept), 1), dtype=bool)], axis=1)
    ok = np.take_along_axis(allowed[:, None, :], table.path[None, :, :], axis=2).all(axis=2) \
        if table.path.size else np.ones((len(kept), table.path.shape[0]), dtype=bool)
    seen = mult > 0
    looped = np.concatenate([kept, np.zeros((len(kept), 1), dtype=bool)], axis=1)[:, table.loop]
    longest = np.where(seen[:, :, None], table.longest[None], 0).max(axis=1, initial=0)
    bound = np.where(looped, longest, 1)
    most = np.where(seen[:, :, None], table.visits[None], 0).max(axis=1, initial=0)
    ok &= (table.longest[None] <= bound[:, None, :]).all(axis=2)
    ok &= (table.visits[None] <= most[:, None, :]).all(axis=2)
    return ok.astype(float)
