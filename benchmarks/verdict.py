"""The verdict: `workflow`, `agent`, `either` or `inconclusive`, symmetric, with a non-inferiority margin.

With a margin δ (default 0.05: five points of success, a difference most teams would trade for a clearly
lower bill, and small enough that "no worse than δ" still means no worse in practice) and the intervals of
`benchmarks.comparison` on `agent - workflow` success and on the cost ratio `workflow / agent`:

1. `workflow` if the workflow is significantly more successful (the 95% interval is entirely below 0);
2. `agent` if the agent is (entirely above 0);
3. `workflow` if the workflow is non-inferior within δ (the interval's upper end is below δ) and
   significantly cheaper (the cost ratio's 95% interval is entirely below 1);
4. `agent`, the mirror image (lower end above -δ, cost ratio interval entirely above 1);
5. `either` if the two are equivalent within ±δ (TOST: the 90% interval inside (-δ, δ)) and neither is
   significantly cheaper;
6. `inconclusive` otherwise — never read as "no difference".

Against a *declared* comparator (one workflow named before the data: the family's or `--comparator`)
these are the one-at-a-time intervals. Against the *selected* best workflow the selection must not bias
the test, so every claim is put in the form that holds whichever workflow is best:

- "the agent beats the best workflow" means it beats every one: each one-at-a-time interval (an
  intersection-union test needs no adjustment);
- "some workflow beats the agent" (or is non-inferior and cheaper) needs that workflow's *simultaneous*
  interval (max-T over the six), which covers whichever one a reader picks afterwards;
- the mirror of rule 4 asks the agent to be non-inferior to every workflow and, for each, either
  significantly more successful or significantly cheaper.
The interval reported for "agent - best workflow" is then [min_j lower_j, min_j simultaneous upper_j].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .comparison import Pair

DEFAULT_MARGIN = 0.05


@dataclass(frozen=True)
class Verdict:
    verdict: str  # workflow | agent | either | inconclusive
    comparator: str  # the workflow the verdict is about
    reason: str  # what decided it, in words
    diff_ci: tuple[float, float]  # the interval on agent - comparator the rule read
    cost_ci: tuple[float, float]  # and on the cost ratio comparator / agent


def check_margin(margin: float) -> float:
    if not (isinstance(margin, float | int) and 0 < margin < 0.5):
        raise ValueError(f"--margin must be a number between 0 and 0.5 (a share of success), not {margin!r}")
    return float(margin)


def _nan(iv: tuple[float, float]) -> bool:
    return math.isnan(iv[0]) or math.isnan(iv[1])


def decide_declared(p: Pair, margin: float = DEFAULT_MARGIN) -> Verdict:
    """Rules 1–6 against one comparator named before the data."""
    (lo, hi), (rl, rh) = p.ci, p.cost_ci

    def v(verdict: str, reason: str) -> Verdict:
        return Verdict(verdict, p.workflow, reason, p.ci, p.cost_ci)

    if _nan(p.ci):
        return v("inconclusive", "too few instances for an interval")
    if hi < 0:
        return v("workflow", "the workflow is significantly more successful")
    if lo > 0:
        return v("agent", "the agent is significantly more successful")
    if hi < margin and rh < 1:
        return v("workflow", f"the workflow is no worse than {margin:.2f} and significantly cheaper")
    if lo > -margin and rl > 1:
        return v("agent", f"the agent is no worse than {margin:.2f} and significantly cheaper")
    cheaper = rh < 1 or rl > 1
    if -margin < p.ci90[0] and p.ci90[1] < margin and not cheaper:
        return v("either", f"equivalent within ±{margin:.2f} (90% interval), and neither is significantly cheaper")
    return v("inconclusive", _why_not(cheaper, margin))


def _why_not(cheaper: bool, margin: float) -> str:
    if cheaper:
        return f"one is significantly cheaper, but not shown to be no worse than {margin:.2f}"
    return f"no significant difference, and not shown equivalent within ±{margin:.2f}"


def best_workflow(pairs: list[Pair], costs: dict[str, float]) -> Pair:
    """The workflow with the highest measured success (lowest agent - workflow), then the lowest cost."""
    def key(p: Pair) -> tuple[float, float, str]:
        cost = costs.get(p.workflow, math.nan)
        return p.diff, math.inf if math.isnan(cost) else cost, p.workflow

    return min(pairs, key=key)


def decide_selected(pairs: list[Pair], best: Pair, margin: float = DEFAULT_MARGIN) -> Verdict:
    """Rules 1–6 against the best of several workflows, selection-proof (module docstring)."""
    span = (min(p.ci[0] for p in pairs), min(p.sim[1] for p in pairs))
    if any(_nan(p.ci) for p in pairs):
        return Verdict("inconclusive", best.workflow, "too few instances for an interval", span, best.cost_ci)

    def v(verdict: str, reason: str, p: Pair = best) -> Verdict:
        return Verdict(verdict, p.workflow, reason, span, p.cost_ci if p is best else p.cost_sim)

    beats = sorted((p for p in pairs if p.sim[1] < 0), key=lambda p: p.diff)
    if beats:
        return v("workflow", "a workflow is significantly more successful (simultaneous interval)", beats[0])
    if all(p.ci[0] > 0 for p in pairs):
        return v("agent", "the agent is significantly more successful than every workflow")
    cheap = sorted((p for p in pairs if p.sim[1] < margin and p.cost_sim[1] < 1), key=lambda p: p.diff)
    if cheap:
        return v("workflow", f"a workflow is no worse than {margin:.2f} and significantly cheaper (simultaneous "
                             "intervals)", cheap[0])
    if all(p.ci[0] > -margin and (p.ci[0] > 0 or p.cost_ci[0] > 1) for p in pairs):
        return v("agent", f"the agent is no worse than {margin:.2f} than every workflow, and each one it does not "
                          "beat costs significantly more")
    cheaper = best.cost_ci[1] < 1 or best.cost_ci[0] > 1
    equivalent = all(p.ci90[0] > -margin for p in pairs) and any(p.sim90[1] < margin for p in pairs)
    if equivalent and not cheaper:
        return v("either", f"equivalent to the best workflow within ±{margin:.2f} (90% interval), and neither is "
                           "significantly cheaper")
    return v("inconclusive", _why_not(cheaper, margin))
