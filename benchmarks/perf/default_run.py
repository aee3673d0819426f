"""How long the README's first command takes: the default `wva bench`, as a new user runs it.

    python -m benchmarks.perf.default_run [--runs 1]

Runs `wva bench --out <tmp>` with every default (5 tasks × 7 patterns × 60 instances × 3 trials on
`sim:error_rate=0.1`, then the drawn phase), in a fresh process, and prints the wall time end to end, the
sweep alone and the drawn phase alone (each folder's `sweep_seconds` in manifest.json), then the same with
`--no-drawn`, and the machine it ran on (CPU, cores, Python, load average before the run: other work on
the machine slows it, and the README quotes the figure with its machine). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def machine() -> str:
    """CPU model, cores, Python and the 1-minute load average: what a timing needs beside it."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}; "
            f"load average {load:.1f} before the run")


def one_run(extra: list[str]) -> dict[str, float]:
    """Wall seconds of one default `wva bench` (with `extra` flags), and its sweep's and drawn phase's."""
    with tempfile.TemporaryDirectory(prefix="wva-default-") as tmp:
        out = Path(tmp) / "r"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "benchmarks", "bench", "--out", str(out), "--quiet", *extra],
                       check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        sweep = json.loads((out / "manifest.json").read_text()).get("sweep_seconds", float("nan"))
        drawn_manifest = out / "drawn" / "manifest.json"
        drawn = json.loads(drawn_manifest.read_text()).get("sweep_seconds", 0.0) if drawn_manifest.exists() else 0.0
        return {"wall": wall, "sweep": float(sweep), "drawn": float(drawn)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="repeat each measurement (default 1)")
    args = parser.parse_args(argv)
    print(f"machine: {machine()}")
    runs = (("wva bench (the default, with the drawn phase)", []), ("wva bench --no-drawn", ["--no-drawn"]))
    for label, extra in runs:
        for _ in range(args.runs):
            r = one_run(extra)
            print(f"{label}: {r['wall']:.0f} s end to end (the sweep {r['sweep']:.0f} s, the drawn phase "
                  f"{r['drawn']:.0f} s, the rest: imports, the criterion and the tables)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
