"""REPORT.md's prompt-caching section: each pattern's cost per trial with and without prompt caching, side by side.

The uncached figure is the same trials' token counts priced with every prompt token (input, cache
writes, cache reads) at the input rate: `runs.csv`'s `uncached_cost_usd`. On SimModel a run with
`--prompt-cache off` makes the same decisions, so its `cost_usd` is exactly that figure.
"""

from __future__ import annotations

from typing import Any

import pandas as pd


def _usd(x: float) -> str:
    return "unknown" if pd.isna(x) else f"${x:.4f}"


def _ratio(a: float, b: float) -> str:
    return "—" if pd.isna(a) or pd.isna(b) or b == 0 else f"{a / b:.2f}×"


def cost_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per task × pattern: mean cost per trial cached and uncached, and the share of prompt tokens read/written."""
    rows = []
    for (task, pattern), g in runs.groupby(["task", "pattern"], sort=True):
        prompt = float((g["input_tokens"] + g["cache_read_tokens"] + g["cache_write_tokens"]).sum())
        cost, uncached = g["cost_usd"], g["uncached_cost_usd"]
        rows.append({"task": task, "pattern": pattern,
                     "cost": float(cost.mean()) if cost.notna().all() else float("nan"),
                     "uncached": float(uncached.mean()) if uncached.notna().all() else float("nan"),
                     "read_share": float(g["cache_read_tokens"].sum()) / prompt if prompt else 0.0,
                     "write_share": float(g["cache_write_tokens"].sum()) / prompt if prompt else 0.0})
    return pd.DataFrame(rows)


def cache_section(runs: pd.DataFrame, manifest: dict[str, Any]) -> str:
    lines = ["## Prompt caching", ""]
    if "uncached_cost_usd" not in runs or runs.empty:
        return "\n".join([*lines, "Not recorded: this `runs.csv` has no `uncached_cost_usd` column.", ""])
    setting = manifest.get("prompt_cache") or ("on" if (runs["cache_read_tokens"] + runs["cache_write_tokens"]).sum()
                                               else "unrecorded")
    lines += [f"Prompt cache: **{setting}** (`--prompt-cache on|off`; on by default). Cost per trial as run, next to "
              "the same trials' tokens priced with no caching (every prompt token billed at the input rate). A cache "
              "write costs 1.25× the input price and a read 0.1×; a prefix shorter than the model's minimum "
              "(1,024 tokens for Sonnet-class models) is never cached, so short prompts gain nothing. "
              "The last column is each pattern's cost over the agent's on the same task.", "",
              "| task | pattern | cost/trial | without caching | cached ÷ uncached | prompt read from cache "
              "| prompt written to cache | ÷ agent (cached / uncached) |",
              "|---|---|---|---|---|---|---|---|"]
    table = cost_table(runs)
    for task, t in table.groupby("task", sort=True):
        agent = t[t["pattern"] == "agent"]
        a_cost = agent["cost"].iloc[0] if len(agent) else float("nan")
        a_unc = agent["uncached"].iloc[0] if len(agent) else float("nan")
        for r in t.itertuples():
            lines.append(f"| {task} | {r.pattern} | {_usd(r.cost)} | {_usd(r.uncached)} | {_ratio(r.cost, r.uncached)} "
                         f"| {r.read_share:.0%} | {r.write_share:.0%} | {_ratio(r.cost, a_cost)} / "
                         f"{_ratio(r.uncached, a_unc)} |")
    return "\n".join([*lines, ""])
