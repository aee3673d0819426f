"""`criterion.csv`: per task, the chapter's rule put to the test.

*If you can draw the graph in advance, you don't need an agent; an agent is justified when the number of
steps cannot be predicted and no fixed path can be written down.*

Per task (the runs' `task` column):

- **drawability**: how much of unseen instances' agent decisions the graph drawn from `D` other instances'
  walks explains, with its interval, and that graph's size (`graph_nodes`, `graph_edges`, `graph_loops`,
  `graph_revisited`, `graph_routes`, `graph_dispatches`: code's rules) and cap (`graph_cap`); NaN with no walk.
- **the comparator**: the workflow the agent is compared with. *Declared* when the family names the
  workflow it was designed around (`natural_workflow`) or the reader names one (`--comparator NAME`):
  chosen before the data, so plain intervals hold. `--comparator drawn` names the drawn graph, run on the
  instances it was not drawn from (the folder's `drawn/` sub-folder, `benchmarks.studies.drawn`): its rows
  join the task's as the pattern `drawn`, and it is compared with the agent on those instances only; it
  is never among the workflows a selection ranges over (its runs are not the sweep's seven patterns),
  but `criterion_pairs.csv` always has its row when it ran. Otherwise *selected*: the best workflow, with
  every claim made selection-proof (`benchmarks.criterion.verdict`). `comparator_mode` says which.
- **outcome**: agent − comparator success, paired and clustered by instance, with the interval the rule
  read (`diff_level`: 97.5%, `benchmarks.criterion.bounds` says why); the cost ratio comparator / agent over the same
  paired instances with its 95% interval; latency (p50) and steps ratios; the cost–success Pareto front of
  all patterns; when one side is significantly more successful and significantly costlier, the price of
  its extra success (`price_*`, `benchmarks.criterion.tradeoff`); with a value per success, the net value per trial
  (`value_*`) the verdict then reads;
- **verdict** by the symmetric, monotone rule with a success margin and a cost margin (`benchmarks.criterion.rule`);
  `withheld` for a task file run on the simulator, which has no ground truth for it (`criterion.withheld`);
  `reason` says what decided it; an inconclusive task's note points to `wva plan`, which sizes a run;
- **chapter_prediction**: `workflow` if drawability >= `THRESHOLD` (chosen from synthetic walks whose
  answer is known: `benchmarks.criterion.drawability`), else `agent`; `agrees` compares
  it with the verdict (`either` agrees with both; `inconclusive` leaves it empty). A demonstration of the
  rule on these families, not a proof of it.

`criterion_pairs.csv` holds the agent against each workflow with one-at-a-time and simultaneous intervals.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion import families, readings
from benchmarks.criterion.bounds import FIXED, Levels
from benchmarks.criterion.comparison import compare, compare_value, pairs_frame
from benchmarks.criterion.decided_runs import DecidedRuns, merged
from benchmarks.criterion.deciding import MODES, Decided, decide_task
from benchmarks.criterion.drawability import THRESHOLD, predict
from benchmarks.criterion.drawability.walks import Round, rounds_by_run
from benchmarks.criterion.drawn_runs import DrawnRuns
from benchmarks.criterion.familywise import familywise_columns
from benchmarks.criterion.read import criterion_inputs, load_inputs, stopping_levels
from benchmarks.criterion.render import note
from benchmarks.criterion.repeats_runs import Repeated, RepeatsRuns, drawability_columns
from benchmarks.criterion.stability import read_replicates, seed_columns
from benchmarks.criterion.tradeoff import pareto_front, price, price_columns
from benchmarks.criterion.verdict import (
    DEFAULT_COST_MARGIN,
    DEFAULT_MARGIN,
    DEFAULTS,
    Options,
    check_comparator,
    check_cost_margin,
    check_margin,
    check_value,
)
from benchmarks.criterion.withheld import withheld_reasons, withhold
from benchmarks.harness.atomic import write_atomic
from benchmarks.harness.code_errors import is_design_error
from benchmarks.harness.stats import clustered_rate, percentile
from benchmarks.names import DRAWN

NAME = "criterion.csv"
PAIRS = "criterion_pairs.csv"
VERDICTS = ("workflow", "agent", "either", "inconclusive")
COLUMNS = [
    "task", "verdict", "comparator", "comparator_mode", "margin", "cost_margin", "value_per_success", "reason",
    "agent_success", "workflow_success", "success_diff", "diff_ci_low", "diff_ci_high", "diff_level", "cost_ratio",
    "cost_ci_low", "cost_ci_high", "price_side", "price_extra_success", "price_cost_times", "price_per_success",
    "price_ci_low", "price_ci_high", "value_diff", "value_ci_low", "value_ci_high", "latency_ratio", "steps_ratio",
    "pareto", "drawability", "drawability_ci_low", "drawability_ci_high", "chapter_prediction", "agrees", "note",
    "drawability_d", "drawability_instances", "drawability_reason", "graph_nodes", "graph_edges", "graph_loops",
    "graph_revisited", "graph_routes", "graph_dispatches", "graph_cap", "instances",
    "agent_runs", "workflow_runs", "agent_ci_low", "agent_ci_high", "workflow_ci_low", "workflow_ci_high",
    "agent_cost", "workflow_cost", "agent_latency_p50", "workflow_latency_p50", "threshold", *readings.COLUMNS,
]
__all__ = ["COLUMNS", "NAME", "PAIRS", "THRESHOLD", "VERDICTS", "agrees", "check_comparator", "criterion_table",
           "load_inputs", "pareto_front", "predict", "write_criterion"]


COLUMNS_READ = ["run_id", "task", "pattern", "instance", "success", "cost_usd", "latency_s", "steps"]
NO_DATA = "no data"  # not a verdict: the task's trials measured nothing (no model call succeeded)
NO_CALLS = "no model call succeeded in any trial of this task, so nothing was measured"


def columns_read(out_dir: str | Path) -> list[str]:
    """COLUMNS_READ, and `error_kinds` where runs.csv has it (a folder from before it has not)."""
    from benchmarks.harness.outputs import RUNS, read_table

    header = read_table(Path(out_dir) / RUNS, nrows=0).columns if (Path(out_dir) / RUNS).exists() else []
    return COLUMNS_READ + (["error_kinds"] if "error_kinds" in header else [])


def without_design_errors(g: pd.DataFrame) -> pd.DataFrame:
    """A task's trials without those whose design failed mechanically (`DesignError`, harness.code_errors):
    the design's bug, reported by the bench, never counted as the workflow losing on the task."""
    if "error_kinds" not in g:
        return g
    return g[~g["error_kinds"].map(is_design_error)]


