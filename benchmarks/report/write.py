"""`REPORT.md`: the charts embedded (relative paths) and, per task, what was measured and the verdict.

Every sentence is computed from the folder's files; nothing in it is written by hand, so a new run
gives a new report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion import render
from benchmarks.criterion.drawability import CAP, THRESHOLD, D
from benchmarks.criterion.read import counted, load_inputs, sim_caveat, sim_dataset_tasks
from benchmarks.criterion.repeats_runs import readable
from benchmarks.criterion.table import PAIRS, write_criterion
from benchmarks.criterion.verdict import DEFAULT_COST_MARGIN, DEFAULT_MARGIN
from benchmarks.harness.atomic import write_text_atomic
from benchmarks.names import DRAWN
from benchmarks.report.cache_costs import cache_section
from benchmarks.report.drawability_text import drawability_sentence, drawn_caption, walks_note
from benchmarks.report.origin import origin_of
from benchmarks.report.run_facts import batch_note, errors_section, totals_section

NAME = "REPORT.md"
CAPTIONS = {
    "cost": ("Cost against success", "Mean cost per trial (USD, log scale) against success rate with its 95% "
             "interval (clustered by instance), one panel per task; ringed points joined by the dashed line "
             "are the Pareto front."),
    "latency": ("Latency against success", "The same against the median latency per trial (seconds)."),
    "steps": ("Steps per trial", "Model calls per trial, by pattern. A workflow's count varies only where its graph "
              "has a bounded loop, a retry or a fan-out sized by the input (a declared chain that checks and redoes "
              "varies too); the agent's spread shows how unpredictable the task is."),
    "context": ("The agent's growing context", "Prompt tokens (input + cache) of each model call against its "
                "position in the run: the agent re-sends its whole history, a workflow's steps start fresh."),
    "terminals": ("How trials ended", "Terminal reason per pattern; a completed run is split by its grade. An "
                  "\"error\" is a pattern stopping by its own rules (a failed gate, a malformed plan) or the "
                  "infrastructure failing: the Errors section counts which."),
    "map": ("The criterion map", "Drawability (x, 95% CI: the share of unseen instances' agent walks that a graph "
            "drawn from ten others covers) against the agent's success advantage over the comparator workflow (y, "
            "the 97.5% CI the verdict reads); point area = cost ratio. Shaded: where the chapter's rule expects a "
            "point."),
    "learning": ("The learning curve", "Drawability (95% CI) against the number of instances the graph is drawn "
                 "from: how many examples it takes before the agent's graph can be drawn. Dotted: the chapter's "
                 "threshold; dashed: the number of drawing instances the criterion reads. Under each d, the unseen "
                 "instances left to test the graph on: the fewer they are, the wider the interval."),
    "pass_k": ("pass^k", "The chance that k repeated trials of the same instance all succeed, k = 1…K, with its "
               "95% interval clustered by instance (an instance's unbiased pass^k is the unit)."),
    "verdict_map": ("The verdict map", "The sweep's verdict at each setting of its one or two axes (task parameters "
                    "or SimModel knobs), with agent − workflow success: under which assumptions the agent pays off."),
}


def model_paragraph(manifest: dict[str, Any], runs: pd.DataFrame) -> str:
    """Who produced the figures and how many there are — from the rows themselves; where the manifest says
    otherwise, a note says so (the rows are what the figures are computed from)."""
    models = sorted(runs["model"].astype(str).unique()) if "model" in runs else ["unknown"]
    seeds = sorted(str(s) for s in runs["seed"].unique()) if "seed" in runs else ["?"]
    model = models[0] if len(models) == 1 else " and ".join(models)
    git = manifest.get("git") or {}
    when = manifest.get("finished", "an unrecorded time")
    commit = f" at commit `{str(git.get('commit'))[:10]}`{' (uncommitted changes)' if git.get('dirty') else ''}" \
        if git.get("commit") else ""
    text = (f"**Data.** Every number below was produced by the model `{model}` (seed {', '.join(seeds)}): "
            f"{runs['task'].nunique()} task(s), {runs['pattern'].nunique()} patterns, {counts_text(runs)}, "
            f"{len(runs)} trials in all, finished {when}{commit}.")
    text += origin_of(runs, manifest).sentence  # the simulator, a replay (of whose recording?) or a real model
    text += batch_note(manifest)  # --message-batches: latency is queue time
    caveat = sim_caveat(sim_dataset_tasks(runs, manifest))
    if caveat:
        text += f"\n\n**Not a measure of quality.** {caveat}."
    differ = disagreements(manifest, runs, models, seeds)
    if differ:
        text += (f"\n\n**Note:** `manifest.json` disagrees with `runs.csv` ({'; '.join(differ)}): every figure here "
                 "is computed from `runs.csv`.")
    return text


def counts_text(runs: pd.DataFrame) -> str:
    """`60 instances × 3 trials each`, counted from the rows (per task when the tasks differ)."""
    instances = runs.groupby("task", sort=False)["instance"].nunique()
    per = runs.groupby(["task", "pattern", "instance"]).size()
    trials = f"{per.min()}" if per.min() == per.max() else f"{per.min()}–{per.max()}"
    if instances.nunique() == 1:
        return f"{int(instances.iloc[0])} instances × {trials} trials each"
    return f"{', '.join(f'{t} {n}' for t, n in instances.items())} instances × {trials} trials each"


def disagreements(manifest: dict[str, Any], runs: pd.DataFrame, models: list[str], seeds: list[str]) -> list[str]:
    """Where the manifest's model, seed or counts are not the rows'."""
    if not manifest:
        return ["there is no manifest"]
    found = []
    if "model" in manifest and [str(manifest["model"])] != models:
        found.append(f"it names the model `{manifest['model']}`")
    if "seed" in manifest and [str(manifest["seed"])] != seeds:
        found.append(f"it names seed {manifest['seed']}")
    recorded = manifest.get("instances_run") or {}
    actual = runs.groupby("task")["instance"].nunique()
    wrong = [f"{t}: {n} instances" for t, n in recorded.items() if t in actual and int(actual[t]) != int(n)]
    if wrong:
        found.append(f"it records {', '.join(wrong)}")
    if "trials_total" in manifest and int(manifest["trials_total"]) != len(runs):
        found.append(f"it records {manifest['trials_total']} trials")
    return found


def task_paragraph(r: Any, drawn: Any = None, walks: str = "") -> str:
    """A task's paragraph; `drawn`: its drawn comparator's row of criterion_pairs.csv, when it ran; `walks`: where
    drawability's walks came from, when not from the folder itself (`walks_note`)."""
    c = render.cells(r)
    if not c.compared:
        return f"### {r.task}\n\nNo comparison: {r.note}."
    agree = {"agrees": "the data **agree**", "DISAGREES": "the data **disagree**"}.get(
        c.agrees, "an inconclusive verdict neither confirms nor refutes it")
    needed = (f" The price of the extra success — {c.price}." if c.price else "") + (
        " `wva plan` on this folder says how many instances would settle it." if c.verdict == "inconclusive" else "")
    return "\n".join([
        f"### {r.task}", "",
        f"Compared with `{c.comparator}` ({r.comparator_mode}) over {c.instances} instances: the workflow "
        f"succeeded in {c.workflow} of its {int(r.workflow_runs)} trials (95% CI "
        f"{render.pct(r.workflow_ci_low)}–{render.pct(r.workflow_ci_high)}, clustered by instance); the agent in "
        f"{c.agent} of {int(r.agent_runs)} ({render.pct(r.agent_ci_low)}–{render.pct(r.agent_ci_high)}). Agent "
        f"minus workflow: {c.diff} ({c.diff_level} interval). Per trial the workflow costs {c.cost_ratio} the "
        f"agent (95% CI {c.cost_ci}), its median latency is {c.latency} the agent's, and it takes {c.steps} its "
        f"steps. On the cost–success Pareto front: {', '.join(f'`{p}`' for p in str(r.pareto).split(';') if p)}.",
        "", drawability_sentence(r, c) + walks, *(["", render.drawn_sentence(drawn)] if drawn is not None else []),
        "",
        f"**Verdict: {c.verdict}** — {c.reason}.{needed} From drawability alone the chapter's rule predicts "
        f"*{c.prediction}*; {agree}.", *(["", render.rr.readings_sentence(r)] if render.rr.readings_sentence(r)
                                         else []),
    ])


