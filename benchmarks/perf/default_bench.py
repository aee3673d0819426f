"""How long the default `wva bench` takes: wall clock, CPU seconds, and the criterion's share.

    python -m benchmarks.perf.default_bench [--repeat 1] [--args "--seed 1"]

Runs the default sweep end to end as a user does (a fresh `python -m benchmarks bench --out TMP --quiet`
process: imports, the pilot sweep, the decided phase's looks, the drawn comparator, the tidy files, the
criterion and its readings), in a
scratch folder, `--repeat` times. Prints per run the wall-clock seconds, the CPU seconds of the process
(user + system, from `getrusage` of the finished child and every process it started: on a machine other work
shares, the figure that does not grow with the load), the cores it kept busy on average (CPU / wall),
`sweep_seconds` from its manifest and from the drawn phase's (`drawn/manifest.json`),
the decided phase's trials (`decided/runs.csv`) and the instances each task stopped at, and the one-minute
load average before it started; first, the machine it runs on (CPU, cores, Python: a timing means little
without them). Other work on the machine stretches the wall clock, not the CPU seconds: compare those.
`--args "--no-drawn"` times the run without the drawn phase. Then times
the criterion alone on the last folder (CPU seconds, in this process), with and
without the reviewer's readings (the claims' p-values, the other comparator), so the cost of each part is
visible. The target: at most 90 s wall on an idle two-core machine.

The shards (`benchmarks.harness.shards`) are children of multiprocessing's fork server, which the bench never
waits for: their CPU seconds reached no parent's `getrusage`, and until 2026-12-07 this script printed the main
process's alone (about half of the whole). On Linux it now makes itself the "child subreaper" of the run, so the
server, orphaned when the run ends, is its child, and it waits for it and for any other orphan.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def machine() -> str:
    """CPU model, cores and Python: what a timing needs beside it."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    cpu = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), cpu)
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def adopt_orphans() -> bool:
    """Make this process the subreaper of what it starts (Linux: `prctl(PR_SET_CHILD_SUBREAPER)`); whether it is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER = 36
    except (OSError, AttributeError):
        return False


def reap_orphans(timeout_s: float = 10.0) -> None:
    """Wait for every process left by the run (the fork server ends once the run has): their CPU is the run's."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # none left
            return
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


def one_run(out: Path, extra: list[str]) -> dict[str, Any]:
    """One default bench in a fresh process: wall and CPU seconds, the manifest's sweep seconds."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchmarks", "bench", "--out", str(out), "--quiet", *extra],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    manifest = json.loads((out / "manifest.json").read_text())
    drawn = out / "drawn" / "manifest.json"
    drawn_s = float(json.loads(drawn.read_text()).get("sweep_seconds") or 0.0) if drawn.exists() else 0.0
    looks = (manifest.get("decided") or {}).get("looks") or []
    stopped = {str(r["task"]): int(r["instances"]) for r in looks}  # the last look of each task wins
    grown = out / "decided" / "runs.csv"
    decided = sum(1 for _ in grown.open()) - 1 if grown.exists() else 0
    return {"wall": wall, "cpu": cpu, "sweep": float(manifest.get("sweep_seconds") or 0.0), "drawn": drawn_s,
            "load": load, "decided": decided, "stopped": stopped}


def criterion_cpu(out: Path, readings: bool) -> float:
    """CPU seconds of the criterion on `out`, with or without the readings (swapped for empty ones)."""
    from benchmarks.criterion import readings as rd
    from benchmarks.criterion import table

    kept = rd.readings
    if not readings:
        rd.readings = lambda *args, **kwargs: rd.empty()  # type: ignore[assignment]
    try:
        start = time.process_time()
        table.criterion_tables(out)
        return time.process_time() - start
    finally:
        rd.readings = kept  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.perf.default_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=1, help="runs of the default bench (default 1)")
    p.add_argument("--args", default="", help="extra `wva bench` arguments, quoted (default: none)")
    args = p.parse_args(argv)
    print(f"machine: {machine()}", flush=True)
    if not adopt_orphans():
        print("(not Linux: the CPU seconds below leave out the shard processes)", flush=True)
    with tempfile.TemporaryDirectory(prefix="wva-perf-default-") as tmp:
        for k in range(args.repeat):
            out = Path(tmp) / f"run{k}"
            r = one_run(out, shlex.split(args.args))
            print(f"run {k + 1}: {r['wall']:.1f} s wall, {r['cpu']:.1f} CPU s ({r['cpu'] / r['wall']:.2f} cores busy), "
                  f"sweep {r['sweep']:.1f} s, "
                  f"drawn phase {r['drawn']:.1f} s (load average {r['load']:.1f} before it)", flush=True)
            if r["stopped"]:
                print(f"  decided phase: {r['decided']} trials; instances at the stopping look: "
                      + ", ".join(f"{t} {n}" for t, n in r["stopped"].items()), flush=True)
        full, bare = criterion_cpu(out, True), criterion_cpu(out, False)
        print(f"the criterion alone: {full:.1f} CPU s, of which the readings (claims' p-values, the other "
              f"comparator) {full - bare:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
