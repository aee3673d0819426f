"""The one place a criterion row becomes text.

The terminal (`wva criterion`, `wva bench`), the report and the sweep all render rows through these
functions, so a number reads the same wherever a user meets it: a success difference as
`+0.05 [-0.02, +0.12]`, a ratio as `0.61×`, a rate as `73%`, an unknown as `n/a`. `cells` gives every
field of a row as text; the other functions lay those cells out as a line, a sentence, a table or a
paragraph. A row is a mapping or a pandas row tuple (`itertuples`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import pandas as pd

from benchmarks.criterion import render_readings as rr

NA = "n/a"


def _known(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x)) and x is not pd.NA


def pct(x: Any) -> str:
    return f"{x:.0%}" if _known(x) else NA


def times(x: Any) -> str:
    return f"{x:.2f}×" if _known(x) else NA


def num(x: Any, fmt: str) -> str:
    return format(x, fmt) if _known(x) else NA


def interval(estimate: Any, low: Any, high: Any, fmt: str) -> str:
    """`estimate [low, high]`, or `n/a` when there is no estimate."""
    if not _known(estimate):
        return NA
    return f"{format(estimate, fmt)} [{num(low, fmt)}, {num(high, fmt)}]"


def _get(row: Any, name: str, default: Any = None) -> Any:
    value = row.get(name, default) if isinstance(row, dict) else getattr(row, name, default)
    return default if value is None else value


@dataclass(frozen=True)
class Cells:
    """Every field of a criterion row a reader sees, as text."""

    task: str
    verdict: str
    comparator: str
    instances: str
    agent: str
    workflow: str
    diff: str  # agent − comparator with the interval the rule read
    diff_level: str
    cost: str  # comparator cost / agent cost with its interval ("unknown" when a cost is)
    cost_ratio: str
    cost_ci: str
    latency: str
    steps: str
    drawability: str  # with its 95% interval
    drawing: str  # the drawn graph's size: "3 nodes, 5 edges, 1 loop; at most 3 ways on from a later step"
    prediction: str
    agrees: str  # "agrees" / "DISAGREES" / "n/a"
    price: str  # the price of the extra success, a clause ("" when there is none)
    value: str  # net value per trial, a clause ("" when not priced)
    reason: str
    claim: str  # a winner's claim p-value ("no claim" for either / inconclusive)
    seeds: str  # with replicates: the pooled verdict and how many seeds' own verdicts agree ("-" without)
    familywise: str  # the verdict under Holm over the table's tasks
    other: str  # the other comparator's reading
    compared: bool  # False: the row has no comparison (no comparator, or nothing ran)


def cells(row: Any) -> Cells:
    g = lambda name, default=math.nan: _get(row, name, default)  # noqa: E731
    agrees = g("agrees", None)
    agrees_text = NA if not _known(agrees) else ("agrees" if bool(agrees) else "DISAGREES")
    level = g("diff_level")
    return Cells(
        task=str(g("task", "")), verdict=str(g("verdict", "")), comparator=str(g("comparator", "") or ""),
        instances=num(g("instances"), ".0f"), agent=pct(g("agent_success")), workflow=pct(g("workflow_success")),
        diff=interval(g("success_diff"), g("diff_ci_low"), g("diff_ci_high"), "+.2f"),
        diff_level=f"{level:.1%}" if _known(level) else NA,
        cost=(f"{times(g('cost_ratio'))} [{num(g('cost_ci_low'), '.2f')}, {num(g('cost_ci_high'), '.2f')}]"
              if _known(g("cost_ratio")) else "unknown"),
        cost_ratio=times(g("cost_ratio")),
        cost_ci=f"[{num(g('cost_ci_low'), '.2f')}, {num(g('cost_ci_high'), '.2f')}]",
        latency=times(g("latency_ratio")), steps=times(g("steps_ratio")),
        drawability=interval(g("drawability"), g("drawability_ci_low"), g("drawability_ci_high"), ".2f"),
        drawing=drawing_text(row),
        prediction=str(g("chapter_prediction", "") or NA), agrees=agrees_text,
        price=price_clause(row), value=_value_clause(row), reason=str(g("reason", "") or ""),
        claim=rr.claim_text(row), seeds=rr.seeds_text(row), familywise=rr.familywise_text(row),
        other=rr.other_text(row),
        compared=bool(g("comparator", "")) and _known(g("success_diff")),
    )


def _count(n: Any, what: str) -> str:
    return f"{int(n)} {what}{'' if int(n) == 1 else 's'}"


def drawing_text(row: Any) -> str:
    """The size of the graph drawn from the agent's walks, in words ("" when none was drawn)."""
    nodes = _get(row, "graph_nodes", math.nan)
    if not _known(nodes):
        return ""
    parts = [_count(nodes, "node"), _count(_get(row, "graph_edges"), "edge"), _count(_get(row, "graph_loops"), "loop")]
    routes, cycles = _get(row, "graph_routes", math.nan), _get(row, "graph_revisited", math.nan)
    if _known(cycles) and cycles:
        parts.append(f"{_count(cycles, 'node')} revisited")
    if _known(routes) and routes > 1:
        parts.append(f"{int(routes)} routes from the start")
    dispatches = _get(row, "graph_dispatches", math.nan)
    if _known(dispatches) and dispatches:
        parts.append(f"{_count(dispatches, 'rule')} by which code decides")
    return f"{', '.join(parts)}; at most {_get(row, 'graph_cap', math.nan):.0f} ways on from a later step"


