"""How stable a verdict is: would it come out the same on other instances, and at other seeds?

**Over resamples of the instances** (`verdict_stability`, the `stability` column of criterion.csv). The
folder's instances are resampled with replacement (the instance is the unit, as in every interval here:
an instance's trials go together), `DRAWS` times, and the verdict is decided again on each resample by
the same rule, at the same levels, against the same comparator (declared or named: that one workflow;
selected: every workflow, the best chosen afresh in each resample). The stability is the share of
resamples whose verdict *name* is the committed one. It answers "if the same sweep had drawn other
instances like these, how often would it say the same?": a verdict decided by a hair reads about 50%, a
clear one near 100%. It is not a probability that the verdict is right (a resample's truth is the
sample, not the world). Two simplifications, as in `wva plan`: cost intervals by the delta method (a
bootstrap inside each resample would cost 4,000 times more), and the comparisons' correlation (for
max-T) the folder's own.

**Over seeds** (`seed_agreement`): `wva criterion DIR --replicates D1,D2,...` reads the same sweep run
at other seeds (same model, patterns, tasks, instances and trials) and writes `DIR/replicates.csv`, one
row per task and seed; the agreement is the share of all the runs (DIR's included) whose verdict is
DIR's. A fresh seed draws fresh instances *and* fresh model noise, so this is the stronger check; the
resampling needs no extra run.

A verdict is **stable** when its resampling stability is at least `STABLE` (90%) and, where replicates
are known, every seed agrees. Anything else is marked unstable in the table and the report.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.criterion import rule
from benchmarks.criterion.bounds import FIXED, Bounds, Levels, diff_bounds, no_cost, success_part
from benchmarks.criterion.comparison import tables
from benchmarks.criterion.deciding import mode_of
from benchmarks.criterion.intervals import boot_weights
from benchmarks.criterion.paired import correlation
from benchmarks.criterion.verdict import DEFAULTS, Options

DRAWS = 1000  # resamples: a stability of 90% carries a Monte Carlo error of about ±1 point
STABLE = 0.9
REPLICATES = "replicates.csv"
# what a replicate must share: the sweep, and the code that ran it (another version is another instrument)
SAME_SETTINGS = ("model", "patterns", "tasks", "instances", "trials", "code_digest")


def _cost_corr(cost: np.ndarray) -> np.ndarray:
    """The correlation of the comparisons' log cost ratios (their delta-method terms), from the data."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an unknown cost: NaN, never cheaper
        flow, agent = cost[..., 1:], cost[..., :1]
        lin = flow / np.nanmean(flow, axis=1, keepdims=True) - agent / np.nanmean(agent, axis=1, keepdims=True)
    return correlation(lin)


def resampled_bounds(g: pd.DataFrame, chosen: list[str], options: Options, levels: Levels, w: np.ndarray,
                     seed: int) -> tuple[Bounds, float]:
    """The rule's input on each resample `w` `(R, n)` of the task's instances, and the margin it reads."""
    t = tables(g, ["agent", *chosen])
    success, cost = t.arrays(["agent", *chosen])
    d = success[..., :1] - success[..., 1:]
    value = options.value_per_success
    if value is not None:
        nv = value * d - (cost[..., :1] - cost[..., 1:])
        part = success_part(nv, w, levels.value, levels.eq, seed, correlation(nv), unit=value)
        return Bounds(**part, **no_cost(part["diff"].shape)), options.margin * value
    b = diff_bounds(d, cost, levels, seed, w, "delta", (correlation(d), _cost_corr(cost)))
    if len(chosen) == 1:  # one comparison: nothing selected, every claim reads the one-at-a-time intervals
        b = replace(b, win_sim_lo=b.win_lo, win_sim_hi=b.win_hi, eq_sim_lo=b.eq_lo, eq_sim_hi=b.eq_hi,
                    cost_sim_lo=b.cost_lo, cost_sim_hi=b.cost_hi)
    return b, options.margin


def verdict_stability(g: pd.DataFrame, flows: list[str], declared: str | None, verdict: str,
                      options: Options = DEFAULTS, seed: int = 0, levels: Levels = FIXED,
                      draws: int = DRAWS) -> float:
    """The share of `draws` resamples of the instances whose verdict is `verdict` (module docstring)."""
    _, one = mode_of(flows, declared, options.comparator)
    chosen = [one] if one is not None else flows
    n = int(g["instance"].nunique())
    if n < 2:
        return math.nan
    w = boot_weights(n, seed + 7, draws)
    b, margin = resampled_bounds(g, chosen, options, levels, w, seed)
    codes, _ = rule.decide(b, margin, options.cost_margin)
    return float((rule.verdicts(codes) == verdict).mean())


def is_stable(stability: Any, agreement: Any = math.nan) -> bool | None:
    """Stable: resampling stability >= STABLE and every known seed agrees (None when neither is known)."""
    def known(x: Any) -> bool:
        return x is not None and not pd.isna(x)

    if not known(stability):
        return None
    return bool(stability >= STABLE and (not known(agreement) or agreement >= 1.0))


def check_replicate(folder: Path, manifest: dict[str, Any], own: dict[str, Any]) -> None:
    """A ValueError naming the setting unless `folder` is the same sweep as `own`'s at another seed."""
    for key in SAME_SETTINGS:
        if manifest.get(key) != own.get(key):
            raise ValueError(f"--replicates: {folder} was run with another {key} ({manifest.get(key)!r}, not "
                             f"{own.get(key)!r}); a replicate is the same sweep at another seed")


def replicates_frame(verdicts: dict[str, pd.DataFrame], seeds: dict[str, int],
                     digest: str | None = None) -> pd.DataFrame:
    """`replicates.csv`: per replicate folder and task, its seed, verdict and agent − comparator difference,
    and the code version (`code_digest`) they share with the folder."""
    rows = [{"folder": folder, "seed": seeds[folder], "task": r.task, "verdict": r.verdict,
             "comparator": r.comparator, "success_diff": r.success_diff, "code_digest": digest or ""}
            for folder, df in verdicts.items() for r in df.itertuples()]
    return pd.DataFrame(rows, columns=["folder", "seed", "task", "verdict", "comparator", "success_diff",
                                       "code_digest"])


def seed_agreement(task: str, verdict: str, seed: int, replicates: pd.DataFrame | None) -> tuple[float, str]:
    """(share of the runs, this one and every replicate of `task`, whose verdict is `verdict`; their seeds)
    — (NaN, "") without replicates. A replicate at this folder's own seed is this run: not counted twice."""
    if replicates is None or replicates.empty:
        return math.nan, ""
    mine = replicates[(replicates["task"].astype(str) == task) & (replicates["seed"] != seed)]
    if mine.empty:
        return math.nan, ""
    same = 1 + int((mine["verdict"].astype(str) == verdict).sum())
    seeds = sorted({seed, *(int(s) for s in mine["seed"])})
    return same / (1 + len(mine)), ",".join(map(str, seeds))


def read_replicates(out_dir: str | Path, digest: str | None = None) -> pd.DataFrame | None:
    """The folder's replicates.csv, or None when it has none; rows of another code version than `digest`
    (the folder's own, after a rerun with newer code) are stale and left out."""
    path = Path(out_dir) / REPLICATES
    if not path.exists():
        return None
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"task": str, "verdict": str,
                                                                        "code_digest": str})
    if "code_digest" in df:
        df = df[df["code_digest"].fillna("") == (digest or "")]
    return df
