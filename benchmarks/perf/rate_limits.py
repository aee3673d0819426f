"""A sweep at an account's input-token limit: how much of the limit it uses, and how many calls get a 429.

    python -m benchmarks.perf.rate_limits [--itpm 30000] [--instances 6] [--max-in-flight 16]

It serves the simulator as a rate-limited account (`SimServer(rate_limit_itpm=...)`) on 127.0.0.1, runs
`wva bench`'s sweep through the real `anthropic` SDK against it (`anthropic:claude-sonnet-4-5`, the
adaptive bound of `benchmarks/harness/adaptive.py`, at most `--max-in-flight` calls), and prints:

- achieved input tokens per minute as a share of the limit. The account's bucket starts full, as a real
  one does, so the first `itpm` tokens go at once: the share counts the tokens past that first bucket over
  the wall time, `(prompt tokens - itpm) / (minutes * itpm)`;
- the share of calls answered 429 (the server's count over every request it received);
- the wall time against the ideal, `(prompt tokens - itpm) / itpm` minutes.

The last line reads `achieved <share> of the limit, <share> 429s`. The goal (issue 35): at least 0.85 of
the limit and at most 2% 429s. Prompt tokens are what an input-token limit counts: input plus cache reads
and writes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import read_runs
from benchmarks.tasks.registry import load_task
from patterns.sim.server import SimServer

TASKS = ("pipeline", "support")


def measure(itpm: float, instances: int, max_in_flight: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, SimServer(policies=[load_task(t).policy() for t in TASKS],
                                                        rate_limit_itpm=itpm) as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-perf-dummy")
        config = BenchConfig(model="anthropic:claude-sonnet-4-5", tasks=TASKS, instances=instances, trials=1,
                             concurrency=max(16, max_in_flight), max_in_flight=max_in_flight, out=Path(tmp) / "out")
        began = time.perf_counter()
        asyncio.run(run_bench(config))
        wall_min = (time.perf_counter() - began) / 60
        runs = read_runs(config.out, ["input_tokens", "cache_read_tokens", "cache_write_tokens", "steps"])
        prompt = float(runs[["input_tokens", "cache_read_tokens", "cache_write_tokens"]].sum().sum())
        requests = server.model.calls + server.account.limited
    past_bucket = max(prompt - itpm, 0.0)
    return {"achieved": past_bucket / (wall_min * itpm), "rate_limited": server.account.limited / max(requests, 1),
            "wall_min": wall_min, "ideal_min": past_bucket / itpm, "prompt_tokens": prompt}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--itpm", type=float, default=30_000)
    parser.add_argument("--instances", type=int, default=6)
    parser.add_argument("--max-in-flight", type=int, default=16)
    args = parser.parse_args()
    m = measure(args.itpm, args.instances, args.max_in_flight)
    print(f"prompt tokens: {m['prompt_tokens']:,.0f} at a limit of {args.itpm:,.0f} input tokens per minute")
    print(f"wall time: {m['wall_min']:.2f} min, ideal {m['ideal_min']:.2f} min (past the first full bucket)")
    print(f"achieved {m['achieved']:.2f} of the limit, {m['rate_limited']:.1%} 429s")


if __name__ == "__main__":
    main()
