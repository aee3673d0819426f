"""`wva criterion DIR --replicates D1,D2,...`: the same sweep at other seeds, pooled into one verdict per task and
read for the agreement of each seed's own verdict (`benchmarks.criterion.stability` says what each means). Each
replicate folder is checked to be the same sweep (model, patterns, tasks, instances, trials, code) at another
seed and whole (its runs.csv holds every trial its manifest records), its verdicts are decided with the same
options, the pooled verdicts are decided on every seed's runs at once, and `DIR/replicates.csv` keeps them
all; the criterion then reads it whenever it reads DIR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.bounds import FIXED
from benchmarks.criterion.decided_runs import DecidedRuns, merged
from benchmarks.criterion.deciding import decide_task
from benchmarks.criterion.read import criterion_inputs
from benchmarks.criterion.stability import REPLICATES, check_replicate, replicates_frame
from benchmarks.criterion.verdict import DEFAULTS, Options
from benchmarks.harness.atomic import write_atomic
from benchmarks.harness.manifest import read_manifest


def replicate_verdicts(out_dir: str | Path, folders: list[Path], criterion_of: Callable[[Path], pd.DataFrame],
                       options: Options = DEFAULTS) -> pd.DataFrame:
    """Every replicate's verdicts (`replicates.csv`'s rows), each folder's criterion table from `criterion_of`
    (`criterion_table` with the verdict options: passed in, as this module sits below the table's); a
    ValueError / FileNotFoundError naming a folder that is not a replicate of `out_dir`'s sweep."""
    own = _manifest(Path(out_dir))
    seen = {int(own.get("seed", 0) or 0)}
    verdicts, seeds = {}, {}
    for folder in folders:
        manifest = _manifest(folder)
        check_replicate(folder, manifest, own)
        check_whole(folder, manifest)
        seed = int(manifest.get("seed", 0) or 0)
        if seed in seen:
            raise ValueError(f"--replicates: {folder} was run at seed {seed}, which another folder (or {out_dir}) "
                             "already has; a replicate is the same sweep at another seed")
        seen.add(seed)
        verdicts[str(folder)], seeds[str(folder)] = criterion_of(folder), seed
    every = {int(own.get("seed", 0) or 0): Path(out_dir), **{seeds[str(f)]: f for f in folders}}
    return replicates_frame(verdicts, seeds, own.get("code_digest"), pooled_verdicts(every, own, options))


COLUMNS = ["run_id", "task", "pattern", "instance", "success", "cost_usd", "latency_s", "steps"]


def pooled_runs(folders: dict[int, Path], options: Options) -> dict[str, pd.DataFrame]:
    """Per task, every seed's runs side by side (a decided phase's rows in place of the pilot's, as each seed's
    own verdict reads them), each instance named with its seed so that it stays a cluster of its own."""
    found: dict[str, list[pd.DataFrame]] = {}
    for seed, folder in folders.items():
        blocks, _, manifest = criterion_inputs(folder, COLUMNS)
        grown = DecidedRuns(folder, manifest, options.comparator, COLUMNS)
        for block in blocks:
            for task, g in block.groupby("task", sort=False):
                found.setdefault(str(task), []).append(in_seed(merged(g, grown.of(str(task))), seed))
    return {t: pd.concat(gs, ignore_index=True) for t, gs in found.items()}


def in_seed(g: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A seed's runs with each instance named `seed:instance`: pooled with other seeds', an instance is still a
    cluster of its own, never merged with another seed's instance of the same name."""
    return g.assign(instance=f"{seed}:" + g["instance"].astype(str))


def pooled_verdicts(folders: dict[int, Path], manifest: dict[str, Any], options: Options) -> list[dict[str, Any]]:
    """One verdict per task on every seed's runs at once, at the fixed design's levels (replicates.csv's
    pooled rows)."""
    from benchmarks.criterion import families

    specs, out = families.task_specs(manifest), []
    for task, g in pooled_runs(folders, options).items():
        flows = sorted(set(g["pattern"]) - {"agent"})
        if "agent" not in set(g["pattern"]) or not flows:
            continue
        declared = getattr(families.load_family(specs.get(task, task)), "natural_workflow", None)
        d = decide_task(g, flows, declared, options, min(folders), FIXED)
        out.append({"task": task, "verdict": d.verdict.verdict, "comparator": d.verdict.comparator,
                    "success_diff": d.pair.diff, "ci_low": d.verdict.diff_ci[0], "ci_high": d.verdict.diff_ci[1],
                    "instances": d.pair.instances})
    return out


def check_whole(folder: Path, manifest: dict[str, Any]) -> None:
    """A ValueError naming `folder`'s runs.csv unless it holds every trial its manifest records, each line whole:
    a file cut off halfway would give a seed's verdict from half its rows, with no word said."""
    import csv
    import io

    from benchmarks.harness.outputs import RUNS

    path = folder / RUNS
    if not path.is_file():
        raise FileNotFoundError(f"--replicates: {path} does not exist: {folder} holds no finished sweep")
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise ValueError(f"--replicates: {path} ends in a torn line (cut off?): finish that seed with --resume")
    rows = max(0, sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline=""))) - 1)
    expected = manifest.get("trials_total")
    if isinstance(expected, int) and rows != expected:
        raise ValueError(f"--replicates: {path} holds {rows} of the {expected} trials its manifest records (cut off, "
                         "or a sweep still running?): finish that seed with --resume")


def _manifest(folder: Path) -> dict[str, Any]:
    manifest = read_manifest(folder) if folder.is_dir() else None
    if manifest is None:
        raise FileNotFoundError(f"--replicates: {folder} is not a results folder (no manifest.json)")
    return manifest


def write_replicates(out_dir: str | Path, frame: pd.DataFrame) -> Path:
    path = Path(out_dir) / REPLICATES
    write_atomic(path, lambda f: frame.to_csv(f, index=False, lineterminator="\n", float_format="%.6g"))
    return path
