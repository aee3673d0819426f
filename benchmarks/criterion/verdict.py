"""The verdict: `workflow`, `agent`, `either` or `inconclusive` — the rule of `benchmarks.criterion.rule` applied to
the comparisons of `benchmarks.criterion.comparison`, with the reason in words.

Margins: δ on success (default 0.05: five points, a difference most teams would trade for a clearly lower
bill, and small enough that "no worse than δ" still means no worse in practice) and a cost margin (default
0.10: the cheaper side must cost at most 90% of the other, so a significant but trivial saving — 3% — does
not decide). With a value per success (USD) the rule compares net value per trial instead, success × value
− cost, with δ × value as its equivalence margin.

Against a *declared* comparator (one workflow named before the data: the family's or `--comparator`) the
rule reads one-at-a-time intervals. Against the *selected* best workflow every claim holds whichever
workflow is best: the agent must beat every workflow (each interval: intersection–union), a workflow must
win on its *simultaneous* interval (max-T). The interval reported for "agent − best workflow" is then
[min_j lower_j, min_j simultaneous upper_j]; a claim that names one workflow shows the simultaneous
interval it read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from benchmarks.criterion import rule
from benchmarks.criterion.bounds import Bounds
from benchmarks.criterion.comparison import Pair
from benchmarks.names import DEFAULT_COST_MARGIN, DEFAULT_MARGIN, DRAWN, PATTERNS


@dataclass(frozen=True)
class Options:
    """How a verdict is reached: the margins, the comparator ("declared", "selected" or a workflow's name;
    None = declared) and an optional value of one success in USD."""

    margin: float = DEFAULT_MARGIN
    comparator: str | None = None
    cost_margin: float = DEFAULT_COST_MARGIN
    value_per_success: float | None = None


DEFAULTS = Options()


@dataclass(frozen=True)
class Verdict:
    verdict: str  # workflow | agent | either | inconclusive
    comparator: str  # the workflow the verdict is about
    reason: str  # what decided it, in words
    diff_ci: tuple[float, float]  # the interval on agent - comparator the rule read (success, or net value)
    cost_ci: tuple[float, float]  # and on the cost ratio comparator / agent
    code: int = rule.INCONCLUSIVE  # which branch of the rule decided (benchmarks.criterion.rule)


def check_margin(margin: float) -> float:
    if not (isinstance(margin, float | int) and 0 < margin < 0.5):
        raise ValueError(f"--margin must be a number between 0 and 0.5 (a share of success), not {margin!r}")
    return float(margin)


def check_comparator(name: str | None) -> str | None:
    """None / "declared" / "selected" / a workflow pattern's name / "drawn" (the graph drawn from the agent's
    walks) / a workflow design's name (`route:ladder`, `file.py:function`); anything else is a ValueError."""
    flows = [p for p in PATTERNS if p != "agent"] + [DRAWN]
    if name is None or name in ("declared", "selected", *flows):
        return name
    if ":" in name and not name.startswith("agent:"):  # a variant or a user's design: the runs say if it ran
        return name
    raise ValueError(f"--comparator must be declared, selected or a workflow ({', '.join(flows)}, or a "
                     f"design such as route:ladder), not {name!r}")


def check_cost_margin(margin: float) -> float:
    if not (isinstance(margin, float | int) and 0 <= margin < 1):
        raise ValueError(f"--cost-margin must be a number from 0 to below 1 (a share of cost), not {margin!r}")
    return float(margin)


def check_value(value: float | None) -> float | None:
    if value is not None and not (isinstance(value, float | int) and 0 < value < math.inf):
        raise ValueError(f"--value-per-success must be a positive number of USD, not {value!r}")
    return None if value is None else float(value)


def bounds_of(pairs: list[Pair]) -> Bounds:
    """The rule's input from finished comparisons, arrays `(1, m)`."""
    def col(get: object) -> np.ndarray:
        return np.array([[get(p) for p in pairs]], dtype=float)  # type: ignore[operator]

    return Bounds(
        diff=col(lambda p: p.diff), se=col(lambda p: p.se), n=col(lambda p: p.instances),
        win_lo=col(lambda p: p.ci[0]), win_hi=col(lambda p: p.ci[1]), win_sim_lo=col(lambda p: p.sim[0]),
        win_sim_hi=col(lambda p: p.sim[1]), eq_lo=col(lambda p: p.ci90[0]), eq_hi=col(lambda p: p.ci90[1]),
        eq_sim_lo=col(lambda p: p.sim90[0]), eq_sim_hi=col(lambda p: p.sim90[1]), ratio=col(lambda p: p.cost_ratio),
        cost_lo=col(lambda p: p.cost_ci[0]), cost_hi=col(lambda p: p.cost_ci[1]),
        cost_sim_lo=col(lambda p: p.cost_sim[0]), cost_sim_hi=col(lambda p: p.cost_sim[1]))


