"""The report's charts, one small module per chart or two; every one a PNG drawn with the Agg backend.

`draw_all` draws them all into a results folder and returns the files in reading order.
`PATTERN_COLOURS` is the one colour table: the same pattern has the same colour in every chart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.report.charts.style import PATTERN_COLOURS, PATTERN_MARKERS

__all__ = ["PATTERN_COLOURS", "PATTERN_MARKERS", "draw_all"]


def draw_all(out: Path, runs: pd.DataFrame, events: Any, criterion: pd.DataFrame, manifest: dict[str, Any],
             sweep: pd.DataFrame | None = None, *, caveat: str | None = None) -> dict[str, Path]:
    """Every chart, keyed by a short name (`cost`, `latency`, …, `graph:<task>`), in reading order.

    `caveat`, when given, is printed under every chart (the simulator on a user's own dataset); otherwise a run
    on the simulator (or a replay of its or an oracle's recording) says so under every chart."""
    from benchmarks.report.charts.style import CAVEAT, NOTE, SIMULATED
    from benchmarks.report.origin import origin_of

    note = origin_of(runs, manifest).chart_note  # the simulator, or a replay of its or an oracle's recording
    token, simulated, noted = CAVEAT.set(caveat), SIMULATED.set(note is not None), NOTE.set(note or "")
    try:
        return _draw_all(out, runs, events, criterion, manifest, sweep)
    finally:
        NOTE.reset(noted)
        SIMULATED.reset(simulated)
        CAVEAT.reset(token)


def _draw_all(out: Path, runs: pd.DataFrame, events: Any, criterion: pd.DataFrame,
              manifest: dict[str, Any], sweep: pd.DataFrame | None) -> dict[str, Path]:
    from benchmarks.criterion.drawability import learning_curve
    from benchmarks.criterion.drawability.walks import rounds_by_run, walks_of_runs
    from benchmarks.criterion.families import task_specs, workflow_graph
    from benchmarks.harness.summary import summarise
    from benchmarks.report.charts.criterion_map import criterion_map
    from benchmarks.report.charts.curves import context_chart, pass_k_chart
    from benchmarks.report.charts.distributions import steps_chart, terminals_chart
    from benchmarks.report.charts.drawn import drawn_chart
    from benchmarks.report.charts.graphs import graphs_chart
    from benchmarks.report.charts.learning import learning_chart
    from benchmarks.report.charts.tradeoff import cost_chart, latency_chart

    order = {t: i for i, t in enumerate(dict.fromkeys(runs["task"]))}  # the bench's task order, in every chart
    summary = summarise(runs).sort_values("task", key=lambda s: s.map(order), kind="stable")
    charts = {
        "cost": cost_chart(summary, out), "latency": latency_chart(summary, out), "steps": steps_chart(runs, out),
        "context": context_chart(events, runs, out), "terminals": terminals_chart(runs, out),
        "map": criterion_map(criterion, out, sweep), "pass_k": pass_k_chart(runs, out),
    }
    if sweep is not None and not sweep.empty:
        from benchmarks.report.charts.verdict_map import verdict_map

        charts["verdict_map"] = verdict_map(sweep, out)
    rounds = rounds_by_run(events)
    specs = task_specs(manifest)
    seed = int(manifest.get("seed", 0) or 0)
    agents = runs[runs["pattern"] == "agent"]
    walks = {str(t): walks_of_runs(g, rounds) for t, g in agents.groupby("task", sort=False)} if rounds else {}
    from benchmarks.criterion.repeats_runs import repeated_walks  # drawability's walks: repeats/ when it ran

    walks |= repeated_walks(out, manifest)  # the learning curve and the drawn graph read what drawability reads
    curves = {t: learning_curve(w, seed=seed) for t, w in walks.items()}
    if any(curves.values()):
        charts["learning"] = learning_chart(curves, out)
    for row in criterion.itertuples():
        if not row.comparator:
            continue
        agent_ids = agents.loc[agents["task"] == row.task, "run_id"].astype(str)
        fixed = workflow_graph(specs.get(row.task, row.task), row.comparator, seed)
        charts[f"graph:{row.task}"] = graphs_chart(row.task, row.comparator, fixed,
                                                   [rounds.get(rid, []) for rid in agent_ids], out)
        drawn = drawn_chart(row.task, walks.get(row.task, {}), out, seed)
        if drawn is not None:
            charts[f"drawn:{row.task}"], charts[f"drawn_json:{row.task}"] = drawn
    return charts
