"""The criterion's reading and writing: a results folder in, plain sentences and lines out."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from .outputs import EVENTS, MANIFEST, RUNS, read_runs

_RUN_ID = re.compile(r'\{"run_id": "([^"]*)"')  # how every line of events.jsonl begins


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
        value = column.iloc[row]
        blank = pd.isna(value) or str(value).strip().lower() in ("", "nan")  # pandas writes a gap as nan or ""
        shown = "a blank" if blank else repr(str(value))
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


def load_inputs(out_dir: str | Path, columns: list[str] | None = None) -> tuple[pd.DataFrame, EventLines,
                                                                                  dict[str, Any]]:
    """runs.csv (keys kept as strings; only `columns` if given), the events (read from the file each time they
    are iterated, in file order: never all in memory), and the manifest."""
    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"no such folder: {out}")
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    runs = read_runs(out, columns)
    if runs.empty:
        raise ValueError(f"{out / RUNS} has no trials")
    runs["success"] = read_success(runs["success"], out / RUNS)
    return runs, EventLines(out / EVENTS), read_manifest(out)


def criterion_inputs(out_dir: str | Path, columns: list[str]) -> tuple[Iterator[pd.DataFrame], EventLines,
                                                                        dict[str, Any]]:
    """What the criterion reads, a task at a time: runs.csv's rows (those columns) one task after another, the
    events (read from the file when iterated, `of_runs` to parse only some runs' lines), and the manifest."""
    from .outputs import task_blocks

    out = Path(out_dir)
    if not out.is_dir():
        raise FileNotFoundError(f"no such folder: {out}")
    if not (out / RUNS).exists():
        raise FileNotFoundError(f"{out} has no {RUNS}: run 'wva bench --out {out}' first")
    if pd.read_csv(out / RUNS, usecols=["run_id"], nrows=1).empty:
        raise ValueError(f"{out / RUNS} has no trials")
    manifest = read_manifest(out)
    # the success column checked whole first (one column: small), so a bad cell names its line in the file
    read_success(pd.read_csv(out / RUNS, usecols=["success"], dtype=str)["success"], out / RUNS)

    def blocks() -> Iterator[pd.DataFrame]:
        for block in task_blocks(out, columns):
            block["success"] = block["success"].astype("string").str.strip().str.lower().map(SUCCESS).astype(bool)
            yield block

    return blocks(), EventLines(out / EVENTS), manifest


class EventLines:
    """events.jsonl as dicts, read line by line each time it is iterated; a line that is not JSON is a
    ValueError naming the file (a torn or edited file)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self.of_runs(None)

    def of_runs(self, run_ids: set[str] | None) -> Iterator[dict[str, Any]]:
        """The events of these runs only (all if None); a line of another run is skipped unparsed."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if run_ids is not None and (lead := _RUN_ID.match(line)) and lead.group(1) not in run_ids:
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    raise ValueError(f"{self.path}: line {number} is not JSON (a torn or edited file: rerun 'wva "
                                     f"bench --resume --out {self.path.parent}' to repair it)") from None
                if run_ids is None or event.get("run_id") in run_ids:
                    yield event


def read_manifest(out: Path) -> dict[str, Any]:
    """The folder's manifest ({} if it has none); a corrupted one is a ValueError naming the file."""
    path = out / MANIFEST
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path} is not a readable manifest: {' '.join(str(exc).split())}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path} is not a readable manifest: expected a JSON object")
    return doc


def sim_dataset_tasks(runs: pd.DataFrame, manifest: dict[str, Any]) -> list[str]:
    """The tasks from a user's own dataset that ran on the simulator: their success figures measure nothing."""
    datasets = set(manifest.get("dataset_tasks") or [])
    if "dataset_tasks" not in manifest:  # a manifest from before `dataset_tasks`: a task file's spec is a .toml
        datasets = {label for label, spec in _specs(manifest).items() if spec.split(":", 1)[0].endswith(".toml")}
    simulated = runs[runs["model"].astype(str).str.strip().str.lower().str.startswith("sim")]
    return [task for task in dict.fromkeys(simulated["task"].astype(str)) if task in datasets]


def _specs(manifest: dict[str, Any]) -> dict[str, str]:
    from .predictability import task_specs

    return task_specs(manifest)


def folder_caveat(out_dir: str | Path) -> str | None:
    """`sim_caveat` for a results folder, reading only what it needs (the runs' model and task, the manifest)."""
    out = Path(out_dir)
    runs = pd.read_csv(out / RUNS, usecols=["model", "task"], dtype=str)
    return sim_caveat(sim_dataset_tasks(runs, read_manifest(out)))


def sim_caveat(tasks: list[str]) -> str | None:
    """The sentence every view of such a folder carries (the bench's warning, the report, the charts)."""
    if not tasks:
        return None
    return (f"{', '.join(tasks)}: a user's own dataset run on the simulator, which only walks the designs "
            "mechanically — these success figures and verdicts measure nothing about quality; use a real model "
            "(--model anthropic:<model-id>) or a recorded cassette (--model replay:<path>)")


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