def any_model_call_succeeded(g: pd.DataFrame) -> bool:
    """Whether any trial made at least one successful model call (`steps` counts those)."""
    return bool((pd.to_numeric(g["steps"], errors="coerce").fillna(0) > 0).any())


def agrees(verdict: str, prediction: str | None) -> bool | None:
    if verdict == "inconclusive" or prediction is None:
        return None
    return verdict == "either" or verdict == prediction


def _per_pattern(g: pd.DataFrame) -> dict[str, dict[str, float]]:
    def cost(c: pd.Series) -> float:  # one unpriced call makes the mean unknown, never $0
        return float(c.mean()) if c.notna().all() else math.nan

    out = {}
    for p, h in g.groupby("pattern"):
        inst = h.groupby("instance")["success"].mean()
        rate, low, high = clustered_rate(list(inst), len(h))
        out[str(p)] = {"success": rate, "low": low, "high": high, "runs": len(h), "cost": cost(h["cost_usd"]),
                       "latency": percentile(list(h["latency_s"]), 50), "steps": float(h["steps"].mean())}
    return out


def _ratio(a: float, b: float) -> float:
    return math.nan if math.isnan(a) or math.isnan(b) or b == 0 else a / b


def _outcome(g: pd.DataFrame, d: Decided, stats: dict[str, dict[str, float]], levels: Levels) -> dict[str, Any]:
    """The verdict's figures: paired estimates with the intervals built on them."""
    v, pair, a, w = d.verdict, d.pair, stats["agent"], stats[d.verdict.comparator]
    success_ci = v.diff_ci if d.values is None else pair.ci
    out = dict(
        verdict=v.verdict, comparator=v.comparator, comparator_mode=MODES[d.mode], reason=v.reason,
        agent_success=a["success"], workflow_success=w["success"], success_diff=pair.diff,
        diff_ci_low=success_ci[0], diff_ci_high=success_ci[1], diff_level=levels.win, cost_ratio=pair.cost_ratio,
        cost_ci_low=v.cost_ci[0], cost_ci_high=v.cost_ci[1], latency_ratio=_ratio(w["latency"], a["latency"]),
        steps_ratio=_ratio(w["steps"], a["steps"]), instances=pair.instances, agent_runs=a["runs"],
        workflow_runs=w["runs"], agent_ci_low=a["low"], agent_ci_high=a["high"], workflow_ci_low=w["low"],
        workflow_ci_high=w["high"], agent_cost=a["cost"], workflow_cost=w["cost"], agent_latency_p50=a["latency"],
        workflow_latency_p50=w["latency"], **price_columns(price(g, pair)))
    if d.value is not None:
        out.update(value_diff=d.value.diff, value_ci_low=v.diff_ci[0], value_ci_high=v.diff_ci[1])
    return out


