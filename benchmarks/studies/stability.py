"""Do the verdicts and the predictability score hold still? Two measurements, printed, never asserted.

    python -m benchmarks.studies.stability verdicts [--instances 20,60] [--seeds 0,1,2,3]
    python -m benchmarks.studies.stability predictability [--sizes 20,200] [--seeds 1,2,3]

`verdicts` runs the default `wva bench` (every pattern on the five families, default model) once per
seed and instance count, each in a scratch folder, and prints each family's verdict per seed: a default
run is large enough when no family is called `agent` on one seed and `workflow` on another. The default
instance count of `wva bench` was chosen with it.

`predictability` runs `multihop` with `--patterns agent,chain,parallel` at each size and seed and prints
the score per run and its mean per size: a score that means the same at any sample size shows the same
mean at 20 instances as at 200.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from benchmarks.criterion.table import criterion_table
from benchmarks.harness.bench import BenchConfig, run_bench


def _bench(out: Path, **config: object) -> None:
    asyncio.run(run_bench(BenchConfig(out=out, workers=None, **config)))  # type: ignore[arg-type]


def verdicts(instances: list[int], seeds: list[int]) -> str:
    lines = []
    for n in instances:
        table: dict[str, list[str]] = {}
        start = time.perf_counter()
        for seed in seeds:
            with tempfile.TemporaryDirectory(prefix="wva-stability-") as tmp:
                _bench(Path(tmp), instances=n, seed=seed)
                for r in criterion_table(tmp).itertuples():
                    table.setdefault(r.task, []).append(f"{r.verdict} ({r.success_diff:+.2f})")
        lines.append(f"{n} instances, seeds {','.join(map(str, seeds))} "
                     f"({(time.perf_counter() - start) / len(seeds):.0f} s a run):")
        for task, row in table.items():
            kinds = {v.split()[0] for v in row}
            flag = "FLIPS agent/workflow" if {"agent", "workflow"} <= kinds else \
                ("same on every seed" if len(kinds) == 1 else "varies")
            lines.append(f"  {task:<10} {' | '.join(row)}  — {flag}")
    return "\n".join(lines)


def predictability(sizes: list[int], seeds: list[int]) -> str:
    lines = ["multihop, patterns agent,chain,parallel:"]
    for n in sizes:
        scores = []
        for seed in seeds:
            with tempfile.TemporaryDirectory(prefix="wva-stability-") as tmp:
                _bench(Path(tmp), instances=n, seed=seed, tasks=("multihop",), patterns=("agent", "chain", "parallel"))
                r = criterion_table(tmp).iloc[0]
                scores.append(r.predictability)
                lines.append(f"  {n:>4} instances, seed {seed}: {r.predictability:.3f} "
                             f"[{r.predictability_ci_low:.3f}, {r.predictability_ci_high:.3f}]")
        lines.append(f"  {n:>4} instances: mean {sum(scores) / len(scores):.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.studies.stability", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("verdicts", "predictability"))
    p.add_argument("--instances", default="20,60", help="instance counts for `verdicts` (default 20,60)")
    p.add_argument("--sizes", default="20,200", help="instance counts for `predictability` (default 20,200)")
    p.add_argument("--seeds", default=None, help="seeds (default 0,1,2,3 for verdicts, 1,2,3 for predictability)")
    args = p.parse_args(argv)
    ints = lambda text: [int(x) for x in text.split(",") if x.strip()]  # noqa: E731
    if args.what == "verdicts":
        print(verdicts(ints(args.instances), ints(args.seeds or "0,1,2,3")))
    else:
        print(predictability(ints(args.sizes), ints(args.seeds or "1,2,3")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