def _read_pairs(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / PAIRS) if (out / PAIRS).exists() and (out / PAIRS).stat().st_size > 1 else pd.DataFrame()


def drawn_rows(pairs: pd.DataFrame) -> dict[str, Any]:
    """task -> the drawn comparator's row of criterion_pairs.csv (tasks where it ran)."""
    if pairs.empty or "workflow" not in pairs:
        return {}
    return {str(r.task): r for r in pairs[pairs["workflow"] == DRAWN].itertuples()}


def method_section(margin: float = DEFAULT_MARGIN, cost_margin: float = DEFAULT_COST_MARGIN,
                   value: float | None = None) -> str:
    return "\n".join([
        "## How the verdicts are reached", "",
        "- **The unit is the instance.** Every pattern ran the same instances; the trials of one instance are "
        "correlated (a hard instance tends to fail every trial), so every interval treats an instance's mean over "
        "its trials as one observation. A difference is the mean over instances of per-instance differences "
        "(paired, on the instances both ran), with the standard error sd / √instances and a t interval; the cost "
        "ratio's interval comes from a studentized bootstrap of the instances; a success rate's interval is Wilson's "
        "at the effective sample size this clustering leaves (between one observation per instance and one per "
        "trial). pass^k's interval is clustered the same way.",
        "- **The comparator** is the workflow the agent is compared with. When the task family declares the "
        "workflow it was designed around, that one, chosen before any data. Otherwise the best workflow, with "
        "selection-proof claims: the agent must beat *every* workflow to win, and a workflow must win on a "
        "*simultaneous* interval (max-T over all six) — so picking the best afterwards does not inflate its "
        "chances. `criterion_pairs.csv` lists the agent against every workflow with both kinds of interval.",
        render.method_text(margin, cost_margin, value), render.rr.readings_method(),
        render.drawability_text(THRESHOLD, D, CAP),
    ])