def task_row(task: str, g: pd.DataFrame, rounds: dict[str, list[Round]], spec: str | None, seed: int,
             threshold: float = THRESHOLD, options: Options = DEFAULTS, levels: Levels = FIXED,
             drawn: pd.DataFrame | None = None, grown: pd.DataFrame | None = None,
             repeated: Repeated | None = None) -> tuple[dict[str, Any], pd.DataFrame]:
    """One task's criterion row and its pairs table (`levels`: a sequential run's at the look it stopped;
    `drawn`: the task's runs of the drawn graph, from the folder's `drawn/` sub-folder; `grown`: its agent and
    declared workflow run on until decided, from `decided/`, read in place of the pilot's rows of them; `repeated`:
    its agent's runs and rounds from `repeats/`, where drawability is then read)."""
    margin, comparator = options.margin, options.comparator
    pilot, g = g, merged(g, None if grown is None else without_design_errors(grown))
    both = g if drawn is None or drawn.empty else pd.concat([g, drawn], ignore_index=True)
    stats = _per_pattern(both)
    row: dict[str, Any] = {c: math.nan for c in COLUMNS} | readings.empty() | {
        "task": task, "threshold": threshold, "margin": margin, "comparator": "", "comparator_mode": "",
        "reason": "", "note": "", "agrees": None, "chapter_prediction": None, "verdict": "inconclusive",
        "pareto": ";".join(pareto_front({p: (s["success"], s["cost"]) for p, s in stats.items() if p != DRAWN}))}
    flows = [p for p in stats if p not in ("agent", DRAWN) or (p == DRAWN and comparator == DRAWN)]
    if comparator not in (None, "declared", "selected") and comparator not in flows:
        row["note"] = row["reason"] = f"no runs of the comparator {comparator}" + (
            " (the drawn graph runs with 'wva bench' unless --no-drawn, or 'python -m benchmarks.studies.run_drawn "
            "DIR')" if comparator == DRAWN else "")
        return row, pd.DataFrame()
    row.update(cost_margin=options.cost_margin, value_per_success=options.value_per_success, price_side="")
    if "agent" not in stats or not flows:
        row["note"] = row["reason"] = "no agent runs" if "agent" not in stats else "no workflow runs"
        return row, pd.DataFrame()
    if not any_model_call_succeeded(g):  # a wrong key or base URL: every figure would be an artefact
        row["verdict"], row["note"] = NO_DATA, NO_CALLS
        row["reason"] = NO_CALLS
        return row, pd.DataFrame()
    family = families.load_family(spec)
    row.update(drawability_columns(*(repeated or (pilot, rounds)), seed))
    declared = getattr(family, "natural_workflow", None)
    decided = decide_task(both, flows, declared, options, seed, levels)
    row.update(_outcome(both, decided, stats, levels))
    row.update(readings.readings(both, flows, declared, decided, options, seed, levels))
    row["chapter_prediction"] = predict(row["drawability"], threshold)
    row["agrees"] = agrees(row["verdict"], row["chapter_prediction"])
    row["note"] = note(row)
    pairs = [pairs_frame(task, decided.pairs, decided.values)]
    if DRAWN in stats and DRAWN not in flows:  # its row beside the others', however the verdict was reached
        value = options.value_per_success
        extra = compare(both, [DRAWN], seed, levels)
        pairs.append(pairs_frame(task, extra, compare_value(both, [DRAWN], value, seed, levels) if value else None))
    return row, pd.concat(pairs, ignore_index=True)


def check_options(options: Options) -> Options:
    """The options with every value checked (a ValueError naming the flag otherwise)."""
    return Options(check_margin(options.margin), check_comparator(options.comparator),
                   check_cost_margin(options.cost_margin), check_value(options.value_per_success))


