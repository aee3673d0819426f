"""Figures docs/criterion.md quotes at the rule's least favourable truth for a wrong `workflow`, and `wva plan`'s
calibration over many pilots: `python -m tests.calibration_margin_truth [--pilots 200]`.

The least favourable truth for a wrong winner by non-inferiority: the workflow worse by exactly the margin
(0.65 against 0.70) and far cheaper (half the cost), so `workflow` ("no worse than δ and cheaper") is wrong
and sits on its boundary. The fixed rule's one task, a table of five with each task's own verdict, and the
same table under Holm (a winner stands when its claim holds at 5% / 5: `familywise.scaled`).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tests.synthetic_results import Scenario, draw_arrays, simulated_verdicts, task_runs

MARGIN_TRUTH = ({"agent": 0.70, "chain": 0.65}, {"agent": 0.01, "chain": 0.005})


def rate(hits: np.ndarray) -> str:
    p, n = float(np.mean(hits)), hits.size
    return f"{p:6.2%} ± {math.sqrt(max(p * (1 - p), 1e-12) / n):.2%}  ({n} tasks)"


def one_task() -> list[str]:
    lines = ["The workflow worse by exactly the margin, at half the cost: `workflow` named (wrong)"]
    for n in (20, 60, 100, 400):
        got = simulated_verdicts(Scenario(1, n, *MARGIN_TRUTH), 20000, seed=n + 40, comparator="chain")
        lines.append(f"  {n:>4} instances: {rate(got == 'workflow')}")
    return lines


def table_of_five(tables: int = 2000) -> list[str]:
    from benchmarks.criterion.bounds import FIXED, bounds
    from benchmarks.criterion.familywise import scaled
    from benchmarks.criterion.rule import decide, verdicts

    success, cost = draw_arrays(Scenario(1, 60, *MARGIN_TRUTH), 5 * tables, np.random.default_rng(21))
    own = verdicts(decide(bounds(success, cost, FIXED, method="delta", draws=2000), 0.05, 0.10)[0])
    fw = verdicts(decide(bounds(success, cost, scaled(FIXED, 0.01), method="delta", draws=2000), 0.05, 0.10)[0])
    wrong_own = (own == "workflow").reshape(tables, 5).any(axis=1)
    wrong_fw = (fw == "workflow").reshape(tables, 5).any(axis=1)
    return ["A table of five such tasks, 60 instances, 3 trials: any wrong winner",
            f"  each task's own verdict {rate(wrong_own)}; Holm {rate(wrong_fw)}"]


def plan_calibration(pilots: int, sizes: tuple[int, ...] = (20, 60), reps: int = 400) -> list[str]:
    """`wva plan`'s stated power against the realised one over `pilots` pilots per size (agent truly 10 points
    better at twice the workflow's cost): at the pilot's size, and at the size it recommends."""
    from benchmarks.criterion.verdict import Options
    from benchmarks.studies.plan_sim import Engine
    from benchmarks.studies.planning import pilot_for, spread_factor

    success, costs = {"agent": 0.8, "chain": 0.7}, {"agent": 0.01, "chain": 0.005}
    options, lines = Options(comparator="chain"), [f"wva plan over {pilots} pilots per size, agent +0.10:"]
    for n in sizes:
        sized = Scenario(1, n, success, costs)
        real = float((simulated_verdicts(sized, 8000, 99, comparator="chain") == "agent").mean())
        stated, stated_upper, realised = [], [], []
        for seed in range(1, pilots + 1):
            pilot = pilot_for(task_runs(sized, "t", np.random.default_rng(seed)), ["chain"], None, options)
            engine = Engine(pilot, options)
            stated.append(engine.power(0.10, n))
            stated_upper.append(engine.power(0.10, n, spread_factor(n)))
            size = engine.smallest_n(0.10, 0.8, spread_factor(n)) or 0
            got = simulated_verdicts(Scenario(1, size, success, costs), reps, seed, comparator="chain")
            realised.append(float((got == "agent").mean()))
        se = float(np.std(stated, ddof=1) / math.sqrt(pilots))
        lines += [f"  {n}-instance pilots: stated at {n} mean {np.mean(stated):.1%} ± {se:.1%} (at the spread's "
                  f"upper limit {np.mean(stated_upper):.1%}); realised at {n} {real:.1%}",
                  f"    at the recommended size: realised mean {np.mean(realised):.1%} "
                  f"({np.percentile(realised, 5):.0%}-{np.percentile(realised, 95):.0%} over 90% of pilots)"]
    return lines


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m tests.calibration_margin_truth")
    p.add_argument("--pilots", type=int, default=200)
    p.add_argument("--parts", default="one,five,plan")
    args = p.parse_args()
    parts = {"one": one_task, "five": table_of_five, "plan": lambda: plan_calibration(args.pilots)}
    for name in args.parts.split(","):
        print("\n".join(parts[name]()), flush=True)
