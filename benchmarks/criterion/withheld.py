"""No confident verdict on meaningless data: a task file run on the simulator, or a task whose trials were refused
or failed in its own or its designs' code, gets no verdict.

**Refused trials** (issue 41): a trial refused or failed in the task's or the design's own code (`CodeError`,
`DesignError`, `ScorerError`, `AgentLike`) is left out of every figure where runs are read
(`criterion.read.counted`), and the task is withheld with a reason naming the designs and kinds
(`criterion.read.refused_trials`), whatever model ran it: sim, a replay or a real one. Counting such trials as the
design losing let a cassette of refused chain trials name the agent the winner.

The decision (issue 36; docs/own-task.md says it to users): a user's own task file has no simulated
ground truth. The simulator's policy for it (`benchmarks.tasks.dataset.policy`) walks each design
*mechanically* — it classifies by shared words, calls the tool that best matches the request, restates
results — and never reads the dataset's `target`. So its success figures are the simulator's doing: a
generic chain fails when the policy's guessed argument names no record, not because a chain is the
wrong graph for the task. A `workflow` or `agent` verdict read off them would be confident and
meaningless. We withhold it rather than give the policy the targets: a `target`-driven policy would
measure how well the simulator's guesses fit the user's tools, which nobody can check, while a real
model or a recorded cassette (an oracle's, `examples/oracle.py`) measures the task itself.

So on such a row `verdict` is `withheld` (neither a verdict nor `inconclusive`, which would invite
`wva plan` to size a run that can never decide anything), `reason` and `note` say why, and `agrees`
is empty; every figure stays in the row, because the mechanics (steps, tokens, cost, how often a
design fails as designed) are still measured. The same task on a real model, or replayed from a
cassette, is judged as any other.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchmarks.criterion.read import RUNS, read_manifest, read_table, refused_trials, sim_dataset_tasks

WITHHELD = "withheld"
REASON = ("no verdict: a task file run on the simulator, which has no ground truth for a user's dataset and only "
          "walks the designs mechanically, so these success figures measure the mechanics, not which graph the "
          "task needs; run a real model (--model anthropic:<model-id>, openai:<model-id>) or replay a recorded "
          "cassette (--model replay:<path>; examples/oracle.py records one offline) for a verdict")


def withheld_tasks(out_dir: str | Path) -> list[str]:
    """The folder's tasks whose verdict is withheld (`withheld_reasons`)."""
    return list(withheld_reasons(out_dir))


def withheld_reasons(out_dir: str | Path) -> dict[str, str]:
    """Per withheld task, why: its trials refused in code (`read.refused_trials`), or a task file run on sim."""
    out = Path(out_dir)
    if not (out / RUNS).exists():
        return {}
    runs = read_table(out / RUNS, usecols=["model", "task"], dtype=str)
    reasons = dict.fromkeys(sim_dataset_tasks(runs, read_manifest(out)), REASON)
    return reasons | refused_trials(out)


CLEARED = ("agrees", "stability", "seed_agreement", "stable", "claim_p", "familywise_p", "verdict_familywise",
           "other_verdict", "other_diff", "other_ci_low", "other_ci_high")  # readings of a verdict there is not


def withhold(df: pd.DataFrame, tasks: dict[str, str] | list[str]) -> pd.DataFrame:
    """`df` with every row of `tasks` given no verdict (module docstring) and the reason (a list: `REASON`), and
    none of the readings of a verdict (stability, the familywise one); other rows unchanged. A task of `tasks` with
    no row (every one of its trials was refused, so none was counted) gets one: its name, `withheld` and the reason,
    every figure blank, so the task never disappears from criterion.csv."""
    reasons = tasks if isinstance(tasks, dict) else dict.fromkeys(tasks, REASON)
    df = with_rows_for(df, [t for t in reasons if t not in set(df["task"].astype(str))], reasons)
    compared = df["comparator"].fillna("").astype(str) != "" if "comparator" in df else True
    refusals = df["task"].astype(str).map(reasons).fillna(REASON) != REASON
    rows = df["task"].astype(str).isin(reasons) & df["verdict"].isin(("workflow", "agent", "either", "inconclusive")) \
        & (compared | refusals)  # a row with nothing compared keeps its own reason, unless trials were refused
    if not rows.any():
        return df
    out = df.copy()
    text = df.loc[rows, "task"].astype(str).map(reasons)
    for column, value in (("verdict", WITHHELD), ("reason", text), ("note", text)):
        out[column] = out[column].astype(object)  # a column read as numbers (all blank) takes text without a warning
        out.loc[rows, column] = value
    for column in (c for c in CLEARED if c in out):
        out[column] = out[column].astype(object)
        out.loc[rows, column] = pd.NA
    return out


def with_rows_for(df: pd.DataFrame, missing: list[str], reasons: dict[str, str]) -> pd.DataFrame:
    """`df` and a row per task of `missing`: withheld with its reason, nothing measured (no trial counted)."""
    if not missing:
        return df
    blank = {c: "" for c in ("comparator", "chapter_prediction") if c in df} | \
        {c: 0 for c in ("agent_runs", "workflow_runs") if c in df}  # no trial counted
    rows = pd.DataFrame([{**blank, "task": t, "verdict": WITHHELD, "reason": reasons[t], "note": reasons[t]}
                         for t in missing], columns=df.columns).astype(object)
    return pd.concat([df.astype(object), rows], ignore_index=True) if len(df) else rows