def _agreement(value: Any) -> str:
    if pd.isna(value):
        return "no verdict to compare"
    return "agrees" if str(value).lower() in ("true", "1") else "**disagrees**"


def overall(df: pd.DataFrame) -> str:
    """One sentence: how often the measured verdict agreed with the chapter's prediction."""
    known = df["agrees"].dropna()
    yes = int(known.astype(bool).sum())
    missed = [r.task for r in df.itertuples() if not pd.isna(r.agrees) and not bool(r.agrees)]
    text = (f"The measured verdict agrees with the chapter's prediction on {yes} of {len(known)} task(s) with a "
            f"verdict to compare")
    text += f"; it disagrees on {', '.join(missed)}." if missed else "."
    if len(known) < len(df):
        text += f" {len(df) - len(known)} task(s) were inconclusive."
    return text


def sweep_section(sweep: pd.DataFrame) -> str:
    param = sweep["param"].iloc[0]
    lines = ["## The sweep", "", f"One task moved along `{param}`: one criterion row per setting (`sweep.csv`), "
             "plotted as diamonds on the criterion map.", ""]
    lines += [f"- {render.setting_line(r, f'`{param}={r.value}`')}; the chapter's rule predicts "
              f"*{r.chapter_prediction}* ({_agreement(r.agrees)})" for r in sweep.itertuples()]
    flips = render.flips_of(sweep)
    if flips:
        lines += ["", "; ".join(f"The verdict flips from {a} to {b} between `{param}={x}` and `{param}={y}`"
                                for x, y, a, b in flips) + "."]
    else:
        lines += ["", f"The verdict is {sweep['verdict'].iloc[0]} at every setting."]
    fw = render.rr.familywise_sweep(sweep)  # every setting a chance of a false winner: Holm over all of them
    return "\n".join([*lines, *(["", fw] if fw else []), ""])


def find_sweep(out: Path) -> pd.DataFrame | None:
    for path in (out / "sweep.csv", out / "sweep" / "sweep.csv"):
        if path.exists():
            df = pd.read_csv(path, dtype={"value": str})
            return df if not df.empty else None
    return None


