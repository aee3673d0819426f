"""REPORT.md's sections on what the run cost in all and why trials ended in `error` (from runs.csv)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.harness.error_classes import AS_DESIGNED, INFRASTRUCTURE, MEANING, error_class
from benchmarks.harness.totals import run_totals, totals_line


def totals_section(out: Path, model: str | None, modelled: bool | None = None) -> list[str]:
    """The run's total modelled (or billed) cost and tokens, and its drawn phase's: what a real model would need.
    `modelled`: the costs are the simulator's (`origin.Origin.modelled`; default: a `sim` model's)."""
    main, drawn = run_totals(out), run_totals(out / "drawn")
    if main is None:
        return []
    lines = ["## What the run cost", "", f"- {totals_line('All trials', main, model)}."]
    if drawn is not None:
        lines.append(f"- {totals_line('The drawn phase (`drawn/`)', drawn, model)}.")
    simulated = str(model or "").split(":", 1)[0] == "sim" if modelled is None else modelled
    lines += ["", ("These are the costs the simulator models" if simulated else "These are the calls' costs") +
              " at the table's prices (`patterns/prices.json`, plus `--prices FILE`)" +
              (": the number to budget before pointing the same sweep at a real model." if simulated else "."), ""]
    return lines


def errors_section(runs: pd.DataFrame) -> list[str]:
    """Per pattern × task, the trials that ended in `error`, split into as designed and infrastructure."""
    if "terminal" not in runs or not (runs["terminal"].astype(str) == "error").any():
        return []
    columns = [c for c in ("terminal", "error_kinds") if c in runs]
    classes = pd.Series([error_class(r) for r in runs[columns].to_dict("records")], index=runs.index)
    failed = runs.assign(error_class=classes)[classes.notna()]
    table = failed.groupby(["task", "pattern", "error_class"]).size().unstack(fill_value=0)
    lines = ["## Errors", "", "A trial ends in `error` for one of two reasons (`terminals.png` shows them as "
             "\"error\"):", "", f"- **{AS_DESIGNED}** — {MEANING[AS_DESIGNED]};",
             f"- **{INFRASTRUCTURE}** — {MEANING[INFRASTRUCTURE]}.", "",
             f"| task | pattern | {AS_DESIGNED} | {INFRASTRUCTURE} | most often |", "|---|---|---|---|---|"]
    for (task, pattern), row in table.iterrows():
        kinds = failed[(failed["task"] == task) & (failed["pattern"] == pattern)]
        common = kinds["error_kinds"].fillna("").astype(str).str.split(";").str[-1].value_counts() \
            if "error_kinds" in kinds else pd.Series(dtype=int)
        top = f"`{common.index[0]}` ({int(common.iloc[0])})" if len(common) and common.index[0] else "—"
        lines.append(f"| {task} | {pattern} | {_n(row, AS_DESIGNED)} | {_n(row, INFRASTRUCTURE)} | {top} |")
    return [*lines, ""]


def _n(row: Any, key: str) -> int:
    return int(row.get(key, 0))


def batch_note(manifest: dict[str, Any]) -> str:
    """For a sweep run with `--message-batches`: its latencies are queue time, and its costs the batch price."""
    if not manifest.get("message_batches"):
        return ""
    return ("\n\n**Batched.** The model calls went through the Message Batches API (`--message-batches`): each "
            "call's latency is **queue time** (from the call to its batch's results, polls included), not the "
            "model's, and its cost is the batch price (half). Compare latencies only with another batched run, "
            "never with an interactive one; costs compare at that price.")
