"""Real-time concurrency: C runs in flight on `sim:realtime=true` against the ideal C / latency.

    python -m benchmarks.perf.realtime [--ttft 0.5] [--waves 4] [--bench]

SimModel in real-time mode really sleeps each call's modelled latency (here about `--ttft` seconds:
prefill and decode are set very fast). C runs are kept in flight until `waves × C` have finished;
a run is `arun_agent` with one tool (two model calls and one tool call, the first call asking for
the tool), so the loop, the recorder and the model all take their share of the CPU. The ideal
throughput is C / L, L a run's modelled latency (the sum of its calls' latencies, from their
token counts); the efficiency is the measured throughput over that.

`--bench` measures the same through `run_bench` (the harness: a trial's temporary folder, task
environment, grading and journal line), trials of the `single` pattern on the example family,
`--concurrency C`, one process; there L is the least delayed trial's measured latency.

What limits it: the replies of C calls that end together are processed one after the other on one
core (about 0.3 ms of CPU per simulated call, loop included), so a wave of C = 256 calls costs
about 0.1 s of CPU after each modelled latency; with a latency of 0.2 s that alone takes the
efficiency below 80 %, with 0.5 s it stays near 90 %.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from patterns import Limits, SimModel, ToolSet, arun_agent, tool
from patterns.events import Kind
from patterns.sim.generic import GenericPolicy

CS = (1, 16, 64, 256)


@tool(timeout_s=None)
def lookup(word: str) -> str:
    """Look a word up.

    Args:
        word: the word
    """
    return word.upper()


def model(ttft: float) -> SimModel:
    return SimModel(GenericPolicy(), realtime=True, ttft_s=ttft, prefill_tps=1e9, decode_tps=1e9)


async def agents(c: int, waves: int, ttft: float) -> tuple[int, float, float]:
    """(runs, wall seconds, mean modelled latency of a run) with `c` runs in flight."""
    sim, tools, bound = model(ttft), ToolSet([lookup]), asyncio.Semaphore(c)
    latencies: list[float] = []

    async def one(i: int) -> None:
        async with bound:
            result = await arun_agent(sim, f"look up word{i}", tools=tools, limits=Limits(max_steps=5))
            assert result.terminal == "completed", result.detail
            latencies.append(sum(sim.latency.seconds(e.usage.input_tokens, e.usage.output_tokens)
                                 for e in result.events if e.kind is Kind.MODEL_CALL and e.usage))

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(c * waves)))
    return c * waves, time.perf_counter() - t0, sum(latencies) / len(latencies)


async def bench(c: int, waves: int, ttft: float) -> tuple[int, float, float]:
    from benchmarks.harness.bench import BenchConfig, run_bench

    trials = c * waves
    example = Path(__file__).resolve().parents[2] / "examples" / "minimal_family.py"  # by path: any working dir
    spec = f"sim:realtime=true,ttft_s={ttft},prefill_tps=1e9,decode_tps=1e9"
    with tempfile.TemporaryDirectory(prefix="wva-rt-") as tmp:
        config = BenchConfig(patterns=("single",), tasks=(f"{example}:Capitals",), instances=trials,
                             trials=1, model=spec, concurrency=c, out=Path(tmp))
        t0 = time.perf_counter()
        outcome = await run_bench(config)
        wall = time.perf_counter() - t0
    latency = float(outcome.runs["latency_s"].min())  # the least delayed trial's critical path: about L
    return trials, wall, latency


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ttft", type=float, default=0.5, help="modelled seconds per call (default 0.5)")
    parser.add_argument("--waves", type=int, default=4, help="runs per slot: waves × C runs in all (default 4)")
    parser.add_argument("--bench", action="store_true", help="through run_bench (the harness) instead")
    args = parser.parse_args(argv)
    what = "run_bench trials (single pattern, example family)" if args.bench else "arun_agent runs (2 calls)"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"{what}, ttft {args.ttft} s, {args.waves} waves")
    print("| C in flight | runs | latency of a run (s) | wall (s) | runs/s | ideal C / latency | efficiency |")
    print("|---|---|---|---|---|---|---|")
    worst = 1.0
    for c in CS:
        runs, wall, latency = asyncio.run((bench if args.bench else agents)(c, args.waves, args.ttft))
        rate, ideal = runs / wall, c / latency
        worst = min(worst, rate / ideal)
        print(f"| {c} | {runs} | {latency:.3f} | {wall:.2f} | {rate:,.1f} | {ideal:,.1f} | {rate / ideal:.0%} |",
              flush=True)
    verdict = "ok" if worst >= 0.8 else "MISSED"
    print(f"\nlowest efficiency {worst:.0%} (target >= 80% for every C up to 256: {verdict})")


if __name__ == "__main__":
    main()
