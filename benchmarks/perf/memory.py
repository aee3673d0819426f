"""Peak memory of `wva bench` as the sweep grows: does it stay flat from 10k to 100k trials?

    python -m benchmarks.perf.memory [--trials 10000,100000] [--tasks LIST] [--workers 1]

Each size is one `python -m benchmarks bench ... --quiet` run in a fresh process and a fresh temporary
folder — imports, the plan, the sweep, the tidy files, the summary and the criterion are all counted —
on `sim:error_rate=0.1`, every pattern, 3 trials per instance and `trials / (tasks × patterns × 3)`
instances of each task (by default the five built-in families: 95 instances each for 10k trials, 952 for
100k). Its peak resident set is the `ru_maxrss` that `os.wait4` reports for that process alone
(with `--workers` above 1, the largest process of its tree that was waited for). The table gives trials,
peak RSS, wall time, and each size's peak over the smallest's: the goal is a 100k-trial sweep within 1.2×
a 10k-trial one. docs/performance.md records the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.names import DEFAULT_TASKS, PATTERNS

ROOT = Path(__file__).resolve().parents[2]
TRIALS_EACH = 3


def measure(trials: int, tasks: list[str], workers: int, folder: Path) -> dict[str, Any]:
    """One sweep of about `trials` trials in its own process: its peak RSS (MB), wall time and trial count."""
    instances = max(1, round(trials / (len(PATTERNS) * TRIALS_EACH * len(tasks))))
    out = folder / f"bench-{trials}"
    args = [sys.executable, "-m", "benchmarks", "bench", "--quiet", "--out", str(out), "--tasks", ",".join(tasks),
            "--instances", str(instances), "--trials", str(TRIALS_EACH), "--workers", str(workers)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak, not the largest of every child so far
    wall = time.perf_counter() - t0
    error = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"wva bench failed ({proc.returncode}):\n{error}")
    manifest = json.loads((out / "manifest.json").read_text())
    return {"trials": int(manifest["trials_total"]), "instances": instances, "peak_mb": usage.ru_maxrss / 1024,
            "wall_s": wall, "sweep_s": float(manifest["sweep_seconds"])}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", default="10000,100000", help="sweep sizes, comma-separated (default 10000,100000)")
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS),
                        help="task specs, comma-separated (default: the five built-in families)")
    parser.add_argument("--workers", type=int, default=1, help="processes per sweep (default 1: one process)")
    args = parser.parse_args(argv)
    sizes = [int(t) for t in args.trials.split(",") if t.strip()]
    tasks = [t for t in args.tasks.split(",") if t.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="wva-memory-") as tmp:
        for size in sizes:
            rows.append(measure(size, tasks, args.workers, Path(tmp)))
            print(f"  measured {rows[-1]['trials']} trials", file=sys.stderr, flush=True)
    base = rows[0]["peak_mb"]
    print(f"wva bench on sim, tasks {','.join(tasks)}, {len(PATTERNS)} patterns × {TRIALS_EACH} trials, "
          f"--workers {args.workers}; peak RSS of the bench process")
    print(f"{'trials':>8} {'instances':>10} {'peak RSS MB':>12} {'× smallest':>11} {'wall s':>8} {'sweep s':>8}")
    for r in rows:
        print(f"{r['trials']:>8} {r['instances']:>10} {r['peak_mb']:>12.1f} {r['peak_mb'] / base:>11.2f} "
              f"{r['wall_s']:>8.1f} {r['sweep_s']:>8.1f}")


if __name__ == "__main__":
    main()
