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
    if runs["success"].dtype != bool:  # pandas reads True/False as booleans; anything else is compared as text
        runs["success"] = runs["success"].astype(str).str.lower().isin(("true", "1"))
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

    def blocks() -> Iterator[pd.DataFrame]:
        for block in task_blocks(out, columns):
            if block["success"].dtype != bool:
                block["success"] = block["success"].astype(str).str.lower().isin(("true", "1"))
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
