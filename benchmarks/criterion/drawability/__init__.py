"""Can the graph be drawn in advance? Measured by drawing it.

The chapter's criterion — *if you can draw the graph in advance, you don't need an agent* — taken at its
word, in the one sense of "drawn" the patterns use (`patterns.workflows.choices`): who decides each next step.
Learn the graph from the agent's walks on a few instances (`learn`), and judge, on *unseen* instances, each
decision the agent made (`decisions`, `fit.score`): where code decides, a deviation is the agent's slip when the
rule is right at least as often as the agent agrees with itself there; where the model decides, the choice is
drawn only when it is no agent in disguise (more than K ways on a loop, counted per choice tree) and depends on
the instance (kappa). An instance scores its least drawn decision, so neither the agent's slips nor a walk's
length read as "undrawable", and one undrawable decision is not diluted by ten code steps. The learned graph
also compiles into a workflow that runs against the agent (`drawn`).

- `walks`: an agent run as its tool-call rounds, with the arguments, results and input fields code may read;
- `moves`, `rules`, `learn`: order-free steps and worker pools, code dispatches (decision lists on fields, a
  pipeline's switched steps), bounded loops and the model's choices;
- `decisions`, `chance`, `fit`, `shares`, `estimate`: decisions lined up by state and judged (a coin the null
  hypothesis a drawn choice or a rule must reject), the score per instance,
  drawability at `D` drawing instances, cross-fitted, with an interval over instances (a jackknife error read as
  Clopper–Pearson at its effective count), not measured where a model choice had no repeated trials; the learning curve;
- `graph`: the drawing as a networkx graph, its size, JSON; `drawn`: the drawing as a workflow (`Drawn`).

`THRESHOLD` is the chapter's line: `predict(value)` says "workflow" at or above it. It was chosen on the
known-truth table's processes (`tests/synthetic_walks.py`, `SELECT`: walks of 1-8 calls, error rates 0, 0.1, 0.2
with wrong-tool slips; the same processes run through `wva bench` as the `walks` family), never on the built-in
families: at D = 10 with 60 instances × 3 trials (seeds 0 and 1), the drawable processes measured 0.607 at the
least (a pipeline of 4-8 steps at e = 0.2) and the not-drawable ones 0.304 at the most (a prose trail of two
places at e = 0.2; one call to 1 of 2 tools at random: 0.100). The threshold is the middle of that gap, 0.46; it is
tested on another grid (`TEST`: walks of 2-4 and 10-12 calls, e = 0.05 and 0.15, other seeds) by
`python -m benchmarks.perf.drawability_gap`, and `tests/test_drawability_truth.py` checks every row at its longest
with one slip in five. (The whole-walk measure, whose line was 0.44, fell as (1 - e)^L; the line was 0.52 before a
model choice and a rule had to beat a coin (`chance`), when the one-call coin read 0.596, above it.)
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

THRESHOLD = 0.46

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
        "drawability_d": d, "drawability_instances": est.instances, "drawability_reason": est.reason,
        "chapter_prediction": predict(est.value, threshold), "graph_cap": CAP}
    sizes = ("nodes", "edges", "loops", "revisited", "routes", "dispatches")
    if est.instances < d:
        return row | {f"graph_{k}": math.nan for k in sizes}
    size = graph_size(drawn_graph(walks, d, seed)[1])
    return row | {f"graph_{k}": getattr(size, k) for k in sizes}
