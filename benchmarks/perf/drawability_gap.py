"""Where the chapter's threshold comes from, and how well drawability's interval covers: printed, never asserted.

    python -m benchmarks.perf.drawability_gap [--seeds 0,1,2] [--folders 150] [--d 10,20,25]

Part 1 measures drawability (d = 10, 60 instances × 3 trials, mean over the seeds) on every setting of the
synthetic processes whose answer is known (`tests/synthetic_walks.py`, `GRID`): the drawable ones (a fixed
path with retries, a bounded loop, branching after a step, routing among four or five lookups) and the
open-ended ones. It prints the lowest drawable value, the highest open-ended one and the middle of that gap,
where `drawability.THRESHOLD` was set. Part 2 simulates `--folders` folders of 30 instances per process
(trials correlated within instances) and prints how often the 95% interval covered the true value (the
suite checks at least 90%: tests/test_drawability_truth.py), at each drawing size `--d` (default 10, the
criterion's; larger ones test the learning curve's far end, where few instances are left to test and the
interval widens), with the interval's mean width. Run from the repository's root (it reads the generators
in tests/).
"""

from __future__ import annotations

import argparse

from benchmarks.criterion.drawability import THRESHOLD, drawability


def gap(seeds: list[int]) -> list[str]:
    from tests.synthetic_walks import GRID, grid_sample

    lines, values = [], []
    for name, drawable, settings in GRID:
        v = sum(drawability(grid_sample(name, settings, seed=s), seed=0).value for s in seeds) / len(seeds)
        values.append((drawable, v))
        lines.append(f"  {name:<14} {'drawable' if drawable else 'not drawable':<12} {settings}: {v:.3f}")
    low = min(v for d, v in values if d)
    high = max(v for d, v in values if not d)
    lines.append(f"lowest drawable {low:.3f}, highest not drawable {high:.3f}: the middle of the gap "
                 f"{(low + high) / 2:.3f} (THRESHOLD = {THRESHOLD})")
    return lines


def coverage(folders: int, d: int = 10) -> list[str]:
    from tests.synthetic_walks import PROCESSES, sample
    from tests.test_drawability_truth import true_drawability

    lines = []
    for p in PROCESSES:
        truth = true_drawability(p.name, d=d)
        ests = [drawability(sample(p, 30, seed=500 + r), d, seed=r) for r in range(folders)]
        hits = sum(est.low <= truth <= est.high for est in ests)
        width = sum(est.high - est.low for est in ests) / folders
        lines.append(f"  {p.name:<13} true drawability {truth:.3f}: the interval covered it in {hits / folders:.1%}"
                     f" (mean width {width:.2f})")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.perf.drawability_gap", description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--folders", type=int, default=150)
    p.add_argument("--d", default="10", help="drawing sizes at which to measure coverage (of 30 instances)")
    args = p.parse_args(argv)
    print("drawability at d = 10 on the synthetic processes (60 instances × 3 trials):")
    print("\n".join(gap([int(s) for s in args.seeds.split(",")])))
    for d in (int(text) for text in args.d.split(",")):
        print(f"\ncoverage of the 95% interval at d = {d}, {args.folders} folders of 30 instances × 3 trials per "
              "process:")
        print("\n".join(coverage(args.folders, d)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
