"""The verdict's calibration figures quoted in docs/criterion.md, printed: `python -m tests.calibration_figures`.

The same simulations as tests/test_verdict_calibration.py, tests/test_cost_interval.py,
tests/test_sequential.py and tests/test_planning.py (which assert bounds on them), with more tasks, so
each printed rate carries its Monte Carlo standard error. About two minutes on two cores.
"""

from __future__ import annotations

import math

import numpy as np

from tests.synthetic_results import Scenario, sequential_verdicts, simulated_verdicts, task_runs, uniform


def rate(hits: np.ndarray) -> str:
    p, n = float(np.mean(hits)), hits.size
    return f"{p:6.1%} ± {math.sqrt(max(p * (1 - p), 1e-12) / n):.1%}  ({n} tasks)"


def winners(verdicts: np.ndarray) -> np.ndarray:
    return np.isin(verdicts, ("agent", "workflow"))


def fixed_design() -> list[str]:
    lines = ["All seven patterns equal (success 0.7, equal cost, 3 trials, shared instance difficulty):",
             "  instances  a winner named, selected best workflow | declared comparator"]
    for n, reps in ((20, 4000), (100, 4000), (400, 2000), (1000, 1000)):
        s = Scenario(1, n, uniform(0.7))
        sel, dec = simulated_verdicts(s, reps, seed=n), simulated_verdicts(s, reps, seed=n + 1, comparator="chain")
        lines.append(f"  {n:>9}  {rate(winners(sel))} | {rate(winners(dec))}")
    lines.append("Equal success, the workflow cheaper by exactly the cost margin (the least favourable truth):")
    for n in (100, 400, 1000):
        s = Scenario(1, n, {"agent": 0.7, "chain": 0.7}, {"agent": 0.01, "chain": 0.009})
        lines.append(f"  {n:>9}  a wrong winner {rate(winners(simulated_verdicts(s, 4000, seed=n + 2)))}")
    return lines


def cost_coverage() -> list[str]:
    from tests.test_cost_interval import RATIOS, intervals, skewed_costs

    rng, truth = np.random.default_rng(10), np.array(RATIOS)
    one, together = [], []
    for r in range(2000):
        got = intervals(skewed_costs(rng, 10), seed=r)
        one.append(((got["cost_lo"][0] <= truth) & (truth <= got["cost_hi"][0])).mean())
        together.append(bool(((got["cost_sim_lo"][0] <= truth) & (truth <= got["cost_sim_hi"][0])).all()))
    return ["Cost ratio's 95% interval, 10 instances, instance cost CV 1.0 (three workflows):",
            f"  one at a time covers {np.mean(one):.1%}; simultaneous covers all three {rate(np.array(together))}"]


def sequential() -> list[str]:
    lines = ["Group-sequential (O'Brien-Fleming-type spending), up to 400 instances in 8 looks of 50:"]
    verdict, _ = sequential_verdicts(Scenario(1, 400, uniform(0.7)), 2000, 1, batch=50, comparator="chain")
    lines.append(f"  all equal, declared comparator: a winner {rate(winners(verdict))}")
    s = Scenario(1, 400, {"agent": 0.7, "chain": 0.7}, {"agent": 0.01, "chain": 0.009})
    verdict, _ = sequential_verdicts(s, 4000, 3, batch=50, comparator="chain")
    lines.append(f"  the least favourable truth: a wrong winner {rate(winners(verdict))}")
    verdict, look = sequential_verdicts(Scenario(1, 200, {"agent": 0.9, "chain": 0.6}), 1000, 2, batch=20,
                                        comparator="chain")
    lines.append(f"  agent 0.9 vs 0.6, looks of 20 up to 200: `agent` {rate(verdict == 'agent')}, "
                 f"stopped at look {np.median(look):.0f} of 10 (median)")
    return lines


