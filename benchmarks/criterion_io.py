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


SUCCESS = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}


def read_success(column: pd.Series, path: Path) -> pd.Series:
    """The success column as booleans: true/false/1/0/1.0/0.0 in any case (pandas writes 1.0 for a 0/1
    column with a gap); anything else, a blank included, is a ValueError naming the file and line."""
    text = column.astype("string").str.strip().str.lower()
    parsed = text.map(SUCCESS)
    bad = parsed.isna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        shown = "a blank" if pd.isna(column.iloc[row]) or not str(column.iloc[row]).strip() else \
            repr(str(column.iloc[row]))
        raise ValueError(f"{path} line {csv_line(path, row)}: success must be true/false/1/0, not {shown}")
    return parsed.astype(bool)


def csv_line(path: Path, row: int) -> int:
    """The file line on which data row `row` (0-based) starts: quoted fields may span lines."""
    import csv

    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        start = 1
        for k, _ in enumerate(reader):
            if k == row + 1:
                return start
            start = reader.line_num + 1
    return row + 2


def load_inputs(out_dir: str | Path) -> tuple[pd.DataFrame, list[dict[str, Any]], dict[str, Any]]:
    """runs.csv (keys kept as strings, success checked), the events as dicts in file order, and the manifest."""
    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"no such folder: {out}")
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    runs = pd.read_csv(out / RUNS, dtype={"run_id": str, "task": str, "instance": str, "pattern": str,
                                          "success": str})
    if runs.empty:
        raise ValueError(f"{out / RUNS} has no trials")
    runs["success"] = read_success(runs["success"], out / RUNS)
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


def _price(row: dict[str, Any]) -> str:
    if not row.get("price_side") or pd.isna(row.get("price_per_success", math.nan)):
        return ""
    from .tradeoff import Price

    p = Price(row["price_side"], row["price_extra_success"], row["price_cost_times"], row["price_per_success"],
              row["price_ci_low"], row["price_ci_high"])
    return f"; the price of the extra success — {p.text()}"


def _value(row: dict[str, Any]) -> str:
    if pd.isna(row.get("value_diff", math.nan)):
        return ""
    return (f"; net value per trial at ${row['value_per_success']:g} a success, agent − {row['comparator']}: "
            f"${row['value_diff']:+.4g} [{row['value_ci_low']:+.4g}, {row['value_ci_high']:+.4g}]")


def note(row: dict[str, Any]) -> str:
    """One plain sentence: what decided the verdict, the numbers behind it (the paired estimates and the
    intervals the rule read), the price of an extra success, and for an inconclusive task where to go next."""
    diff = (f"agent − {row['comparator']} = {row['success_diff']:+.2f} [{row['diff_ci_low']:+.2f}, "
            f"{row['diff_ci_high']:+.2f}] ({row['diff_level']:.1%} interval) over {int(row['instances'])} instances")
    text = f"{row['reason']}: {diff}; {_cost(row)}{_price(row)}{_value(row)}"
    if row["verdict"] == "inconclusive":
        text += "; 'wva plan' on this folder says how many instances would settle it"
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
        if isinstance(r.price_side, str) and r.price_side and not pd.isna(r.price_per_success):
            lines.append(f"    {_price(r._asdict())[2:]}")
    return "\n".join(lines)


def tradeoff_text(row: Any) -> str:
    """The price of the extra success as a sentence for a report ("" when there is none)."""
    text = _price(row if isinstance(row, dict) else row._asdict())
    return f" The price of the extra success — {text.split(' — ', 1)[1]}." if text else ""


def method_text(margin: float, cost_margin: float, value: float | None = None) -> str:
    """The verdict rule in plain words (a report's method bullet)."""
    if value is not None:
        return (f"- **The verdict**, by net value per trial (success × ${value:g} − cost): `agent` or `workflow` "
                "when one side's net value is significantly higher (95% interval of the difference, a studentized "
                f"bootstrap of the instances); `either` when they are equivalent within ±${value * margin:.4g} (δ = "
                f"{margin:.2f} of success, priced; 90% interval inside); `inconclusive` otherwise.")
    return (f"- **The verdict**, with a success margin δ = {margin:.2f} and a cost margin of {cost_margin:.0%}: "
            "`workflow` if the workflow is significantly more successful (the 97.5% interval of agent − workflow "
            "below 0), or no worse than δ (the 90% interval's upper end below δ) and cheaper by at least the cost "
            f"margin (the 95% interval of the cost ratio workflow / agent below {1 - cost_margin:.2f}); `agent`, "
            "the mirror image; `either` if the two are equivalent within ±δ (the 90% interval inside); "
            "`inconclusive` otherwise (`wva plan` sizes a run that would settle it). The 5% error budget is "
            "split between the two ways to name a winner (2.5% for the success leg, 2.5% for the cost leg), so "
            "a wrong winner is named at most 5% of the time at any truth; being cheaper never makes a verdict "
            "weaker. When the more successful side is also significantly costlier, the price of each extra "
            "success is given with its interval.")
