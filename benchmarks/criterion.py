"""`criterion.csv`: per task, the chapter's rule put to the test.

*A workflow fits when the task is predictable and decomposes into fixed subtasks; an agent is
justified when the number of steps cannot be predicted and no fixed path can be written down.*

Per task (the runs' `task` column):

- **predictability** (see `benchmarks.predictability`):
  `mean(1 - min(1, CV of the agent's step count), 1 - normalised entropy of its path shapes,
  share of agent runs that fit the best workflow's fixed graph)`, in [0, 1].
- **outcome**: the best workflow (every pattern but `agent`: highest success rate, then lowest mean
  cost) against the agent. `success_diff = agent - workflow`, with a paired bootstrap 95% interval
  (resample instances with replacement, each instance's mean success per pattern; 2000 resamples,
  seeded); `cost_ratio`, `latency_ratio` (p50) and `steps_ratio` are workflow / agent; `pareto`
  lists the patterns on the cost–success front.
- **verdict** (in this order):
  `agent` if `diff_ci_low > 0` (the agent is significantly more successful);
  `workflow` if `diff_ci_high < 0` (the workflow is), or if `diff_ci_low <= 0` and `cost_ratio < 1`
  (not significantly worse, and cheaper);
  `either` if the interval is narrow (half-width <= `EQUIVALENCE`) over at least `MIN_INSTANCES`
  instances — as good as each other, the workflow no cheaper; `inconclusive` otherwise. `note` says
  how large a difference the sample could have detected: the interval's half-width, and `mdd80`, the
  smallest success difference a two-sided 5% test would find with 80% power on this many instances,
  (z.975 + z.80) * sqrt(2 p(1-p) / instances), p the pooled success of both patterns, Agresti–Coull
  adjusted ((wins + 2) / (runs + 4)) so that 100% or 0% success does not claim infinite precision.
- **chapter_prediction**: `workflow` if predictability >= `THRESHOLD`, else `agent`; `agrees` compares
  it with the verdict (`either` agrees with both; `inconclusive` leaves it empty).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import predictability as pr
from .atomic import write_atomic
from .outputs import EVENTS, MANIFEST, RUNS
from .stats import Z95, percentile

NAME = "criterion.csv"
THRESHOLD = 0.5  # the midpoint of the score's range, fixed before any data was seen
EQUIVALENCE = 0.10  # a CI within ±10 points of success counts as "as good as each other"
MIN_INSTANCES = 10  # below this, a bootstrap over instances is too coarse to show equivalence
RESAMPLES = 2000
Z80 = 0.8416212335729143  # the 80th percentile of the standard normal: 80% power
VERDICTS = ("workflow", "agent", "either", "inconclusive")
COLUMNS = [
    "task", "predictability", "best_workflow", "agent_success", "workflow_success", "success_diff", "diff_ci_low",
    "diff_ci_high", "cost_ratio", "latency_ratio", "steps_ratio", "pareto", "verdict", "chapter_prediction",
    "agrees", "note", "steps_cv", "path_entropy", "fit_share", "instances", "agent_runs", "workflow_runs",
    "agent_ci_low", "agent_ci_high", "workflow_ci_low", "workflow_ci_high", "agent_cost", "workflow_cost",
    "agent_latency_p50", "workflow_latency_p50", "ci_half_width", "mdd80", "threshold",
    "workflow_graph_tools",  # the tools the best workflow's graph can call ("" = none, so no tool-calling run fits)
]


def paired_bootstrap(diffs: list[float] | np.ndarray, resamples: int = RESAMPLES, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the mean of per-instance differences, instances resampled with replacement."""
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(resamples, d.size))].mean(axis=1)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Patterns no other beats on both (success, cost): success at least as high AND cost at most as
    low, one of them strictly. Unknown cost (NaN) never dominates and is never on the front. By cost."""
    known = {p: (s, c) for p, (s, c) in points.items() if not math.isnan(c)}
    front = [p for p, (s, c) in known.items()
             if not any(s2 >= s and c2 <= c and (s2 > s or c2 < c) for q, (s2, c2) in known.items() if q != p)]
    return sorted(front, key=lambda p: (known[p][1], -known[p][0], p))


def mdd80(wins: int, runs: int, instances: int) -> float:
    """Minimal detectable difference at 80% power (module docstring), capped at 1."""
    if instances < 1:
        return math.nan
    p = (wins + 2) / (runs + 4)
    return min(1.0, (Z95 + Z80) * math.sqrt(2 * p * (1 - p) / instances))


def decide(diff_low: float, diff_high: float, cost_ratio: float, instances: int = MIN_INSTANCES) -> str:
    """The verdict rule of the module docstring, on the interval of agent − workflow success."""
    if math.isnan(diff_low) or math.isnan(diff_high):
        return "inconclusive"
    if diff_low > 0:
        return "agent"
    if diff_high < 0 or (not math.isnan(cost_ratio) and cost_ratio < 1):
        return "workflow"
    narrow = (diff_high - diff_low) / 2 <= EQUIVALENCE and instances >= MIN_INSTANCES
    return "either" if narrow else "inconclusive"


def predict(predictability: float, threshold: float = THRESHOLD) -> str | None:
    if math.isnan(predictability):
        return None
    return "workflow" if predictability >= threshold else "agent"


def agrees(verdict: str, prediction: str | None) -> bool | None:
    if verdict == "inconclusive" or prediction is None:
        return None
    return verdict == "either" or verdict == prediction


def _per_pattern(g: pd.DataFrame) -> pd.DataFrame:
    def cost(c: pd.Series) -> float:  # one unpriced call makes the mean unknown, never $0
        return float(c.mean()) if c.notna().all() else math.nan

    rows = {p: {"success": h["success"].mean(), "runs": len(h), "wins": int(h["success"].sum()),
                "cost": cost(h["cost_usd"]), "latency": percentile(list(h["latency_s"]), 50),
                "steps": h["steps"].mean()} for p, h in g.groupby("pattern")}
    return pd.DataFrame.from_dict(rows, orient="index")


def _ratio(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b) or b == 0:
        return math.nan
    return a / b


def load_inputs(out_dir: str | Path) -> tuple[pd.DataFrame, list[dict[str, Any]], dict[str, Any]]:
    """runs.csv (keys kept as strings), the events as dicts in file order, and the manifest."""
    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"no such folder: {out}")
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    runs = pd.read_csv(out / RUNS, dtype={"run_id": str, "task": str, "instance": str, "pattern": str})
    if runs.empty:
        raise ValueError(f"{out / RUNS} has no trials")
    runs["success"] = runs["success"].astype(str).str.lower().isin(("true", "1"))
    events: list[dict[str, Any]] = []
    if (out / EVENTS).exists():
        with (out / EVENTS).open(encoding="utf-8") as f:
            events = [json.loads(line) for line in f if line.strip()]
    manifest = json.loads((out / MANIFEST).read_text()) if (out / MANIFEST).exists() else {}
    return runs, events, manifest


def task_row(task: str, g: pd.DataFrame, rounds: dict[str, list[pr.Round]], spec: str | None, seed: int,
             threshold: float = THRESHOLD) -> dict[str, Any]:
    from .stats import wilson

    stats = _per_pattern(g)
    row: dict[str, Any] = {c: math.nan for c in COLUMNS} | {"task": task, "threshold": threshold, "pareto": "",
                                                           "best_workflow": "", "note": "", "agrees": None,
                                                           "chapter_prediction": None, "verdict": "inconclusive"}
    row["pareto"] = ";".join(pareto_front({p: (r.success, r.cost) for p, r in stats.iterrows()}))
    flows = stats.drop(index="agent", errors="ignore")
    if "agent" not in stats.index or flows.empty:
        row["note"] = "no agent runs" if "agent" not in stats.index else "no workflow runs"
        return row
    best = flows.assign(c=flows["cost"].fillna(math.inf)).sort_values(["success", "c"], ascending=[False, True],
                                                                      kind="stable").index[0]
    a, w = stats.loc["agent"], stats.loc[best]
    agent_runs = g[g["pattern"] == "agent"]
    per = g[g["pattern"].isin(["agent", best])].groupby(["instance", "pattern"])["success"].mean().unstack()
    per = per.dropna()
    low, high = paired_bootstrap((per["agent"] - per[best]).to_numpy(), seed=seed)
    half = (high - low) / 2
    walks = [rounds.get(rid, []) for rid in agent_runs["run_id"]]
    graph = pr.workflow_graph(spec, best, seed) if spec else None
    fit = sum(pr.fits(graph, wk) for wk in walks) / len(walks) if graph is not None and walks else math.nan
    if graph is not None:
        row["workflow_graph_tools"] = ";".join(sorted({t for _, d in graph.nodes(data=True) if d.get("kind") == "tool"
                                                       for t in d.get("tools") or ()}))
    cv, ent = pr.steps_cv(list(agent_runs["steps"])), pr.path_entropy([pr.shape(wk) for wk in walks])
    row.update(
        best_workflow=best, agent_success=a.success, workflow_success=w.success, success_diff=a.success - w.success,
        diff_ci_low=low, diff_ci_high=high, cost_ratio=_ratio(w.cost, a.cost), latency_ratio=_ratio(w.latency,
        a.latency), steps_ratio=_ratio(w.steps, a.steps), steps_cv=cv, path_entropy=ent, fit_share=fit,
        predictability=pr.score(cv, ent, fit), instances=len(per), agent_runs=int(a.runs), workflow_runs=int(w.runs),
        agent_cost=a.cost, workflow_cost=w.cost, agent_latency_p50=a.latency, workflow_latency_p50=w.latency,
        ci_half_width=half, mdd80=mdd80(int(a.wins + w.wins), int(a.runs + w.runs), len(per)))
    row["agent_ci_low"], row["agent_ci_high"] = wilson(int(a.wins), int(a.runs))
    row["workflow_ci_low"], row["workflow_ci_high"] = wilson(int(w.wins), int(w.runs))
    row["verdict"] = decide(low, high, row["cost_ratio"], len(per))
    row["chapter_prediction"] = predict(row["predictability"], threshold)
    row["agrees"] = agrees(row["verdict"], row["chapter_prediction"])
    row["note"] = note(row)
    return row


def note(row: dict[str, Any]) -> str:
    """One plain sentence: what decided the verdict, and what the sample could have detected."""
    diff = f"agent − {row['best_workflow']} = {row['success_diff']:+.2f} [{row['diff_ci_low']:+.2f}, " \
           f"{row['diff_ci_high']:+.2f}]"
    cost = "cost unknown" if math.isnan(row["cost_ratio"]) else f"the workflow costs {row['cost_ratio']:.2f}× the agent"
    power = f"CI ±{row['ci_half_width']:.2f}, detectable difference ≈{row['mdd80']:.2f} at 80% power"
    why = {"agent": "the agent is significantly more successful",
           "workflow": "the workflow is significantly more successful" if row["diff_ci_high"] < 0
           else "the workflow is not significantly less successful and is cheaper",
           "either": f"as successful within ±{EQUIVALENCE:.2f}, and the workflow is no cheaper",
           "inconclusive": "no significant difference, and the sample is too small to call them equal"}
    return f"{why[row['verdict']]}: {diff}; {cost}; {power}"


def criterion_table(out_dir: str | Path, threshold: float = THRESHOLD) -> pd.DataFrame:
    """The criterion for every task in a results folder (FileNotFoundError / ValueError if it has none)."""
    runs, events, manifest = load_inputs(out_dir)
    rounds = pr.rounds_by_run(events)
    specs = pr.task_specs(manifest)
    seed = int(manifest.get("seed", 0) or 0)
    # a label missing from the manifest may itself be a spec (a built-in family's `multihop:hops=3`)
    rows = [task_row(task, g, rounds, specs.get(task, task), seed, threshold)
            for task, g in runs.groupby("task", sort=False)]
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["agrees"] = df["agrees"].astype("boolean")
    return df


def write_criterion(out_dir: str | Path, df: pd.DataFrame | None = None, name: str = NAME) -> pd.DataFrame:
    """Compute (unless given) and write criterion.csv atomically; returns the table."""
    table = criterion_table(out_dir) if df is None else df
    path = Path(out_dir) / name
    write_atomic(path, lambda f: table.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    return table


def _pct(x: float) -> str:
    return "n/a" if pd.isna(x) else f"{x:.0%}"


def format_verdicts(df: pd.DataFrame) -> str:
    """One line per task: the verdict, the numbers behind it, and whether the chapter's rule agrees."""
    lines = ["criterion (agent vs the best workflow, per task):"]
    for r in df.itertuples():
        agree = {True: "agrees", False: "DISAGREES"}.get(None if pd.isna(r.agrees) else bool(r.agrees), "n/a")
        if not r.best_workflow or pd.isna(r.success_diff):
            lines.append(f"  {r.task}: {r.verdict} ({r.note})")
            continue
        ratio = "?" if pd.isna(r.cost_ratio) else f"{r.cost_ratio:.2f}"
        lat = "?" if pd.isna(r.latency_ratio) else f"{r.latency_ratio:.2f}"
        lines.append(f"  {r.task}: {r.verdict.upper()} — {r.best_workflow} {_pct(r.workflow_success)} vs agent "
                     f"{_pct(r.agent_success)} (diff {r.success_diff:+.2f} [{r.diff_ci_low:+.2f}, "
                     f"{r.diff_ci_high:+.2f}]), cost ×{ratio}, latency ×{lat}; predictability "
                     f"{r.predictability:.2f} → chapter predicts {r.chapter_prediction or 'n/a'}: {agree}")
    return "\n".join(lines)