def price_clause(row: Any) -> str:
    """The price of the extra success in words, or "" when the more successful side is not costlier."""
    side = _get(row, "price_side", "")
    if not isinstance(side, str) or not side or not _known(_get(row, "price_per_success", math.nan)):
        return ""
    from benchmarks.criterion.tradeoff import Price

    return Price(side, _get(row, "price_extra_success"), _get(row, "price_cost_times"),
                 _get(row, "price_per_success"), _get(row, "price_ci_low"), _get(row, "price_ci_high")).text()


def _value_clause(row: Any) -> str:
    diff = _get(row, "value_diff", math.nan)
    if not _known(diff):
        return ""
    return (f"net value per trial at ${_get(row, 'value_per_success'):g} a success, agent − "
            f"{_get(row, 'comparator')}: ${diff:+.4g} [{_get(row, 'value_ci_low'):+.4g}, "
            f"{_get(row, 'value_ci_high'):+.4g}]")


def note(row: Any) -> str:
    """One plain sentence: what decided the verdict, the numbers behind it (the paired estimates and the
    intervals the rule read), the price of an extra success, and for an inconclusive task where to go next."""
    c = cells(row)
    cost = "cost unknown" if c.cost == "unknown" else f"the workflow costs {c.cost_ratio} the agent {c.cost_ci}"
    text = (f"{c.reason}: agent − {c.comparator} = {c.diff} ({c.diff_level} interval) over {c.instances} "
            f"instances; {cost}")
    text += "".join(f"; {clause}" for clause in (c.price and f"the price of the extra success — {c.price}", c.value)
                    if clause)
    if c.verdict == "inconclusive":
        text += "; 'wva plan' on this folder says how many instances would settle it"
    return text


