"""No confident verdict on meaningless data: a task file run on the simulator gets no verdict.

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

from benchmarks.criterion.read import RUNS, read_manifest, sim_dataset_tasks

WITHHELD = "withheld"
REASON = ("no verdict: a task file run on the simulator, which has no ground truth for a user's dataset and only "
          "walks the designs mechanically, so these success figures measure the mechanics, not which graph the "
          "task needs; run a real model (--model anthropic:<model-id>, openai:<model-id>) or replay a recorded "
          "cassette (--model replay:<path>; examples/oracle.py records one offline) for a verdict")


def withheld_tasks(out_dir: str | Path) -> list[str]:
    """The folder's tasks whose verdict is withheld: task files whose trials ran on the simulator."""
    out = Path(out_dir)
    if not (out / RUNS).exists():
        return []
    runs = pd.read_csv(out / RUNS, usecols=["model", "task"], dtype=str)
    return sim_dataset_tasks(runs, read_manifest(out))


def withhold(df: pd.DataFrame, tasks: list[str]) -> pd.DataFrame:
    """`df` with every row of `tasks` given no verdict (module docstring); other rows unchanged."""
    compared = df["comparator"].fillna("").astype(str) != "" if "comparator" in df else True
    rows = df["task"].astype(str).isin(tasks) & df["verdict"].isin(("workflow", "agent", "either", "inconclusive")) \
        & compared  # a row with nothing compared keeps its own reason (no agent runs, no workflow runs)
    if not rows.any():
        return df
    out = df.copy()
    out.loc[rows, ["verdict", "reason", "note"]] = [WITHHELD, REASON, REASON]
    out.loc[rows, "agrees"] = pd.NA
    return out
