"""Charts 4 and 7: the prompt each model call carries along a run, and pass^k over repeated trials."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.ticker import MaxNLocator

from benchmarks.harness.stats import clustered_rate, pass_hat_k, pass_k_per_instance
from benchmarks.report.charts.style import colour, finish, marker, ordered, panels, pattern_legend, short_task

CONTEXT, PASS_K = "context_growth.png", "pass_k.png"
MIN_SHARE = 0.05  # a call position reached by fewer of a pattern's runs than this is noise, not a trend


def model_calls(events: list[dict[str, Any]], runs: pd.DataFrame) -> pd.DataFrame:
    """One row per model call: task, pattern, position, prompt tokens (input + cache write + cache read)."""
    rows = [{"run_id": str(e["run_id"]), "position": int(e["position"]),
             "prompt_tokens": int(e.get("gen_ai.usage.input_tokens") or 0)
             + int(e.get("gen_ai.usage.cache_creation.input_tokens") or 0)
             + int(e.get("gen_ai.usage.cache_read.input_tokens") or 0)}
            for e in events if e.get("kind") == "model_call" and e.get("position") is not None]
    calls = pd.DataFrame(rows, columns=["run_id", "position", "prompt_tokens"])
    keys = runs[["run_id", "task", "pattern"]].astype(str)
    return calls.merge(keys, on="run_id", how="inner")


def context_chart(events: list[dict[str, Any]], runs: pd.DataFrame, out: Path) -> Path:
    calls = model_calls(events, runs)
    tasks = list(dict.fromkeys(runs["task"]))
    fig, axes = panels(len(tasks))
    for ax, task in zip(axes, tasks, strict=True):
        g = calls[calls["task"] == task]
        for p in ordered(g["pattern"]):
            h = g[g["pattern"] == p]
            n_runs = h["run_id"].nunique()
            by = h.groupby("position")["prompt_tokens"].agg(["mean", "count"])
            by = by[by["count"] >= max(1, MIN_SHARE * n_runs)]
            ax.plot(by.index + 1, by["mean"], color=colour(p), marker=marker(p), markersize=5 if p != "agent" else 8,
                    linewidth=2.2 if p == "agent" else 1.2, alpha=0.9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("model call number within the run")
        ax.set_ylabel("prompt tokens per call (input + cache)")
        ax.set_ylim(bottom=0)
        ax.set_title(short_task(task), fontsize=10)
        ax.grid(True, alpha=0.3)
    pattern_legend(fig, runs["pattern"], lines=True)
    return finish(fig, "Prompt size per model call along a run — the agent re-sends its growing history; "
                  "workflow steps start fresh", out / CONTEXT)


def pass_k_chart(runs: pd.DataFrame, out: Path) -> Path:
    tasks = list(dict.fromkeys(runs["task"]))
    fig, axes = panels(len(tasks))
    k_max = 1
    for ax, task in zip(axes, tasks, strict=True):
        g = runs[runs["task"] == task]
        pats = ordered(g["pattern"])
        for j, p in enumerate(pats):
            per = [(len(h), int(h["success"].sum())) for _, h in g[g["pattern"] == p].groupby("instance")]
            top = min(n for n, _ in per)
            k_max = max(k_max, top)
            ks = list(range(1, top + 1))
            dodge = 0.05 * (j - (len(pats) - 1) / 2)  # equal curves would hide each other: shift them apart
            # each point with its 95% interval, clustered by instance as summary.csv's pass_k_ci_* (the unit: an
            # instance's unbiased pass^k)
            cis = [clustered_rate(pass_k_per_instance(per, k), len(per)) for k in ks]
            ys = [pass_hat_k(per, k) for k in ks]
            ax.errorbar([k + dodge for k in ks], ys, yerr=[[max(y - c[1], 0) for y, c in zip(ys, cis, strict=True)],
                                                          [max(c[2] - y, 0) for y, c in zip(ys, cis, strict=True)]],
                        color=colour(p), marker=marker(p), linewidth=2.2 if p == "agent" else 1.2,
                        markersize=8 if p == "agent" else 6, capsize=2, elinewidth=0.8)
        ax.set_xlabel("k (trials of the same instance)")
        ax.set_ylabel("pass^k: all k trials succeed")
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(short_task(task), fontsize=10)
        ax.grid(True, alpha=0.3)
    for ax in axes:
        ax.set_xticks(range(1, k_max + 1))
        if k_max == 1:  # one trial per instance (the default run): pass^k for k > 1 was not measured, not zero
            ax.text(0.5, 0.5, "one trial per instance:\npass^k for k > 1 not measured\n(wva bench --trials 3)",
                    transform=ax.transAxes, ha="center", va="center", fontsize=8, color="0.35")
    pattern_legend(fig, runs["pattern"], lines=True)
    missing = ("\nMISSING for k > 1: this run has one trial per instance; run 'wva bench --trials 3' for pass^k"
               if k_max == 1 else "")
    return finish(fig, "pass^k: the chance that k repeated trials of an instance all succeed (reliability, "
                  "not just average success)\nwith 95% intervals clustered by instance" + missing, out / PASS_K)
