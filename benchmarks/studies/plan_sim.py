"""The verdict rule run on planned runs drawn from a pilot: how often it reaches a right verdict at N
instances if a stated difference were the truth.

A planned run of N instances is N instances drawn with replacement from the pilot's (the instance is the
unit, as in every interval); the per-instance success differences are moved to the stated truth (kept
within [−1, 1], and at the unbiased spread: `moved`): each comparison shifted by the same amount, so
the comparator's (or the best workflow's) true difference is the stated one and the others keep their
distance from it, and their spread about the mean multiplied by `spread` (1 at the pilot's estimate; its
upper confidence limit carries the pilot's own uncertainty
through). Costs are the pilot's, resampled with their instances. The rule is the criterion's own
(`benchmarks.criterion.bounds`, `benchmarks.criterion.rule`), with two simplifications that matter little at
the sizes a plan recommends: cost intervals by the delta method, and the comparisons' correlations (for max-T)
the pilot's.

A verdict is *right* when every claim in it is true of the stated truth: `agent` when the agent is more
successful than each workflow (or no worse than δ and cheaper by the cost margin at the pilot's ratio),
`workflow` the mirror for the workflow it names, `either` when the two are within ±δ. `inconclusive` is
never right: power is the chance of a right, decisive verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchmarks.criterion import rule
from benchmarks.criterion.bounds import FIXED, Bounds, Levels, diff_bounds, no_cost, success_part
from benchmarks.criterion.paired import correlation
from benchmarks.criterion.verdict import Options

REPS = 1000  # simulated runs per size: the power's Monte Carlo error is about ±1.3 points at 80%


@dataclass(frozen=True)
class Pilot:
    """One task's pilot, on the instances every compared pattern ran: per-instance means, agent first."""

    success: np.ndarray  # (n, 1 + m)
    cost: np.ndarray | None  # (n, 1 + m), None when a cost is unknown
    flows: list[str]  # one declared or named comparator, or every workflow (the best selected)

    @property
    def instances(self) -> int:
        return self.success.shape[0]

    def diffs(self) -> np.ndarray:
        return self.success[:, :1] - self.success[:, 1:]

    def ratios(self) -> np.ndarray:
        return self.cost[:, 1:].mean(0) / self.cost[:, 0].mean() if self.cost is not None else np.full(
            len(self.flows), np.nan)

    def best(self) -> int:
        return int(np.argmin(self.diffs().mean(0)))


def moved(p: Pilot, truth: float, spread: float) -> np.ndarray:
    """The pilot's per-instance differences `(1, n, m)` moved to `truth` for the best (or only) workflow,
    their spread about the mean × `spread`. A difference with no spread at all gets the criterion's floor,
    one discordant instance in n (± 1/√n about the mean).

    Two corrections keep the planned runs honest. The residuals are scaled by √(n / (n − 1)): a resample
    of a pilot has the pilot's spread with divisor n, which understates the instances' true variance by
    (n − 1) / n, so without it a small pilot promised more power than a run of that size has. And a
    difference of success rates lies in [−1, 1]: moving every instance by the same amount can push some
    outside, so each comparison is moved by the amount whose *clipped* differences have the stated mean
    (found by bisection; the mean of the clipped values grows with the amount moved)."""
    d = p.diffs()
    n = p.instances
    mean = d.mean(0)
    resid = (d - mean) * (np.sqrt(n / (n - 1)) if n > 1 else 1.0)
    flat = resid.std(0) == 0
    if flat.any():
        sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)[:, None]
        resid = np.where(flat, (sign - sign.mean()) / np.sqrt(n), resid)
    return clipped_to(spread * resid, truths(p, truth))[None]


def clipped_to(base: np.ndarray, target: np.ndarray) -> np.ndarray:
    """`base` `(n, m)` moved per column by the amount s with mean(clip(base + s, −1, 1)) = target (each
    target within (−1, 1))."""
    reach = float(np.abs(base).max()) + 2.0
    low, high = np.full(target.shape, -reach), np.full(target.shape, reach)
    for _ in range(60):  # to about 1e-16 of the reach
        mid = (low + high) / 2
        below = np.clip(base + mid, -1.0, 1.0).mean(0) < target
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    return np.clip(base + (low + high) / 2, -1.0, 1.0)


def truths(p: Pilot, truth: float) -> np.ndarray:
    """Every comparison's true difference under the stated truth, `(m,)`."""
    mean = p.diffs().mean(0)
    return mean + (truth - mean[p.best()])