def criterion_tables(out_dir: str | Path, threshold: float = THRESHOLD, margin: float = DEFAULT_MARGIN,
                     comparator: str | None = None, cost_margin: float = DEFAULT_COST_MARGIN,
                     value_per_success: float | None = None,
                     levels: dict[str, Levels] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(criterion, pairs) for every task in a results folder (FileNotFoundError / ValueError if none).
    `levels`: per task, the interval levels to read instead of the fixed design's (a sequential run's at
    the look each task stopped: `Levels(**record["levels"])` from `benchmarks.criterion.sequential`)."""
    options = check_options(Options(margin, comparator, cost_margin, value_per_success))
    blocks, events, manifest = criterion_inputs(out_dir, columns_read(out_dir))  # a task at a time: flat memory
    specs = families.task_specs(manifest)
    seed = int(manifest.get("seed", 0) or 0)
    drawn = DrawnRuns(out_dir, seed)
    decided = DecidedRuns(out_dir, manifest, comparator, columns_read(out_dir))  # the default run's decided phase
    repeats = RepeatsRuns(out_dir, manifest)  # its repeats phase: where drawability is read
    if levels is None:  # a sequential folder, or a decided phase: each task's last look
        levels = {**stopping_levels(manifest), **decided.levels}
    rows, pairs = [], []
    for task, g in ((t, g) for block in blocks for t, g in block.groupby("task", sort=False)):
        g = without_design_errors(g)
        agents = set(g.loc[g["pattern"] == "agent", "run_id"])  # only the agent's walks are measured
        rounds = rounds_by_run(events.of_runs(agents))
        repeated = repeats.of(str(task))  # drawability's walks (and the drawn graph's) when the phase ran
        # a label missing from the manifest may itself be a spec (a built-in family's `multihop:hops=3`)
        row, pair = task_row(str(task), g, rounds, specs.get(str(task), str(task)), seed, threshold, options,
                             (levels or {}).get(str(task), FIXED), drawn.of(str(task), g, rounds, repeated),
                             decided.of(str(task)), repeated)
        rows.append(row)
        pairs.append(pair)
    replicates = read_replicates(out_dir, manifest.get("code_digest"))  # another code version's: stale, left out
    # no verdict where trials were refused in code, or a task file ran on sim; withheld before the readings of
    # verdicts (seeds, the familywise one) so none of them counts a verdict there is not
    df = withhold(pd.DataFrame(rows, columns=COLUMNS), withheld_reasons(out_dir))
    df = with_agreement(df, replicates, seed)
    df["agrees"] = df["agrees"].astype("boolean")
    return df, pd.concat([p for p in pairs if not p.empty] or [pd.DataFrame()], ignore_index=True)


def with_agreement(df: pd.DataFrame, replicates: pd.DataFrame | None, seed: int) -> pd.DataFrame:
    """The table with each verdict's agreement over seeds and pooled verdict (from the folder's replicates.csv,
    `benchmarks.criterion.stability`), and the familywise reading over its tasks (`benchmarks.criterion.familywise`)."""
    df = seed_columns(df, replicates, seed)
    fw = familywise_columns(df)
    df["familywise_p"], df["verdict_familywise"] = fw["familywise_p"], fw["verdict_familywise"]
    return df


def criterion_table(out_dir: str | Path, threshold: float = THRESHOLD, margin: float = DEFAULT_MARGIN,
                    comparator: str | None = None, cost_margin: float = DEFAULT_COST_MARGIN,
                    value_per_success: float | None = None, levels: dict[str, Levels] | None = None) -> pd.DataFrame:
    """The criterion for every task in a results folder (FileNotFoundError / ValueError if it has none)."""
    return criterion_tables(out_dir, threshold, margin, comparator, cost_margin, value_per_success, levels)[0]


def criterion_file(comparator: str | None) -> str:
    """Where a table with this comparator is written: `criterion.csv` for the default ('declared'), else
    `criterion_<comparator>.csv`, so that criterion.csv — what REPORT.md renders and `load_results` reads —
    holds the declared comparator's verdicts and never changes under another question (`--comparator drawn`). A
    design file's path (`/a/mine.py:fn`) is cut to `mine.py:fn` plus a digest of the spec, so two never share a file."""
    if comparator in (None, "declared") or re.fullmatch(r"[\w:=+-][\w.:=+-]*", comparator):
        return NAME if comparator in (None, "declared") else f"criterion_{comparator}.csv"
    path, colon, function = comparator.rpartition(":")
    short = re.sub(r"[^\w.:=+-]+", "_", f"{Path(path).name}{colon}{function}" if path else Path(function).name)
    return f"criterion_{short.lstrip('.')}-{hashlib.sha256(comparator.encode()).hexdigest()[:8]}.csv"


def write_criterion(out_dir: str | Path, df: pd.DataFrame | None = None, name: str = NAME,
                    pairs: pd.DataFrame | None = None, **options: Any) -> pd.DataFrame:
    """Compute (unless given) and write criterion.csv and criterion_pairs.csv atomically; returns the table.
    `options` (margin, comparator, cost_margin, value_per_success) go to `criterion_tables`."""
    if df is None or pairs is None:
        computed, pairs = criterion_tables(out_dir, **options)
        df = computed if df is None else df
    out = Path(out_dir)
    write_atomic(out / name, lambda f: df.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    if name == NAME:
        write_atomic(out / PAIRS, lambda f: pairs.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    return df
