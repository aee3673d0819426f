"""`summary.csv`: per pattern × task, what a reader compares — success with its interval, pass^k with
its interval, steps, tokens, cost, latency, errors and how runs ended.

Both intervals are 95% and clustered by instance: the trials of one instance are correlated, so the
unit is the instance (its mean over trials; `benchmarks.harness.stats.clustered_rate`). `ci_low`/`ci_high`
would be too narrow if every trial were counted as independent. `success_rate` is the estimate that
interval is built on, the mean of the instances' rates: with the same trials per instance it is
successes / n, with unequal trials it does not let the instances with most trials weigh most."""

from __future__ import annotations

import math

import pandas as pd

from benchmarks.harness import code_errors
from benchmarks.harness.stats import clustered_rate, pass_hat_k, pass_k_per_instance, percentile
from patterns.result import Terminal

TERMINALS = [str(t) for t in Terminal]


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (task, pattern), g in runs.groupby(["task", "pattern"], sort=True):
        n = len(g)
        wins = int(g["success"].sum())
        # (trials, successes) per instance, in the instances' sorted order (one vectorised pass, not a frame each)
        counts = g.groupby("instance")["success"].agg(["size", "sum"])
        per_instance = [(int(nt), int(c)) for nt, c in zip(counts["size"], counts["sum"], strict=True)]
        rate, low, high = clustered_rate([c / nt for nt, c in per_instance], n)
        k = min(nt for nt, _ in per_instance)
        _, pk_low, pk_high = clustered_rate(pass_k_per_instance(per_instance, k), len(per_instance))
        costs = g["cost_usd"]
        cost_known = bool(costs.notna().all())
        cost_mean = float(costs.mean()) if cost_known else math.nan
        row = {
            "task": task, "pattern": pattern, "n": n, "successes": wins, "success_rate": rate,
            "ci_low": low, "ci_high": high, "instances": len(per_instance), "k": k,
            "pass_k": pass_hat_k(per_instance, k), "pass_k_ci_low": pk_low, "pass_k_ci_high": pk_high,
            "steps_mean": g["steps"].mean(), "steps_p50": percentile(list(g["steps"]), 50),
            "steps_p95": percentile(list(g["steps"]), 95), "tool_calls_mean": g["tool_calls"].mean(),
            "input_tokens_mean": g["input_tokens"].mean(), "output_tokens_mean": g["output_tokens"].mean(),
            "total_tokens_mean": g["total_tokens"].mean(), "cost_mean": cost_mean,
            "cost_per_success": (float(costs.sum()) / wins if wins else math.inf) if cost_known else math.nan,
            "latency_p50": percentile(list(g["latency_s"]), 50), "latency_p95": percentile(list(g["latency_s"]), 95),
            "error_rate": float((g["terminal"] == "error").mean()), "retries_mean": g["retries"].mean(),
            # trials whose task code raised (ScorerError/CodeError, `code_errors.py`): a bug to fix, apart from
            # the model's failures in error_rate
            "code_errors": code_errors.count(g["error_kinds"]) if "error_kinds" in g else 0,
        }
        counts = g["terminal"].value_counts()
        row.update({f"terminal_{t}": int(counts.get(t, 0)) for t in TERMINALS})
        rows.append(row)
    return pd.DataFrame(rows)
