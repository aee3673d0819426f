"""Do the verdicts and drawability hold still? Two measurements, printed, never asserted.

    python -m benchmarks.studies.stability verdicts [--instances 20,60] [--seeds 0,1,2,3]
    python -m benchmarks.studies.stability drawability [--sizes 20,200] [--seeds 1,2,3] [--tasks LIST]

`verdicts` runs the default `wva bench` (every pattern on the five families, default model) once per
seed and instance count, each in a scratch folder, and prints each family's verdict per seed: a default
run is large enough when no family is called `agent` on one seed and `workflow` on another. The default
instance count of `wva bench` was chosen with it.

`drawability` runs the agent alone (`--patterns agent`: drawability reads only its walks) on the five
families at each size and seed, and prints each family's drawability per run, its mean over the seeds per
size, and the gap between the smallest and the largest size's means: drawability is defined at a fixed
number of drawing instances, so it should read the same at 20 instances as at 200, with a wider interval.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from benchmarks.criterion.drawability import drawability as measure
from benchmarks.criterion.drawability import walks_by_instance
from benchmarks.criterion.read import load_inputs
from benchmarks.criterion.table import criterion_table
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.names import DEFAULT_TASKS


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


def drawability(sizes: list[int], seeds: list[int], tasks: tuple[str, ...] = DEFAULT_TASKS) -> str:
    means: dict[str, dict[int, float]] = {}
    lines = [f"drawability (d = 10) of the agent's walks, {', '.join(tasks)}:"]
    for n in sizes:
        values: dict[str, list[float]] = {}
        for seed in seeds:
            with tempfile.TemporaryDirectory(prefix="wva-stability-") as tmp:
                _bench(Path(tmp), instances=n, seed=seed, tasks=tasks, patterns=("agent",))
                runs, events, _ = load_inputs(tmp)
                for task in dict.fromkeys(runs["task"]):
                    est = measure(walks_by_instance(runs, events, task=task), seed=seed)
                    values.setdefault(task, []).append(est.value)
                    lines.append(f"  {task:<10} {n:>4} instances, seed {seed}: {est.value:.3f} "
                                 f"[{est.low:.3f}, {est.high:.3f}]")
        for task, got in values.items():
            means.setdefault(task, {})[n] = sum(got) / len(got)
    small, large = min(sizes), max(sizes)
    lines += ["", f"task        {'  '.join(f'mean at {n:>4}' for n in sizes)}  |{small} − {large}|"]
    lines += [f"  {task:<10}{''.join(f'{m[n]:>14.3f}' for n in sizes)}  {abs(m[small] - m[large]):.3f}"
              for task, m in means.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.studies.stability", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("verdicts", "drawability"))
    p.add_argument("--instances", default="20,60", help="instance counts for `verdicts` (default 20,60)")
    p.add_argument("--sizes", default="20,200", help="instance counts for `drawability` (default 20,200)")
    p.add_argument("--seeds", default=None, help="seeds (default 0,1,2,3 for verdicts, 1,2,3 for drawability)")
    p.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="tasks for `drawability` (default: all five)")
    args = p.parse_args(argv)
    ints = lambda text: [int(x) for x in text.split(",") if x.strip()]  # noqa: E731
    if args.what == "verdicts":
        print(verdicts(ints(args.instances), ints(args.seeds or "0,1,2,3")))
    else:
        tasks = tuple(t.strip() for t in args.tasks.split(";" if ";" in args.tasks else ",") if t.strip())
        print(drawability(ints(args.sizes), ints(args.seeds or "1,2,3"), tasks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
