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
the limit and at most 2% 429s. Both are counted by the account itself (`patterns.sim.ratelimit.Account`):
the prompt tokens it let through (input plus cache writes, what an input-token limit counts: no cache reads; the
pre-flight call's and any failed trial's included, which the sweep's `runs.csv` would miss), and the
requests it answered and refused. The wall time is that of the sweep, `run_bench` from start to end. The
first line also says how many trials ended in an error: a sweep whose trials give up on their retries does
less work than the others, so its share of the limit flatters it.

`--ttft-s` sets the simulator's time to first token and makes it wait the modelled latency for real
(`realtime`), so that a call takes time and a fixed bound of calls in flight can fall short of a high
limit: at `--ttft-s 0` (the default) a call is answered at once and the limit alone sets the pace.
`--fixed` runs the old fixed bound instead (`--max-in-flight` calls, no pacing), for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import local
from benchmarks.harness.adaptive import AdaptiveBound
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import read_runs
from benchmarks.tasks.registry import load_task
from patterns.sim.server import SimServer

TASKS = ("pipeline", "support")


def measure(itpm: float, instances: int, max_in_flight: int, ttft_s: float = 0.0) -> dict[str, float]:
    knobs = {"ttft_s": ttft_s, "realtime": True} if ttft_s > 0 else {}
    with tempfile.TemporaryDirectory() as tmp, SimServer(policies=[load_task(t).policy() for t in TASKS],
                                                        rate_limit_itpm=itpm, **knobs) as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-perf-dummy")
        config = BenchConfig(model="anthropic:claude-sonnet-4-5", tasks=TASKS, instances=instances, trials=1,
                             concurrency=max(16, max_in_flight), max_in_flight=max_in_flight, out=Path(tmp) / "out")
        began = time.perf_counter()
        asyncio.run(run_bench(config))
        wall_min = (time.perf_counter() - began) / 60
        runs = read_runs(config.out, ["terminal"])
        account = server.account
        prompt, requests = account.input_taken, account.admitted + account.limited
    past_bucket = max(prompt - itpm, 0.0)
    return {"achieved": past_bucket / (wall_min * itpm), "rate_limited": account.limited / max(requests, 1),
            "wall_min": wall_min, "ideal_min": past_bucket / itpm, "prompt_tokens": prompt,
            "requests": requests, "limited": account.limited, "trials": len(runs),
            "failed": int((runs["terminal"] == "error").sum())}


class FixedBound(AdaptiveBound):
    """The bound before issue 35: `ceiling` calls in flight whatever the account says (no pacing, no cut)."""

    def __init__(self, ceiling: int, start: int = 2) -> None:
        super().__init__(ceiling, start=ceiling)

    def _observe(self, ticket: int, headers: Any) -> None:
        pass

    async def release(self, ticket: int, failure: BaseException | None = None, headers: Any = None,
                      message: Any = None) -> None:
        await super().release(ticket, failure, None, message)
        self.limit, self.paused_until = float(self.ceiling), 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--itpm", type=float, default=30_000)
    parser.add_argument("--instances", type=int, default=6)
    parser.add_argument("--max-in-flight", type=int, default=16)
    parser.add_argument("--ttft-s", type=float, default=0.0)
    parser.add_argument("--fixed", action="store_true")
    args = parser.parse_args()
    if args.fixed:
        local.AdaptiveBound = FixedBound  # type: ignore[misc, assignment]
    m = measure(args.itpm, args.instances, args.max_in_flight, args.ttft_s)
    print(f"prompt tokens: {m['prompt_tokens']:,.0f} at a limit of {args.itpm:,.0f} input tokens per minute; "
          f"{m['requests']:,} requests, {m['limited']:,} answered 429; {m['failed']} of {m['trials']} trials ended "
          "in an error")
    print(f"wall time: {m['wall_min']:.2f} min, ideal {m['ideal_min']:.2f} min (past the first full bucket); "
          f"{m['prompt_tokens'] / m['wall_min']:,.0f} tokens per minute over the whole sweep")
    print(f"achieved {m['achieved']:.2f} of the limit, {m['rate_limited']:.1%} 429s")


if __name__ == "__main__":
    main()
