"""Where the chapter's threshold comes from, whether it holds on another grid, and how well drawability's
interval covers: printed, never asserted.

    python -m benchmarks.perf.drawability_gap [--seeds 0,1] [--test-seeds 1] [--folders 40] [--parts select,test,cover]
    python -m benchmarks.perf.drawability_gap --parts bench [--instances 60] [--out /tmp/drawability_table]

`select` measures drawability (d = 10, 60 instances × 3 trials, mean over `--seeds`, 0 and 1 by default) on every
setting of the known-truth table's processes in `tests/synthetic_walks.py` `SELECT` (walks of 1-8 calls, error rates
0, 0.1 and 0.2 with wrong-tool slips), and prints the lowest drawable value, the highest not-drawable one and the
middle of that gap, where `drawability.THRESHOLD` was set. `test` measures the other grid, `TEST` (walks of 2-4 and
10-12 calls, error rates 0.05 and 0.15, other seeds), and prints every setting the threshold misclassifies. `cover`
simulates `--folders` folders of 30 instances × 3 trials per process (trials correlated within instances) and prints
how often the 95% interval covered the true value (the expected score of a new instance under a graph drawn from 10
new ones, simulated on 400 blocks of fresh instances) and the interval's mean width. `bench` runs the table through
`wva bench` + `wva criterion` (the `walks` family at error rates 0, 0.05, 0.1 and 0.2, short and long walks) and
prints it as markdown.
Run from the repository's root (it reads the generators in tests/).
"""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.criterion.drawability import THRESHOLD, drawability


def measure(grid: Any, seeds: list[int]) -> list[tuple[str, bool, dict[str, Any], float]]:
    from tests.synthetic_walks import grid_sample

    return [(name, drawable, settings,
             sum(drawability(grid_sample(name, settings, seed=s), seed=0).value for s in seeds) / len(seeds))
            for name, drawable, settings in grid]


def gap(seeds: list[int]) -> list[str]:
    from tests.synthetic_walks import SELECT

    rows = measure(SELECT, seeds)
    lines = [f"  {n:<14} {'drawable' if d else 'not drawable':<12} {s}: {v:.3f}" for n, d, s, v in rows]
    low = min(v for _, d, _, v in rows if d)
    high = max(v for _, d, _, v in rows if not d)
    lines.append(f"lowest drawable {low:.3f}, highest not drawable {high:.3f}: the middle of the gap "
                 f"{(low + high) / 2:.3f} (THRESHOLD = {THRESHOLD})")
    return lines


def test(seeds: list[int]) -> list[str]:
    from tests.synthetic_walks import TEST

    rows = measure(TEST, seeds)
    wrong = [(n, s, v) for n, d, s, v in rows if (v >= THRESHOLD) != d]
    lines = [f"  {n:<14} {'drawable' if d else 'not drawable':<12} {s}: {v:.3f}" for n, d, s, v in rows]
    lines.append(f"{len(rows) - len(wrong)} of {len(rows)} settings classified as their truth at {THRESHOLD}; "
                 f"lowest drawable {min(v for _, d, _, v in rows if d):.3f}, highest not drawable "
                 f"{max(v for _, d, _, v in rows if not d):.3f}")
    lines += [f"  MISCLASSIFIED {n} {s}: {v:.3f}" for n, s, v in wrong]
    return lines


def coverage(folders: int, d: int = 10) -> list[str]:
    from tests.synthetic_walks import COVERED, grid_sample
    from tests.test_drawability_truth import true_drawability

    lines, total = [], 0
    for name, settings in COVERED:
        truth = true_drawability(name, tuple(sorted(settings.items())), d=d)
        ests = [drawability(grid_sample(name, settings, 30, seed=500 + r), d, seed=r) for r in range(folders)]
        hits = sum(est.low <= truth <= est.high for est in ests)
        total += hits
        width = sum(est.high - est.low for est in ests) / folders
        lines.append(f"  {name:<14} {settings}: true drawability {truth:.3f}; the interval covered it in "
                     f"{hits / folders:.1%} (mean width {width:.2f})")
    lines.append(f"all processes: {total / (folders * len(COVERED)):.1%}")
    return lines


def bench_table(out: str, instances: int, errors: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2)) -> list[str]:
    """The known-truth table through `wva bench` + `wva criterion` (the `walks` family), one folder per error rate."""
    import pandas as pd

    from benchmarks.cli.main import main as wva
    from tests.synthetic_walks import TABLE

    specs: list[tuple[str, bool]] = []
    for name, drawable, settings, sized in TABLE:
        for lo, hi in ((2, 4), (10, 12)) if sized else ((0, 0),):
            knobs = {**settings, **({"shortest": lo, "longest": hi} if sized else {})}
            specs.append((f"walks:process={name}" + "".join(f",{k}={v}" for k, v in knobs.items()), drawable))
    values: dict[str, list[float]] = {spec: [] for spec, _ in specs}
    for e in errors:
        folder = f"{out}/e{e}"
        wva(["bench", "--tasks", ";".join(s for s, _ in specs), "--patterns", "single,agent", "--model",
             f"sim:error_rate={e}", "--instances", str(instances), "--out", folder, "--no-drawn", "--quiet"])
        wva(["criterion", folder])
        table = pd.read_csv(f"{folder}/criterion.csv").set_index("task")
        for spec, _ in specs:
            values[spec].append(float(table.loc[spec, "drawability"]))
    lines = ["| process | truth | " + " | ".join(f"e = {e}" for e in errors) + " |",
             "|---|---|" + "---|" * len(errors)]
    for spec, drawable in specs:
        marks = ["" if (v >= THRESHOLD) == drawable else " ✗" for v in values[spec]]
        lines.append(f"| {spec.removeprefix('walks:process=')} | {'drawn' if drawable else 'not'} | "
                     + " | ".join(f"{v:.2f}{m}" for v, m in zip(values[spec], marks, strict=True)) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.perf.drawability_gap", description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0,1", help="select: the seeds averaged (0,1: where the threshold was set)")
    p.add_argument("--test-seeds", default="1")
    p.add_argument("--folders", type=int, default=40)
    p.add_argument("--parts", default="select,test,cover", help="select, test, cover and/or bench")
    p.add_argument("--out", default="/tmp/drawability_table", help="bench: where the wva bench folders go")
    p.add_argument("--instances", type=int, default=60, help="bench: instances per task (3 trials each)")
    args = p.parse_args(argv)
    parts = set(args.parts.split(","))
    if "select" in parts:
        print("drawability at d = 10 on SELECT (60 instances × 3 trials), where the threshold is chosen:", flush=True)
        print("\n".join(gap([int(s) for s in args.seeds.split(",")])), flush=True)
    if "test" in parts:
        print("\ndrawability on TEST, another grid (other lengths, error rates and seeds):", flush=True)
        print("\n".join(test([int(s) for s in args.test_seeds.split(",")])), flush=True)
    if "cover" in parts:
        print(f"\ncoverage of the 95% interval at d = 10, {args.folders} folders of 30 instances × 3 trials:",
              flush=True)
        print("\n".join(coverage(args.folders)), flush=True)
    if "bench" in parts:
        print(f"\nthe known-truth table through wva bench + wva criterion ({args.instances} instances × 3 trials, "
              f"d = 10, threshold {THRESHOLD}; ✗: misclassified):", flush=True)
        print("\n".join(bench_table(args.out, args.instances)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
