"""How predictable a task measured, from the agent's own traces — a score meant to read the same at any
sample size.

The agent's walk in one run is the sequence of its tool-call *rounds*: the tool calls of one model
reply (read from events.jsonl: a `model_call` event opens a round, each following `tool_call`
event's `gen_ai.tool.name` joins it). Rounds, not single calls, because one model reply may issue
several calls at once (five lookups in one turn) and a workflow's tool node is one such round.

Three parts, each in [0, 1], over the agent's runs of one task:

- steps: `1 - min(1, CV)`, CV the coefficient of variation of the runs' step counts (sample sd / mean);
- paths: `1 / effective number of distinct paths`, where a path is the run's *shape* (its rounds, each
  the sorted set of distinct tool names) and the effective number is exp(entropy) of the shapes'
  distribution, the entropy estimated with the Chao–Shen coverage correction (unseen shapes included),
  so that it does not grow with the number of runs as the plain, normalised entropy did. One path: 1;
  two equally likely: 0.5;
- fit: the share of runs whose rounds fit a graph fixed in advance (`fits`): the family's declared
  workflow's graph when it declares one, else the best fit over every workflow's graph. Never the graph
  of the workflow that won, which would move with the winner.

    predictability = mean of the parts that could be measured (the fit is unknown for a task that is
    not a built-in family or an importable one)

with a 95% interval from resampling whole instances (all trials of an instance together, 500 resamples,
percentile). 1 means the agent walked one fixed path every time, a path a workflow had drawn in advance.
What it does not measure: whether the task *could* be done on a fixed path — a model that errs takes
detours, so a noisy model lowers the score of a task whose graph is known; read it at the error rate of
the model you mean to use.
"""

from __future__ import annotations

import math
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

Round = tuple[str, ...]


def rounds_by_run(events: Iterable[dict[str, Any]]) -> dict[str, list[Round]]:
    """Every run's tool-call rounds, in the order the events were recorded; empty rounds dropped."""
    rounds: dict[str, list[list[str]]] = {}
    for e in events:
        rid = str(e.get("run_id"))
        runs = rounds.setdefault(rid, [])
        if e.get("kind") == "model_call":
            runs.append([])
        elif e.get("kind") == "tool_call" and isinstance(e.get("gen_ai.tool.name"), str):
            if not runs:  # a tool call fixed in code before any model call (a workflow's ToolStep)
                runs.append([])
            runs[-1].append(e["gen_ai.tool.name"])
    return {rid: [tuple(r) for r in rs if r] for rid, rs in rounds.items()}


def shape(rounds: Sequence[Round]) -> tuple[Round, ...]:
    """A run's path shape: per round, which tools (not how many calls of each, nor their arguments)."""
    return tuple(tuple(sorted(set(r))) for r in rounds)


def steps_cv(steps: Sequence[float]) -> float:
    """Sample coefficient of variation (sd with ddof=1, over the mean); 0 for no variation, a mean of 0 or
    a single run; NaN for no runs."""
    if not steps:
        return math.nan
    mean = sum(steps) / len(steps)
    if mean == 0 or len(steps) < 2:
        return 0.0
    var = sum((s - mean) ** 2 for s in steps) / (len(steps) - 1)
    return math.sqrt(var) / mean


def path_entropy(paths: Sequence[Any]) -> float:
    """Chao–Shen estimate of the entropy (nats) of the paths' distribution; 0 for one run or none.

    The plug-in entropy of n samples is biased low, the more so the more paths go unseen; Chao and Shen
    (2003) scale each frequency by the sample coverage 1 - f1/n (f1: paths seen once) and weight it by
    its chance of being seen at all (Horvitz–Thompson), which removes most of that bias."""
    return chao_shen(list(Counter(paths).values()))


def chao_shen(counts: Sequence[int] | Any) -> float:
    """Chao–Shen entropy (nats) from the counts of each distinct value; 0 for fewer than two samples."""
    import numpy as np

    return float(chao_shen_rows(np.asarray([counts], dtype=float))[0])