def verdict_line(row: Any) -> str:
    """One line per task: the verdict, the numbers behind it, and whether the chapter's rule agrees."""
    c = cells(row)
    if not c.compared:
        return f"  {c.task}: {c.verdict} ({_get(row, 'note', '')})"
    if c.verdict == "withheld":  # refused trials, or a task file on sim (criterion.withheld): never a winner
        return (f"  {c.task}: WITHHELD — {c.comparator} {c.workflow} vs agent {c.agent}, no winner named"
                f"\n    {_get(row, 'reason', '')}")
    line = (f"  {c.task}: {c.verdict.upper()} — {c.comparator} {c.workflow} vs agent {c.agent} (diff {c.diff}), "
            f"cost ×{num(_get(row, 'cost_ratio', math.nan), '.2f')}, latency ×"
            f"{num(_get(row, 'latency_ratio', math.nan), '.2f')}; drawability "
            f"{num(_get(row, 'drawability', math.nan), '.2f')} → chapter predicts {c.prediction}: {c.agrees}")
    seeds = f"; seeds: {c.seeds}" if c.seeds != "-" else ""
    line += f"\n    claim p {c.claim}{seeds}; familywise {c.familywise}" + (
        f"; other comparator's reading: {c.other}" if c.other != "-" else "")
    return line + (f"\n    the price of the extra success — {c.price}" if c.price else "")


def format_verdicts(df: pd.DataFrame) -> str:
    return "\n".join(["criterion (agent vs the comparator workflow, per task):",
                      *(verdict_line(r) for r in df.itertuples())])


COLUMNS = (("task", "task"), ("drawability", "drawability [95% CI]"), ("comparator", "comparator"),
           ("agent", "agent"), ("workflow", "workflow"), ("diff", "agent − workflow [CI the rule read]"),
           ("cost", "cost ratio workflow ÷ agent [95% CI]"), ("latency", "latency workflow ÷ agent"),
           ("steps", "steps workflow ÷ agent"),
           ("verdict", "verdict"), ("claim", "claim p"), ("seeds", "seeds"), ("familywise", "familywise (Holm)"),
           ("other", "other comparator's reading"), ("prediction", "chapter predicts"), ("agrees", "agrees"))


def table(df: pd.DataFrame, markdown: bool = False) -> str:
    """The criterion as a table: aligned columns for a terminal, or a Markdown table for a report."""
    rows = [[getattr(cells(r), name) or "-" for name, _ in COLUMNS] for r in df.itertuples()]
    heads = [head for _, head in COLUMNS]
    if markdown:
        verdict = [name for name, _ in COLUMNS].index("verdict")
        for row in rows:
            row[verdict] = f"**{row[verdict]}**"
        return "\n".join(["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads),
                          *("| " + " | ".join(row) + " |" for row in rows)])
    widths = [max(len(x) for x in col) for col in zip(heads, *rows, strict=False)]
    return "\n".join("  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
                     for row in [heads, *rows])


