"""Is a family's declared comparator its strongest workflow design? Checked on a held-out seed.

    python -m benchmarks.studies.strongest support --seed 1 --instances 300 --trials 3

runs the agent and every workflow design the family offers (each pattern and each named variant, plus
`--designs` of yours, `file.py:function`) on the same instances (`wva bench` into a scratch folder, or `--out`),
then prints each design's success and cost against the agent's, and how far the best other design's success
is above the declared one's (`natural_workflow`). The check passes when no design beats the declared one by
more than `--slack` (0.02): the declared comparator is, within that, the strongest found. Use a seed the
designs were not developed on: the figure is then an honest held-out check, not a fit. The success figures are
means over instances x trials; they are estimates (a 300 x 3 run's standard error is about 0.01 per design).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

SLACK = 0.02


def table(runs: Any, declared: str) -> tuple[list[tuple[str, float, float]], float, str]:
    """(design, success, cost / the agent's) rows, best first; the best other design's lead over `declared`,
    and its name."""
    by = runs.groupby("pattern").agg(success=("success", "mean"), cost=("cost_usd", "mean"))
    agent_cost = float(by.loc["agent", "cost"]) if "agent" in by.index else float("nan")
    rows = sorted(((str(p), float(r.success), float(r.cost) / agent_cost) for p, r in by.iterrows()),
                  key=lambda row: -row[1])
    others = [r for r in rows if r[0] not in ("agent", declared)]
    best = others[0] if others else (declared, float(by.loc[declared, "success"]), 1.0)
    return rows, best[1] - float(by.loc[declared, "success"]), best[0]


def same_design(family: Any, name: str, declared: str) -> bool:
    """A variant that is the declared design under another name (`route:ladder` when `route` is the ladder):
    run once, as the declared one."""
    from benchmarks.tasks.variants import design_for

    with tempfile.TemporaryDirectory(prefix="wva-strongest-") as scratch:
        env = family.environment(family.instances(1, 0)[0], Path(scratch))
        a, b = design_for(family, name, env), design_for(family, declared, env)
    return type(a) is type(b) and getattr(a, "name", None) == getattr(b, "name", None) != declared


def main(argv: list[str] | None = None) -> int:
    from benchmarks.harness.bench import run_bench
    from benchmarks.harness.config import BenchConfig
    from benchmarks.studies.charges import designs_of
    from benchmarks.tasks.registry import load_task

    p = argparse.ArgumentParser(prog="python -m benchmarks.studies.strongest", description=__doc__.split("\n")[0])
    p.add_argument("task")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--instances", type=int, default=300)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--designs", default="", help="more designs, comma-separated (file.py:function)")
    p.add_argument("--slack", type=float, default=SLACK)
    p.add_argument("--out", type=Path, default=None, help="keep the runs here (default: a scratch folder)")
    args = p.parse_args(argv)
    family = load_task(args.task)
    declared = getattr(family, "natural_workflow", None)
    if declared is None:
        print(f"{args.task} declares no comparator", file=sys.stderr)
        return 2
    designs = [d for d in designs_of(family, tuple(d for d in args.designs.split(",") if d))
               if d == declared or not same_design(family, d, declared)]
    with tempfile.TemporaryDirectory(prefix="wva-strongest-") as scratch:
        config = BenchConfig(patterns=tuple(designs), tasks=(args.task,), instances=args.instances,
                             trials=args.trials, seed=args.seed, out=args.out or Path(scratch), workers=1)
        runs = asyncio.run(run_bench(config)).runs
        rows, lead, best = table(runs, declared)
    print(f"{args.task}, seed {args.seed}, {args.instances} instances x {args.trials} trials, declared {declared}")
    print(f"  {'design':<22} {'success':>8} {'cost vs agent':>14}")
    for name, success, cost in rows:
        print(f"  {name:<22} {success:>8.3f} {cost:>13.2f}x" + ("  (declared)" if name == declared else ""))
    verdict = "within" if lead <= args.slack else "BEYOND"
    print(f"best other design {best}: {lead:+.3f} against the declared {declared} ({verdict} the slack {args.slack})")
    return 0 if lead <= args.slack else 1


if __name__ == "__main__":
    raise SystemExit(main())