def chao_shen_rows(counts: Any) -> Any:
    """`chao_shen` of every row of a (samples × distinct values) count matrix at once."""
    import numpy as np

    n = counts.sum(axis=1, keepdims=True)
    singletons = (counts == 1).sum(axis=1, keepdims=True)
    coverage = 1 - np.minimum(singletons, np.maximum(n - 1, 0)) / np.maximum(n, 1)  # never 0: see docstring
    p = coverage * counts / np.maximum(n, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, -p * np.log(np.where(p > 0, p, 1)) / (1 - (1 - p) ** n), 0.0)
    h = terms.sum(axis=1)
    return np.where(n[:, 0] > 1, np.maximum(h, 0.0), 0.0)


def effective_paths(entropy: float) -> float:
    """exp(entropy): the number of equally likely paths with the same entropy (1 = one path)."""
    return math.exp(entropy) if not math.isnan(entropy) else math.nan


def fits(graph: nx.DiGraph, rounds: Sequence[str | Sequence[str]], start: str = "input", end: str = "output") -> bool:
    """Does a walk from `start` to `end` of `graph` consume exactly these rounds, in order?

    Walking onto a `tool` node consumes the next round, which must be non-empty and name only tools in
    the node's `tools`; a node marked `dynamic` (an orchestrator's ×N worker) may consume several
    rounds in a row. Other nodes (llm, code, io) consume none. Cycles (an evaluator's loop) are
    allowed: the search is over (node, rounds consumed) states, so it ends. A bare string is a round
    of one call.
    """
    seq = [frozenset([r]) if isinstance(r, str) else frozenset(r) for r in rounds]
    n = len(seq)
    if start not in graph or end not in graph:
        return False
    stack, seen = [(start, 0)], set()
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        node, i = state
        if node == end and i == n:
            return True
        for succ in graph.successors(node):
            attrs = graph.nodes[succ]
            if attrs.get("kind") != "tool":
                stack.append((succ, i))
                continue
            allowed, j = set(attrs.get("tools") or ()), i
            while j < n and seq[j] and seq[j] <= allowed:
                j += 1
                stack.append((succ, j))
                if not attrs.get("dynamic"):
                    break
    return False


def score(cv: float, entropy: float, fit_share: float) -> float:
    """The documented predictability score: the mean of the available parts (NaN if none)."""
    parts = [1 - min(1.0, cv) if not math.isnan(cv) else math.nan, 1 / effective_paths(entropy), fit_share]
    known = [p for p in parts if not math.isnan(p)]
    return sum(known) / len(known) if known else math.nan


def measure(runs: Sequence[tuple[str, float, Any, float]]) -> tuple[float, float, float, float]:
    """(steps_cv, path_entropy, fit_share, predictability) of runs given as (instance, steps, shape, fit);
    a fit of NaN means unknown."""
    steps = [r[1] for r in runs]
    fits_known = [r[3] for r in runs if not math.isnan(r[3])]
    fit = sum(fits_known) / len(fits_known) if fits_known else math.nan
    cv, ent = steps_cv(steps), path_entropy([r[2] for r in runs])
    return cv, ent, fit, score(cv, ent, fit)


def score_interval(runs: Sequence[tuple[str, float, Any, float]], resamples: int = 500, seed: int = 0,
                   level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the score over resamples of whole instances (their runs kept together).

    A resample is a vector of how many times each instance was drawn, so every sum the score needs
    (steps, squared steps, each path's count, fits) is a weighted sum of per-instance sums."""
    import numpy as np

    names = list(dict.fromkeys(r[0] for r in runs))
    if len(names) < 2:
        return math.nan, math.nan
    where = {name: k for k, name in enumerate(names)}
    codes = {s: i for i, s in enumerate(dict.fromkeys(r[2] for r in runs))}
    per = np.zeros((len(names), 5 + len(codes)))  # runs, steps, steps², fits known, fits; then path counts
    for inst, steps, path, fit in runs:
        row = per[where[inst]]
        row[:3] += (1, steps, steps * steps)
        if not math.isnan(fit):
            row[3:5] += (1, fit)
        row[5 + codes[path]] += 1
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, len(names), len(names)), minlength=len(names))
                        for _ in range(resamples)])
    tot = weights @ per
    n, mean = tot[:, 0], tot[:, 1] / tot[:, 0]
    var = np.maximum(tot[:, 2] - n * mean * mean, 0) / np.maximum(n - 1, 1)
    cv = np.where((n > 1) & (mean > 0), np.sqrt(var) / np.where(mean > 0, mean, 1), 0.0)
    paths = 1 / np.exp(chao_shen_rows(tot[:, 5:]))
    parts = [1 - np.minimum(1, cv), paths]
    if per[:, 3].sum() > 0:
        parts.append(np.where(tot[:, 3] > 0, tot[:, 4] / np.maximum(tot[:, 3], 1), np.nan))
    scores = np.nanmean(np.stack(parts), axis=0)
    tail = (1 - level) / 2
    low, high = np.nanquantile(scores, [tail, 1 - tail])
    return float(low), float(high)