def flips_of(sweep: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """(value before, value after, verdict before, verdict after) wherever the verdict changes along a sweep."""
    rows = list(sweep.itertuples())
    return [(a.value, b.value, a.verdict, b.verdict) for a, b in pairwise(rows) if a.verdict != b.verdict]


def setting_line(row: Any, where: str) -> str:
    """One setting of a sweep: where it is, its verdict, and the numbers behind it."""
    c = cells(row)
    return (f"{where}: {c.verdict} (drawability {num(_get(row, 'drawability', math.nan), '.2f')}, "
            f"agent − {c.comparator} {c.diff}, cost ×{num(_get(row, 'cost_ratio', math.nan), '.2f')})")


def flips_text(sweep: pd.DataFrame, grid: bool = False) -> str:
    """Every setting of a sweep, then where its verdict flips (a grid's flips are read off its map)."""
    if sweep.empty:
        return "no settings ran"
    param = sweep["param"].iloc[0]

    def where(r: Any) -> str:
        return f"{param}={r.value}" + (f", {r.by}={r.by_value}" if grid else "")

    lines = [setting_line(r, where(r)) for r in sweep.itertuples()]
    if grid:
        return "\n".join(lines)
    flips = flips_of(sweep)
    if not flips:
        lines.append(f"the verdict does not flip: {sweep['verdict'].iloc[0]} at every setting")
    lines += [f"the verdict flips from {v1} to {v2} between {param}={a} and {param}={b}" for a, b, v1, v2 in flips]
    return "\n".join(lines)


def method_text(margin: float, cost_margin: float, value: float | None = None) -> str:
    """The verdict rule in plain words (a report's method bullet)."""
    if value is not None:
        return (f"- **The verdict**, by net value per trial (success × ${value:g} − cost): `agent` or `workflow` "
                "when one side's net value is significantly higher (95% interval of the difference, a studentized "
                f"bootstrap of the instances); `either` when they are equivalent within ±${value * margin:.4g} (δ = "
                f"{margin:.2f} of success, priced; 90% interval inside); `inconclusive` otherwise.")
    return (f"- **The verdict**, with a success margin δ = {margin:.2f} and a cost margin of {cost_margin:.0%}: "
            "`workflow` if the workflow is significantly more successful (the 97.5% interval of agent − workflow "
            "below 0), or no worse than δ (the 90% interval's upper end below δ) and cheaper by at least the cost "
            f"margin (the 95% interval of the cost ratio workflow / agent below {1 - cost_margin:.2f}); `agent`, "
            "the mirror image; `either` if the two are equivalent within ±δ (the 90% interval inside); "
            "`inconclusive` otherwise (`wva plan` sizes a run that would settle it). The 5% error budget is "
            "split between the two ways to name a winner (2.5% for the success leg, 2.5% for the cost leg), so "
            "a wrong winner is named at most 5% of the time at any truth; being cheaper never makes a verdict "
            "weaker. When the more successful side is also significantly costlier, the price of each extra "
            "success is given with its interval.")


def drawability_text(threshold: float, d: int, cap: int) -> str:
    """Drawability and the chapter's prediction in plain words (a report's method bullet)."""
    return (f"- **Drawability** (can the graph be drawn in advance?): a graph is drawn from the agent's walks on {d} "
            "instances — a step is the set of tools one reply called, a step repeated in a row becomes a loop "
            "bounded by the longest repeat seen, a transition fewer than 5% of the walks took is dropped, and a step "
            f"keeps at most {cap} ways on (the first step, chosen from the input alone, may be any entry of a routing "
            "table) — and drawability is the share of the agent's walks on the *other* instances that the graph "
            "covers, averaged over many seeded drawing sets so that every instance is tested. It is defined at "
            f"{d} drawing instances, so more instances narrow its interval without moving it. Its 95% interval is a "
            "jackknife over instances (each instance's trials left out together: they agree with each other far "
            "more than with other instances'), checked by simulation to cover the truth at least 90% of the time.\n"
            f"- **The chapter's prediction**: `workflow` when drawability ≥ {threshold:g}, else `agent` — a line "
            "chosen from synthetic walks whose answer is known (fixed paths with retries, bounded loops, branching, "
            "routing: drawable; walks whose next step depends on what the last found: not), never from these tasks; "
            "`either` agrees with both, `inconclusive` with neither. The comparison is a demonstration of the rule "
            "on these families, not a proof of it.")


def drawn_sentence(pair: Any) -> str:
    """The drawn comparator's row of `criterion_pairs.csv` in words: the graph drawn from the agent's walks,
    run as a workflow on the instances it was not drawn from."""
    g = lambda name: _get(pair, name, math.nan)  # noqa: E731
    cost = (f"costs {times(g('cost_ratio'))} [{num(g('cost_ci_low'), '.2f')}, {num(g('cost_ci_high'), '.2f')}] the "
            "agent" if _known(g("cost_ratio")) else "costs an unknown amount")
    diff = interval(g("success_diff"), g("diff_ci_low"), g("diff_ci_high"), "+.2f")
    return (f"The graph drawn from the agent's walks, run as a workflow on the {num(g('instances'), '.0f')} instances "
            f"it was not drawn from, succeeded in {pct(g('workflow_success'))} against the agent's "
            f"{pct(g('agent_success'))} there (agent − drawn {diff}, 97.5% interval) and {cost} (95% interval); "
            "`--comparator drawn` gives its verdict.")
