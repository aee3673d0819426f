"""Throughput of `wva bench` on the simulated model (virtual time), and SimModel on long conversations.

    python -m benchmarks.perf.sweep [--scale 10] [--workers 1,2] [--skip-large]

Part 1 runs `wva bench` end to end (a fresh `python -m benchmarks bench ... --quiet` process, so
imports, planning, the sweep, the tidy files and the criterion are all counted) on the default
suite (5 tasks × 7 patterns × 20 instances × 3 trials) and on one `--scale` times larger (instances
× scale), once per worker count. It prints trials and model calls (model calls that returned a
message: the sum of `steps`, plus the retried ones) per second, end to end and for the sweep alone
(`sweep_seconds` in manifest.json), and how the time grew with the number of trials.

Part 2 runs `arun_agent` on SimModel for N = 10, 100, 1000 turns (a policy that calls the tool every
turn, then answers) and prints µs per turn, and the TokenCounter's serialisations (each message must
be counted once, so a long conversation is not quadratic in token counting).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from patterns import Limits, SimModel, ToolSet, arun_agent, tool
from patterns.sim.policy import Decider, Reply, Request

ROOT = Path(__file__).resolve().parents[2]


def bench(out: Path, instances: int, workers: str) -> dict[str, Any]:
    args = [sys.executable, "-m", "benchmarks", "bench", "--out", str(out), "--quiet", "--instances", str(instances)]
    if workers != "auto":
        args += ["--workers", workers]
    t0 = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"wva bench failed:\n{done.stderr}")
    runs = pd.read_csv(out / "runs.csv")
    manifest = json.loads((out / "manifest.json").read_text())
    calls = int(runs["steps"].sum() + runs["retries"].sum())
    return {"trials": len(runs), "calls": calls, "wall": wall, "sweep": float(manifest["sweep_seconds"]),
            "workers": manifest.get("workers", 1)}


class Looping:
    """Calls the first tool on every turn until `turns` calls were made, then answers."""

    def __init__(self, turns: int) -> None:
        self.turns = turns

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        made = sum(1 for m in request.messages if m.get("role") == "assistant")
        if made + 1 >= self.turns:
            return Reply([{"type": "text", "text": "done"}])
        return Reply([{"type": "tool_use", "name": "add", "input": {"a": made, "b": 1}}])


@tool(timeout_s=None)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


async def long_conversation(turns: int) -> tuple[float, int, int]:
    """(µs per turn, messages in the conversation, TokenCounter serialisations) for one run."""
    model = SimModel(Looping(turns))
    t0 = time.perf_counter()
    result = await arun_agent(model, "count", tools=ToolSet([add]), limits=Limits(max_steps=turns + 1))
    elapsed = time.perf_counter() - t0
    assert result.steps == turns, (result.terminal, result.detail)
    return elapsed / turns * 1e6, len(result.messages), model.tokens.misses


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=10, help="the larger suite's instances multiplier (default 10)")
    parser.add_argument("--workers", default="1,auto", help="worker counts to run, comma-separated (default 1,auto)")
    parser.add_argument("--skip-large", action="store_true", help="only the default suite")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("| suite | workers | trials | model calls | end to end s | sweep s | trials/s | model calls/s | "
          "µs per trial (sweep) |")
    print("|---|---|---|---|---|---|---|---|---|")
    suites = [("default", 20)] + ([] if args.skip_large else [(f"× {args.scale}", 20 * args.scale)])
    measured: dict[tuple[str, str], dict[str, Any]] = {}
    for name, instances in suites:
        for workers in args.workers.split(","):
            with tempfile.TemporaryDirectory(prefix="wva-perf-") as tmp:
                m = bench(Path(tmp), instances, workers.strip())
            measured[name, workers] = m
            print(f"| {name} | {m['workers']} ({workers}) | {m['trials']:,} | {m['calls']:,} | {m['wall']:.1f} | "
                  f"{m['sweep']:.1f} | {m['trials'] / m['wall']:,.0f} | {m['calls'] / m['wall']:,.0f} | "
                  f"{m['sweep'] / m['trials'] * 1e6:,.0f} |", flush=True)
    if len(suites) == 2:
        print()
        for workers in args.workers.split(","):
            small, large = measured[suites[0][0], workers], measured[suites[1][0], workers]
            growth = (large["sweep"] / small["sweep"]) / (large["trials"] / small["trials"])
            print(f"workers {workers}: sweep time per trial, larger / default suite = {growth:.2f} "
                  f"(1.00 is linear); end to end {large['wall'] / small['wall']:.1f}x the time for "
                  f"{large['trials'] / small['trials']:.0f}x the trials")
    print()
    print("| SimModel agent run, N turns | µs per turn | messages | TokenCounter serialisations |")
    print("|---|---|---|---|")
    for turns in (10, 100, 1000):
        us, messages, misses = asyncio.run(long_conversation(turns))
        print(f"| {turns} | {us:,.0f} | {messages} | {misses} |")


if __name__ == "__main__":
    main()
