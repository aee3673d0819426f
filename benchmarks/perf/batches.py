"""A sweep run interactively and through the Message Batches API, side by side, against the sim server.

    python -m benchmarks.perf.batches [--instances 4] [--concurrency 64] [--processing 0.5]

It serves the simulator on 127.0.0.1 (`SimServer(batch_processing_s=...)`: each batch ends that many seconds
after its creation), runs `wva bench`'s sweep (`pipeline` and `support`, one trial per instance) through the
real `anthropic` SDK twice, `anthropic:claude-sonnet-4-5` interactive and with `message_batches=True`, and
prints for each: the trials, the wall time, the median latency per trial (queue time when batched), the
recorded cost; and for the batched run the batches it made (one per round while the trials in flight fit in
one batch) and their sizes. The last line reads `batched: <n> batches for <m> requests, cost <ratio> of the
interactive run's, outcomes identical: <yes|no>` (the goal: 0.5, yes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import load_results
from benchmarks.tasks.registry import load_task
from patterns.sim.server import SimServer

TASKS = ("pipeline", "support")
OUTCOME = ["success", "score", "terminal", "steps", "input_tokens", "output_tokens"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--instances", type=int, default=4)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--processing", type=float, default=0.5, help="seconds a batch takes on the server")
    args = p.parse_args()
    runs, sizes = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for batched in (False, True):
            with SimServer(policies=[load_task(t).policy() for t in TASKS], batch_processing_s=args.processing) as s:
                os.environ["ANTHROPIC_BASE_URL"] = s.url
                os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-perf-dummy")
                config = BenchConfig(model="anthropic:claude-sonnet-4-5", tasks=TASKS, instances=args.instances,
                                     trials=1, concurrency=args.concurrency, message_batches=batched,
                                     out=Path(tmp) / str(batched))
                began = time.perf_counter()
                asyncio.run(run_bench(config))
                wall = time.perf_counter() - began
                sizes = list(s.batches.sizes) if batched else sizes
            frame = load_results(config.out)["runs"].set_index("run_id").sort_index()
            runs[batched] = frame
            name = "batched" if batched else "interactive"
            print(f"{name:>11}: {len(frame)} trials, wall {wall:.1f} s, median latency "
                  f"{frame['latency_s'].median():.2f} s, cost ${frame['cost_usd'].sum():.4f}")
    print(f"    batches: {len(sizes)}, requests each: {sizes}")
    same = runs[False][OUTCOME].astype(str).equals(runs[True][OUTCOME].astype(str))
    ratio = runs[True]["cost_usd"].sum() / runs[False]["cost_usd"].sum()
    print(f"batched: {len(sizes)} batches for {sum(sizes)} requests, cost {ratio:.2f} of the interactive run's, "
          f"outcomes identical: {'yes' if same else 'no'}")


if __name__ == "__main__":
    main()
