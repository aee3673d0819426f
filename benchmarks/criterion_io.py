"""The criterion's reading and writing: a results folder in, plain sentences and lines out."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from .outputs import EVENTS, MANIFEST, RUNS


def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Patterns no other beats on both (success, cost): success at least as high AND cost at most as
    low, one of them strictly. Unknown cost (NaN) never dominates and is never on the front. By cost."""
    known = {p: (s, c) for p, (s, c) in points.items() if not math.isnan(c)}
    front = [p for p, (s, c) in known.items()
             if not any(s2 >= s and c2 <= c and (s2 > s or c2 < c) for q, (s2, c2) in known.items() if q != p)]
    return sorted(front, key=lambda p: (known[p][1], -known[p][0], p))


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


def _cost(row: dict[str, Any]) -> str:
    if pd.isna(row["cost_ratio"]):
        return "cost unknown"
    return (f"the workflow costs {row['cost_ratio']:.2f}× the agent [{row['cost_ci_low']:.2f}, "
            f"{row['cost_ci_high']:.2f}]")


def note(row: dict[str, Any]) -> str:
    """One plain sentence: what decided the verdict, the numbers behind it, and for an inconclusive task
    how many instances would likely settle it."""
    diff = (f"agent − {row['comparator']} = {row['success_diff']:+.2f} [{row['diff_ci_low']:+.2f}, "
            f"{row['diff_ci_high']:+.2f}] over {int(row['instances'])} instances")
    text = f"{row['reason']}: {diff}; {_cost(row)}"
    if row["verdict"] == "inconclusive" and not pd.isna(row.get("instances_needed", math.nan)):
        text += f"; about {int(row['instances_needed'])} instances would likely settle it (80% power, if the " \
                "observed difference and spread are the truth)"
    return text


def _pct(x: float) -> str:
    return "n/a" if pd.isna(x) else f"{x:.0%}"


def format_verdicts(df: pd.DataFrame) -> str:
    """One line per task: the verdict, the numbers behind it, and whether the chapter's rule agrees."""
    lines = ["criterion (agent vs the comparator workflow, per task):"]
    for r in df.itertuples():
        agree = {True: "agrees", False: "DISAGREES"}.get(None if pd.isna(r.agrees) else bool(r.agrees), "n/a")
        if not r.comparator or pd.isna(r.success_diff):
            lines.append(f"  {r.task}: {r.verdict} ({r.note})")
            continue
        ratio = "?" if pd.isna(r.cost_ratio) else f"{r.cost_ratio:.2f}"
        lat = "?" if pd.isna(r.latency_ratio) else f"{r.latency_ratio:.2f}"
        pred = "n/a" if pd.isna(r.predictability) else f"{r.predictability:.2f}"
        lines.append(f"  {r.task}: {r.verdict.upper()} — {r.comparator} {_pct(r.workflow_success)} vs agent "
                     f"{_pct(r.agent_success)} (diff {r.success_diff:+.2f} [{r.diff_ci_low:+.2f}, "
                     f"{r.diff_ci_high:+.2f}]), cost ×{ratio}, latency ×{lat}; predictability {pred} → chapter "
                     f"predicts {r.chapter_prediction or 'n/a'}: {agree}")
    return "\n".join(lines)
