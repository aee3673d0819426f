"""The same sweep at other seeds: one pooled verdict, and how many seeds' own verdicts agree.

`wva criterion DIR --replicates D1,D2,...` reads the same sweep run at other seeds (same model, patterns,
tasks, instances, trials and code) and writes `DIR/replicates.csv`: one row per seed and task (each seed's own
verdict), and one row per task with `folder` = `pooled` and `seed` = -1: the verdict on every seed's runs at
once, DIR's included.

**Pooled** (`pooled_verdict`, `pooled_diff`, `pooled_ci_low`, `pooled_ci_high`, `pooled_instances`). Each
seed draws its own instances, so the pooled runs hold every seed's instances side by side, each instance a
cluster of its own within its seed (the unit resampled is still the instance; a seed's instances are never
merged with another's). The rule is the one every verdict uses, read at the fixed design's levels, against
the declared (or named) comparator, so four seeds of 60 instances decide as one run of 240 would. This is
the reading to act on when replicates exist: it uses all the data and names a wrong winner at most 5% of
the time, like any verdict.

**Agreement** (`seed_agreement`, `seeds`): the share of the runs, DIR's included, whose own verdict is DIR's.
It is reported, never required: at the plan's 80% power per seed, three seeds all reach the right verdict
only 0.8³ = 51% of the time, so "every seed agrees" measures power, not correctness. A seed that says
`inconclusive` where another says `workflow` has not contradicted it.

There is no resampling `stability` column any more: the share of instance resamples that gave the same verdict
tracked the claim's p-value almost exactly (correlation 0.997 over 86 winner verdicts, its 90% line at
claim_p ≈ 0.0018), so it restated `claim_p` (`benchmarks.criterion.familywise`) and was read as something more.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

REPLICATES = "replicates.csv"
POOLED = "pooled"  # replicates.csv's `folder` of the pooled rows (seed -1)
# what a replicate must share: the sweep, and the code that ran it (another version is another instrument)
SAME_SETTINGS = ("model", "patterns", "tasks", "instances", "trials", "code_digest")
SEED_COLUMNS = ["seed_agreement", "seeds", "pooled_verdict", "pooled_diff", "pooled_ci_low", "pooled_ci_high",
                "pooled_instances"]
ROW_COLUMNS = ["folder", "seed", "task", "verdict", "comparator", "success_diff", "ci_low", "ci_high", "instances",
               "code_digest"]


def check_replicate(folder: Path, manifest: dict[str, Any], own: dict[str, Any]) -> None:
    """A ValueError naming the setting unless `folder` is the same sweep as `own`'s at another seed."""
    for key in SAME_SETTINGS:
        if manifest.get(key) != own.get(key):
            raise ValueError(f"--replicates: {folder} was run with another {key} ({manifest.get(key)!r}, not "
                             f"{own.get(key)!r}); a replicate is the same sweep at another seed")


def replicates_frame(verdicts: dict[str, pd.DataFrame], seeds: dict[str, int], digest: str | None = None,
                     pooled: list[dict[str, Any]] | None = None) -> pd.DataFrame:
    """`replicates.csv`: per replicate folder and task, its seed, verdict, agent − comparator difference and
    interval; then the pooled rows; with the code version (`code_digest`) they share with the folder."""
    rows = [{"folder": folder, "seed": seeds[folder], "task": r.task, "verdict": r.verdict,
             "comparator": r.comparator, "success_diff": r.success_diff, "ci_low": r.diff_ci_low,
             "ci_high": r.diff_ci_high, "instances": r.instances}
            for folder, df in verdicts.items() for r in df.itertuples()]
    rows += [{"folder": POOLED, "seed": -1, **p} for p in pooled or []]
    return pd.DataFrame([r | {"code_digest": digest or ""} for r in rows], columns=ROW_COLUMNS)


def seed_agreement(task: str, verdict: str, seed: int, replicates: pd.DataFrame | None) -> tuple[float, str]:
    """(share of the runs, this one and every replicate of `task`, whose verdict is `verdict`; their seeds)
    — (NaN, "") without replicates. A replicate at this folder's own seed is this run: not counted twice."""
    if replicates is None or replicates.empty:
        return math.nan, ""
    own = replicates["folder"].astype(str) != POOLED if "folder" in replicates else True
    mine = replicates[(replicates["task"].astype(str) == task) & (replicates["seed"] != seed) & own]
    if mine.empty:
        return math.nan, ""
    same = 1 + int((mine["verdict"].astype(str) == verdict).sum())
    seeds = sorted({seed, *(int(s) for s in mine["seed"])})
    return same / (1 + len(mine)), ",".join(map(str, seeds))


def pooled_of(task: str, replicates: pd.DataFrame | None) -> dict[str, Any]:
    """The task's pooled columns from replicates.csv ({} without a pooled row)."""
    if replicates is None or replicates.empty or "ci_low" not in replicates:
        return {}
    row = replicates[(replicates["task"].astype(str) == task) & (replicates["folder"].astype(str) == POOLED)]
    if row.empty:
        return {}
    r = row.iloc[-1]
    return {"pooled_verdict": str(r["verdict"]), "pooled_diff": r["success_diff"], "pooled_ci_low": r["ci_low"],
            "pooled_ci_high": r["ci_high"], "pooled_instances": r["instances"]}


def seed_columns(df: pd.DataFrame, replicates: pd.DataFrame | None, seed: int) -> pd.DataFrame:
    """The criterion table with each verdict's agreement over seeds and its pooled verdict (from the folder's
    replicates.csv, when it has one)."""
    df = df.copy()
    for i, r in df.iterrows():
        share, seeds = seed_agreement(str(r["task"]), str(r["verdict"]), seed, replicates)
        df.at[i, "seed_agreement"], df.at[i, "seeds"] = share, seeds
        for k, v in pooled_of(str(r["task"]), replicates).items():
            df.at[i, k] = v
    return df


def read_replicates(out_dir: str | Path, digest: str | None = None) -> pd.DataFrame | None:
    """The folder's replicates.csv, or None when it has none; rows of another code version than `digest`
    (the folder's own, after a rerun with newer code) are stale and left out."""
    path = Path(out_dir) / REPLICATES
    if not path.exists():
        return None
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"task": str, "verdict": str,
                                                                        "code_digest": str, "folder": str})
    if "code_digest" in df:
        df = df[df["code_digest"].fillna("") == (digest or "")]
    return df
