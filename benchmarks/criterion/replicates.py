"""`wva criterion DIR --replicates D1,D2,...`: the same sweep at other seeds, read for the agreement of each
verdict (`benchmarks.criterion.stability` says what it means). Each replicate folder is checked to be the same
sweep (model, patterns, tasks, instances, trials) at another seed, its verdicts are decided with the same
options, and `DIR/replicates.csv` keeps them; the criterion then reads it whenever it reads DIR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.criterion.stability import REPLICATES, check_replicate, replicates_frame
from benchmarks.harness.atomic import write_atomic
from benchmarks.harness.manifest import read_manifest


def replicate_verdicts(out_dir: str | Path, folders: list[Path],
                       criterion_of: Callable[[Path], pd.DataFrame]) -> pd.DataFrame:
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
    return replicates_frame(verdicts, seeds, own.get("code_digest"))


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
