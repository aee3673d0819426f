"""Can the graph be drawn in advance? Measured by drawing it.

The chapter's criterion — *if you can draw the graph in advance, you don't need an agent* — taken at its
word, in the one sense of "drawn" the patterns use (`patterns.workflows.choices`): each next step is decided
by code (a field of the input or of a tool's JSON result) or by the model among a few fixed ways (any number
at the first step, a routing table on the input; at most `CAP` after a tool has answered). Learn that graph
from the agent's walks on a few instances (`learn`), and measure the share of *unseen* instances' walks it
covers, a walk counting only as far as its instance's trials agree on the model's choices (`fit`,
`estimate`). The learned graph also compiles into a workflow that runs against the agent (`drawn`).

- `walks`: an agent run as its tool-call rounds, with the arguments, results and input fields code may read;
- `moves`, `rules`, `learn`: order-free fan-out steps, code dispatches (decision lists on fields, a
  pipeline's switched steps), bounded loops and the model's few kept ways on;
- `fit`, `shares`, `estimate`: whether a walk fits, coverage per instance, drawability at `D` drawing
  instances, cross-fitted, with a jackknife interval over instances, and the learning curve;
- `graph`: the drawing as a networkx graph, its size, JSON; `drawn`: the drawing as a workflow (`Drawn`).

`THRESHOLD` is the chapter's line: `predict(value)` says "workflow" at or above it. It was chosen on
synthetic processes whose answer is known (`tests/synthetic_walks.py`, `GRID`; the same processes run
through `wva bench` as the `walks` family), never on the built-in families: at D = 10 with 60 instances × 3
trials, the drawable processes (a fixed path with retries, a bounded loop, branching after a step, routing
on the input, a parallel map in any order, optional steps switched by input flags, and a code dispatch on a
result field naming the next of 8 or 12 tools, each over its range of slips) measured 0.582 at the least (the
dispatch over 12 tools with one slip in ten), and the not-drawable ones (open-ended walks over 3-6 tools, a
random walk over 2-6 tools, a first tool picked at random among 4 or 8) 0.294 at the most (the random first
pick among four). The threshold is the middle of that gap, 0.44 (`python -m benchmarks.perf.drawability_gap
--seeds 0` prints the grid); `tests/test_drawability_truth.py` recomputes the gap and checks the threshold is
still inside it. (The earlier measure, which read only tool names, had its line at 0.67 and misread four of
these processes.)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchmarks.criterion.drawability.drawn import Drawn, compile_drawing
from benchmarks.criterion.drawability.estimate import CURVE, D, Drawability, drawability, learning_curve
from benchmarks.criterion.drawability.fit import check, fits, score
from benchmarks.criterion.drawability.graph import GraphSize, from_json, graph_size, to_graph, to_json
from benchmarks.criterion.drawability.learn import CAP, END, MIN_SHARE, ROUTES, START, Drawing, Rule, learn
from benchmarks.criterion.drawability.walks import Label, Step, Walk, as_walk, walk_of, walks_by_instance

THRESHOLD = 0.44

__all__ = [
    "CAP",
    "CURVE",
    "END",
    "MIN_SHARE",
    "ROUTES",
    "START",
    "THRESHOLD",
    "D",
    "Drawability",
    "Drawing",
    "Drawn",
    "GraphSize",
    "Label",
    "Rule",
    "Step",
    "Walk",
    "as_walk",
    "check",
    "compile_drawing",

    "drawability",
    "drawability_row",
    "drawing_file",
    "drawing_instances",
    "drawn_graph",
    "fits",
    "from_json",
    "graph_size",
    "learn",
    "learn_graph",
    "learning_curve",
    "predict",
    "score",
    "to_graph",
    "to_json",
    "walk_of",
    "walks_by_instance",
]


def predict(value: float, threshold: float = THRESHOLD) -> str | None:
    """The chapter's prediction from drawability: "workflow" at or above the threshold, else "agent"
    (None when it could not be measured)."""
    if math.isnan(value):
        return None
    return "workflow" if value >= threshold else "agent"


def drawing_file(task: str) -> str:
    """The file name of a task's drawing in a results folder's `drawn/` sub-folder (the task label made safe
    for a file name: `multihop:hops=3` -> `multihop_hops_3.json`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", task).strip("_") + ".json"


def drawing_instances(instances: Sequence[str], d: int = D, seed: int = 0) -> list[str]:
    """The `d` instances a drawing is learned from, chosen by a seeded permutation of the sorted ids (so
    that the choice depends on neither the order of a file nor the results); the others are tested."""
    ids = sorted(instances)
    order = np.random.default_rng(seed).permutation(len(ids))
    return [ids[i] for i in sorted(order[:d])]


def learn_graph(walks: Sequence[Walk], **options: Any) -> Drawing:
    """The drawing learned from walks, each walk taken as its own instance (`learn`)."""
    return learn([as_walk(w) for w in walks], **options)


def drawn_graph(walks: Mapping[str, Sequence[Walk]], d: int = D, seed: int = 0, **options: Any) -> \
        tuple[list[str], Drawing]:
    """(the drawing instances, the drawing learned from all their walks): what `Drawn` runs on the rest."""
    chosen = drawing_instances([k for k, v in walks.items() if len(v)], d, seed)
    drawing = learn([w for k in chosen for w in walks[k]], instances=[i for i, k in enumerate(chosen)
                                                                       for _ in walks[k]], **options)
    return chosen, drawing


def drawability_row(walks: Mapping[str, Sequence[Walk]], d: int = D, seed: int = 0,
                    threshold: float = THRESHOLD) -> dict[str, Any]:
    """A task's drawability columns: the estimate and its interval at `d`, the prediction, and the size of
    the graph `drawn_graph` learns (the one the `drawn` comparator runs; NaN sizes with fewer than d
    instances)."""
    est = drawability(walks, d, seed=seed)
    row: dict[str, Any] = {
        "drawability": est.value, "drawability_ci_low": est.low, "drawability_ci_high": est.high,
        "drawability_d": d, "drawability_instances": est.instances,
        "chapter_prediction": predict(est.value, threshold), "graph_cap": CAP}
    sizes = ("nodes", "edges", "loops", "revisited", "routes", "dispatches")
    if est.instances < d:
        return row | {f"graph_{k}": math.nan for k in sizes}
    size = graph_size(drawn_graph(walks, d, seed)[1])
    return row | {f"graph_{k}": getattr(size, k) for k in sizes}