def write_report(out_dir: str | Path, criterion: pd.DataFrame | None = None,
                 pairs: pd.DataFrame | None = None) -> list[Path]:
    """criterion.csv, every chart and REPORT.md, written into the folder; returns the files written."""
    from benchmarks.report.charts import draw_all

    out = Path(out_dir)
    runs, events, manifest = load_inputs(out, keep_refused=True)  # the run's facts count every trial
    df = write_criterion(out, criterion, pairs=pairs)
    margin = float(df["margin"].dropna().iloc[0]) if df["margin"].notna().any() else DEFAULT_MARGIN
    known = {k: df[k].dropna() for k in ("cost_margin", "value_per_success")}
    cost_margin = float(known["cost_margin"].iloc[0]) if len(known["cost_margin"]) else DEFAULT_COST_MARGIN
    value = float(known["value_per_success"].iloc[0]) if len(known["value_per_success"]) else None
    sweep = find_sweep(out)
    caveat = sim_caveat(sim_dataset_tasks(runs, manifest))
    charts = draw_all(out, counted(runs), events, df, manifest, sweep, caveat=caveat)  # figures: no refused trial
    parts = ["# Workflow or agent? — benchmark report", "", model_paragraph(manifest, runs), "",
             "## Verdicts", "", render.table(df, markdown=True), "", overall(df),
             render.rr.familywise_line(df), "",
             method_section(margin, cost_margin, value), "",
             "## Per task", ""]
    drawn = drawn_rows(pairs if pairs is not None else _read_pairs(out))
    note = walks_note(manifest, readable(out, manifest))
    parts += [task_paragraph(r, drawn.get(str(r.task)), note) + "\n" for r in df.itertuples()]
    parts += looks_section(manifest)  # a sweep run with --until-decided: where each task stopped
    if sweep is not None:
        parts.append(sweep_section(sweep))
    parts += errors_section(runs)  # why trials ended in error: as designed, or infrastructure
    parts += totals_section(out, manifest.get("model"), origin_of(runs, manifest).modelled)  # cost and tokens
    parts.append(cache_section(runs, manifest))  # cost with and without prompt caching
    parts += ["## Charts", ""]
    for key, path in charts.items():
        if key.startswith("drawn_json:"):
            continue
        if key.startswith("graph:"):
            task = key.split(":", 1)[1]
            title, caption = (f"Fixed graph vs walked graph: {task}", "Left: the comparator workflow's graph, drawn "
                              "before any run. Right: the union of the agent's walks (edge width = how often).")
        elif key.startswith("drawn:"):
            task = key.split(":", 1)[1]
            title, caption = drawn_caption(task, D, charts[f"drawn_json:{task}"].name)
        else:
            title, caption = CAPTIONS[key]
        if caveat:
            caption += " *Simulator on a user's own dataset: the success figures here measure nothing about quality.*"
        parts += [f"### {title}", "", caption, "", f"![{title}]({path.name})", ""]
    report = out / NAME
    write_text_atomic(report, "\n".join(parts))
    return [out / "criterion.csv", out / PAIRS, *charts.values(), report]


def looks_section(manifest: dict[str, Any]) -> list[str]:
    """For a folder written by `wva bench --until-decided`: the design and the look each task stopped at, with
    the verdict at each of its looks (no lines for any other folder)."""
    from benchmarks.criterion.sequential import KEY, look_text, stopped_at

    block = manifest.get(KEY)
    if not isinstance(block, dict) or not block.get("looks"):
        return []
    looks = block["looks"]
    spending = {"obf": "O'Brien–Fleming-type", "pocock": "Pocock-type"}.get(block.get("spending"), "?")
    lines = ["## Stopping once decided", "",
             f"The tasks ran in batches of {block.get('batch')} instances, up to {block.get('max_instances')} each "
             f"(`--until-decided`, {spending} α spending): after each batch (a look) every task still running was "
             "decided again, and a decided task ran no more instances. Each verdict above is read at the interval "
             "levels of the look its task stopped at, so the error rate holds despite the repeated looks.", ""]
    for task, last in stopped_at(looks).items():
        own = [r for r in looks if r["task"] == task]
        lines.append(f"- {look_text(last)}. The verdict after {', '.join(str(r['instances']) for r in own)} "
                     f"instances: {', '.join(str(r['verdict']) for r in own)}.")
    return [*lines, ""]