def equivalence() -> list[str]:
    """The equivalence leg's spending against O'Brien-Fleming-type on it and the fixed run, on the same data
    (a design of one look of 100 is the fixed run), looks of 20 up to 100, declared comparator."""
    import benchmarks.criterion.sequential as sq

    cases = (("equal at 90%: `either`", Scenario(1, 100, {"agent": 0.9, "chain": 0.9}), 4, 4000, ("either",)),
             ("equal at 95%, the workflow at 0.6x cost: `workflow`",
              Scenario(1, 100, {"agent": 0.95, "chain": 0.95}, {"agent": 0.01, "chain": 0.006}), 6, 2000,
              ("workflow",)),
             ("the least favourable truth: a wrong winner",
              Scenario(1, 100, {"agent": 0.7, "chain": 0.7}, {"agent": 0.01, "chain": 0.009}), 7, 4000,
              ("agent", "workflow")))
    lines = ["The equivalence leg's spending (power family, rho 6) against obf on it and the fixed run of 100:"]
    kept = sq.EQ_SPENDING
    try:
        for label, s, seed, reps, which in cases:
            fixed, _ = sequential_verdicts(s, reps, seed, batch=100, comparator="chain")
            got = [f"fixed {rate(np.isin(fixed, which))}"]
            for eq in ("obf", "power"):
                sq.EQ_SPENDING = eq
                v, look = sequential_verdicts(s, reps, seed, batch=20, comparator="chain")
                got.append(f"{eq} {rate(np.isin(v, which))}, {20 * np.mean(look):.1f} instances on average")
            lines.append(f"  {label}: " + " | ".join(got))
    finally:
        sq.EQ_SPENDING = kept
    return lines


def planning() -> list[str]:
    from benchmarks.criterion.verdict import Options
    from benchmarks.studies.plan_sim import Engine
    from benchmarks.studies.planning import pilot_for, spread_factor

    truth = Scenario(1, 200, {"agent": 0.8, "chain": 0.7}, {"agent": 0.01, "chain": 0.005})
    options, powers, sizes = Options(comparator="chain"), [], []
    for seed in range(1, 11):
        pilot = pilot_for(task_runs(truth, "t", np.random.default_rng(seed)), ["chain"], None, options)
        n = Engine(pilot, options).smallest_n(0.10, 0.8, spread_factor(pilot.instances))
        got = simulated_verdicts(Scenario(1, int(n or 0), truth.success, truth.cost), 1000, seed, comparator="chain")
        powers.append(float((got == "agent").mean()))
        sizes.append(n)
    return ["wva plan from ten 200-instance pilots (agent truly 10 points better), the rule run at each planned size:",
            f"  planned {min(sizes)}-{max(sizes)} instances; power {min(powers):.0%}-{max(powers):.0%}, "
            f"mean {np.mean(powers):.1%}"]


def plan_at_the_pilots_size() -> list[str]:
    """`wva plan`'s stated power against the realised one, on eight pilots each of 20 and 60 instances (agent
    truly 10 points better, at twice the workflow's cost), at the pilot's own size and at the size it
    recommends (the spread's upper limit)."""
    from benchmarks.criterion.verdict import Options
    from benchmarks.studies.plan_sim import Engine
    from benchmarks.studies.planning import pilot_for, spread_factor

    truth = Scenario(1, 60, {"agent": 0.8, "chain": 0.7}, {"agent": 0.01, "chain": 0.005})
    options, lines = Options(comparator="chain"), ["wva plan: stated against realised power, agent +0.10:"]
    for n in (20, 60):
        sized = Scenario(1, n, truth.success, truth.cost)
        real = float((simulated_verdicts(sized, 4000, 99, comparator="chain") == "agent").mean())
        stated, planned, realised = [], [], []
        for seed in range(1, 9):
            pilot = pilot_for(task_runs(sized, "t", np.random.default_rng(seed)), ["chain"], None, options)
            engine = Engine(pilot, options)
            stated.append(engine.power(0.10, n))
            size = engine.smallest_n(0.10, 0.8, spread_factor(n)) or 0
            planned.append(size)
            got = simulated_verdicts(Scenario(1, size, truth.success, truth.cost), 1000, seed, comparator="chain")
            realised.append(float((got == "agent").mean()))
        lines += [f"  {n}-instance pilots: stated at {n} {min(stated):.0%}-{max(stated):.0%}, "
                  f"mean {np.mean(stated):.1%}; realised at {n} {real:.1%}",
                  f"    recommended {min(planned)}-{max(planned)} instances for 80%: realised "
                  f"{min(realised):.0%}-{max(realised):.0%}, mean {np.mean(realised):.1%}"]
    return lines


if __name__ == "__main__":
    for part in (fixed_design, cost_coverage, sequential, equivalence, planning, plan_at_the_pilots_size):
        print("\n".join(part()), flush=True)