def right(code: np.ndarray, which: np.ndarray, delta: np.ndarray, ratio: np.ndarray, margin: float,
          cost_margin: float) -> np.ndarray:
    """Whether each verdict is right of this truth (module docstring); `delta`, `ratio` per comparison."""
    agent = (delta > 0) | ((delta > -margin) & (ratio >= 1 / (1 - cost_margin)))
    flow = (delta < 0) | ((delta < margin) & (ratio <= 1 - cost_margin))
    either = (delta > -margin).all() and (delta < margin).any()
    named = np.where(which >= 0, which, int(np.argmin(delta)))
    verdict = rule.verdicts(code)
    return np.where(verdict == "agent", agent.all(), np.where(verdict == "workflow", flow[named],
                                                              np.where(verdict == "either", either, False)))


@dataclass(frozen=True)
class Engine:
    """A pilot ready to simulate: its correlations fixed once."""

    pilot: Pilot
    options: Options
    levels: Levels = FIXED

    def corrs(self) -> tuple[np.ndarray, np.ndarray]:
        d = self.pilot.diffs()[None]
        if self.pilot.cost is None:
            return correlation(d), correlation(d)
        c = self.pilot.cost
        lin = c[:, 1:] / c[:, 1:].mean(0) - c[:, :1] / c[:, 0].mean()
        return correlation(d), correlation(lin[None])

    def bounds(self, d: np.ndarray, w: np.ndarray, seed: int, corrs: tuple[np.ndarray, np.ndarray]) -> Bounds:
        value, cost = self.options.value_per_success, self.pilot.cost
        if value is None or cost is None:
            return diff_bounds(d, None if cost is None else cost[None], self.levels, seed, w, "delta", corrs)
        nv = value * d - (cost[None, :, :1] - cost[None, :, 1:])
        part = success_part(nv, w, self.levels.value, self.levels.eq, seed, corrs[0], unit=value)
        return Bounds(**part, **no_cost(part["diff"].shape))

    def power(self, truth: float, n: int, spread: float = 1.0, reps: int = REPS, seed: int = 0) -> float:
        """The chance of a right verdict with `n` instances if `truth` were the difference."""
        p, o = self.pilot, self.options
        rng = np.random.default_rng(seed)
        w = rng.multinomial(n, np.full(p.instances, 1.0 / p.instances), size=reps).astype(float)
        b = self.bounds(moved(p, truth, spread), w, seed, self.corrs())
        value = o.value_per_success
        margin = o.margin * value if value is not None else o.margin
        code, which = rule.decide(b, margin, o.cost_margin)
        delta, ratio = truths(p, truth), p.ratios()
        if value is not None and p.cost is not None:  # the truth in net value per trial
            delta = value * delta - (p.cost[:, :1] - p.cost[:, 1:]).mean(0)
            ratio = np.full_like(ratio, np.nan)  # no cost leg: cost is inside the value
        return float(right(code, which, delta, ratio, margin, o.cost_margin).mean())

    def guess(self, truth: float, spread: float) -> int:
        """A normal-approximation start for the search (the simulation decides)."""
        p, o = self.pilot, self.options
        sd = spread * max(float(p.diffs()[:, p.best()].std()), 1 / np.sqrt(p.instances))
        z = (2.24 if truth else 1.645) + 0.84
        return max(5, int(np.ceil((z * sd / (abs(truth) or o.margin)) ** 2)))

    def smallest_n(self, truth: float, target: float, spread: float = 1.0, largest: int = 10000,
                   seed: int = 0) -> int | None:
        """The smallest number of instances whose power reaches `target` (None: not within `largest`), to 2%:
        finer than the power's Monte Carlo error moves it."""
        def enough(n: int) -> bool:
            return self.power(truth, n, spread, seed=seed) >= target

        high = min(self.guess(truth, spread), largest)
        if enough(high):
            low = high
            while low > 2 and enough(low):
                low, high = max(2, int(low / 1.5)), low
            if low <= 2 and enough(low):
                return low
        else:
            low = high
            while not enough(high):
                if high >= largest:
                    return None
                low, high = high, min(largest, int(high * 1.5) + 1)
        while high - low > max(1, low // 50):
            mid = (low + high) // 2
            low, high = (mid, high) if not enough(mid) else (low, mid)
        return high