def best_workflow(pairs: list[Pair], costs: dict[str, float]) -> Pair:
    """The workflow with the highest measured success (lowest agent - workflow), then the lowest cost."""
    def key(p: Pair) -> tuple[float, float, str]:
        cost = costs.get(p.workflow, math.nan)
        return (math.inf if math.isnan(p.diff) else p.diff), math.inf if math.isnan(cost) else cost, p.workflow

    return min(pairs, key=key)


def decide_declared(p: Pair, margin: float = DEFAULT_MARGIN, cost_margin: float = DEFAULT_COST_MARGIN,
                    value: float | None = None) -> Verdict:
    """The rule against one comparator named before the data (`p` on net value when `value` is set).

    One comparison, so nothing is selected: every claim reads the one-at-a-time intervals. `p` may come from a
    comparison with every workflow, whose simultaneous intervals are built for choosing among them; the rule
    reads them for a workflow's claims, so they are set to the one-at-a-time ones here."""
    p = replace(p, sim=p.ci, sim90=p.ci90, cost_sim=p.cost_ci)
    code = int(rule.decide(bounds_of([p]), margin, cost_margin)[0][0])
    return Verdict(rule.VERDICT[code], p.workflow, reason(code, margin, cost_margin, value, False, p),
                   p.ci, p.cost_ci, code)


def decide_selected(pairs: list[Pair], best: Pair, margin: float = DEFAULT_MARGIN,
                    cost_margin: float = DEFAULT_COST_MARGIN, value: float | None = None) -> Verdict:
    """The rule against the best of several workflows, selection-proof (module docstring)."""
    codes, which = rule.decide(bounds_of(pairs), margin, cost_margin)
    code, j = int(codes[0]), int(which[0])
    named = pairs[j] if j >= 0 else best
    # a claim about one workflow shows the simultaneous intervals it read; else "agent − best workflow"
    span = named.sim if j >= 0 else (min(p.ci[0] for p in pairs), min(p.sim[1] for p in pairs))
    cost = named.cost_sim if j >= 0 else named.cost_ci
    return Verdict(rule.VERDICT[code], named.workflow, reason(code, margin, cost_margin, value, True, named),
                   span, cost, code)


def reason(code: int, margin: float, cost_margin: float, value: float | None, selected: bool, p: Pair) -> str:
    """What decided the verdict, in words."""
    if value is not None:  # margin is then in USD of net value per trial
        return _value_reason(code, margin)
    sim = " (simultaneous intervals)" if selected else ""
    cheaper = f"at least {cost_margin:.0%} cheaper"
    flow = "a workflow" if selected else "the workflow"
    return {
        rule.TOO_FEW: "too few instances for an interval",
        rule.WORKFLOW_BETTER: f"{flow} is significantly more successful{sim}",
        rule.AGENT_BETTER: "the agent is significantly more successful" + (" than every workflow" if selected else ""),
        rule.WORKFLOW_CHEAPER: f"{flow} is no worse than {margin:.2f} and {cheaper}{sim}",
        rule.AGENT_CHEAPER: (f"the agent is no worse than {margin:.2f} than every workflow, and each one it does not "
                             f"beat costs at least {cost_margin:.0%} more") if selected else
        f"the agent is no worse than {margin:.2f} and {cheaper}",
        rule.EITHER: f"equivalent within ±{margin:.2f} (90% interval), and neither is shown {cheaper}",
    }.get(code, _why_not(p, margin, cost_margin))


def _why_not(p: Pair, margin: float, cost_margin: float) -> str:
    lo, hi = p.cost_ci
    side = "the workflow" if hi < 1 - cost_margin else "the agent" if lo > 1 / (1 - cost_margin) else None
    if side:
        return f"{side} is at least {cost_margin:.0%} cheaper, but not shown to be no worse than {margin:.2f}"
    return f"no significant difference, and not shown equivalent within ±{margin:.2f}"


def _value_reason(code: int, usd: float) -> str:
    return {
        rule.TOO_FEW: "too few instances for an interval",
        rule.WORKFLOW_BETTER: "the workflow's net value per trial (success × value − cost) is significantly higher",
        rule.AGENT_BETTER: "the agent's net value per trial (success × value − cost) is significantly higher",
        rule.EITHER: f"net values per trial equivalent within ±${usd:.4g} (90% interval)",
    }.get(code, f"no significant difference in net value per trial, and not shown equivalent within ±${usd:.4g}")