def task_specs(manifest: dict[str, Any]) -> dict[str, str]:
    """task label (the runs' `task`) -> the spec that builds it, from a results folder's manifest."""
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.registry import load_task

    specs: dict[str, str] = {}
    for spec in manifest.get("tasks") or []:
        try:
            specs[task_label(load_task(spec))] = spec
        except Exception:  # a family that no longer imports: its graph fit stays unknown
            continue
    return specs


def load_family(spec: str | None) -> Any | None:
    """The family a spec builds, or None when it is no importable family (a user's label, a moved module)."""
    from benchmarks.tasks.registry import load_task

    if not spec:
        return None
    try:
        return load_task(spec)
    except Exception:  # unknown to this installation: everything that needs the family is unknown
        return None


def workflow_graphs(family: Any, patterns: Sequence[str], seed: int = 0) -> dict[str, nx.DiGraph]:
    """Each listed pattern's fixed graph for a family (those that cannot be built are left out)."""
    graphs: dict[str, nx.DiGraph] = {}
    with tempfile.TemporaryDirectory(prefix="wva-graph-") as tmp:
        try:
            env = family.environment(family.instances(1, seed)[0], Path(tmp))
        except Exception:  # a user's family that fails here: the fit is unknown, not a crash
            return graphs
        for pattern in patterns:
            try:
                graphs[pattern] = family.design(pattern, env).graph
            except Exception:
                continue
    return graphs


def workflow_graph(spec: str, pattern: str, seed: int = 0) -> nx.DiGraph | None:
    """A pattern's fixed graph for a task, rebuilt from its spec (None if the family cannot be built)."""
    family = load_family(spec)
    return workflow_graphs(family, [pattern], seed).get(pattern) if family is not None else None


def fit_flags(graphs: dict[str, nx.DiGraph], walks: Sequence[Sequence[Round]],
              declared: str | None) -> tuple[str, list[float]]:
    """(the graph measured against, per walk 1.0/0.0): the declared workflow's graph when there is one,
    else the graph that the most walks fit. ("", NaN each) when no graph is known."""
    if declared and declared in graphs:
        return declared, [float(fits(graphs[declared], w)) for w in walks]
    best, flags = "", [math.nan] * len(walks)
    for name in sorted(graphs):
        mine = [float(fits(graphs[name], w)) for w in walks]
        if not best or sum(mine) > sum(flags):
            best, flags = name, mine
    return best, flags


def walked_graph(runs: Iterable[Sequence[Round]]) -> nx.DiGraph:
    """The union of the agent's walks: nodes = tools called (plus input/output), edges = consecutive
    calls, each edge's `count` = how many times it was taken, each node's `calls` = how often called."""
    g = nx.DiGraph(title="agent: walked")
    g.add_node("input", kind="io", label="start", calls=0)
    g.add_node("output", kind="io", label="answer", calls=0)
    for rounds in runs:
        prev = "input"
        for name in (call for r in rounds for call in r):
            if name not in g:
                g.add_node(name, kind="tool", label=name, tools=(name,), calls=0)
            g.nodes[name]["calls"] += 1
            count = g.edges[prev, name]["count"] + 1 if g.has_edge(prev, name) else 1
            g.add_edge(prev, name, count=count)
            prev = name
        count = g.edges[prev, "output"]["count"] + 1 if g.has_edge(prev, "output") else 1
        g.add_edge(prev, "output", count=count)
    return g
