"""Files are checked before they are trusted: torn or edited runs.csv and events.jsonl, leftover temp files,
precision on a rewrite, a corrupted manifest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.cli.main import main

TOY = "examples.minimal_family:Capitals"
ARGS = ["bench", "--tasks", TOY, "--instances", "3", "--trials", "2", "--quiet", "--workers", "1"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "r"
    assert main([*ARGS, "--model", "sim:error_rate=0.3", "--out", str(out)]) == 0
    return out


def copy_of(reference: Path, tmp_path: Path) -> Path:
    out = tmp_path / "r"
    shutil.copytree(reference, out)
    return out


def resume(out: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main([*ARGS, "--model", "sim:error_rate=0.3", "--out", str(out), "--resume"]) == 0
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("wva: warning")]


def without_wall(text: str) -> list[list[str]]:
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    wall = rows[0].index("wall_s")
    return [row[:wall] + row[wall + 1:] for row in rows]


def assert_same_as(reference: Path, out: Path, *, reran: int) -> None:
    """Every row as it was (the trials that reran differ only in `wall_s`), every event byte for byte."""
    before, after = (reference / "runs.csv").read_text(), (out / "runs.csv").read_text()
    assert without_wall(after) == without_wall(before)
    assert sum(a != b for a, b in zip(after.splitlines(), before.splitlines(), strict=True)) <= reran
    assert (out / "events.jsonl").read_bytes() == (reference / "events.jsonl").read_bytes()


@pytest.mark.parametrize("cut", [20, 150])  # inside the last fields; before the seed
def test_a_torn_last_row_reruns_that_trial_with_one_warning(reference: Path, tmp_path: Path, cut: int,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_of(reference, tmp_path)
    data = (out / "runs.csv").read_bytes()
    (out / "runs.csv").write_bytes(data[:-cut])
    warnings = resume(out, capsys)
    assert len(warnings) == 1 and "torn last line in runs.csv" in warnings[0]
    assert_same_as(reference, out, reran=1)


def test_a_torn_or_missing_last_event_line_reruns_that_trial(reference: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_of(reference, tmp_path)
    lines = (out / "events.jsonl").read_bytes().splitlines(keepends=True)
    (out / "events.jsonl").write_bytes(b"".join(lines[:-1]) + lines[-1][:25])  # torn in the run id
    warnings = resume(out, capsys)
    assert len(warnings) == 1 and "do not agree" in warnings[0] and "torn" in warnings[0]
    assert_same_as(reference, out, reran=2)
    (out / "events.jsonl").write_bytes(b"".join(lines[:-1]))  # the last line gone, cleanly
    warnings = resume(out, capsys)
    assert len(warnings) == 1 and "do not agree" in warnings[0]
    assert_same_as(reference, out, reran=2)


def test_event_lines_removed_by_hand_rerun_their_trials(reference: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_of(reference, tmp_path)
    lines = (out / "events.jsonl").read_bytes().splitlines(keepends=True)
    calls = [i for i, line in enumerate(lines) if b'"kind": "model_call"' in line]
    gone = {calls[3], calls[10], calls[25]}
    (out / "events.jsonl").write_bytes(b"".join(line for i, line in enumerate(lines) if i not in gone))
    warnings = resume(out, capsys)
    assert len(warnings) == 1 and "3 trial(s)" in warnings[0] and "steps" in warnings[0]
    assert_same_as(reference, out, reran=3)


def test_a_partial_resume_keeps_every_other_byte_and_removes_leftover_temp_files(
        reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_of(reference, tmp_path)
    rows = (out / "runs.csv").read_bytes().splitlines(keepends=True)
    (out / "runs.csv").write_bytes(b"".join(rows[:-3]))  # three whole rows gone: those trials rerun
    (out / ".events.jsonl.k1ll3d.tmp").write_text("half a file left by a kill")
    (out / ".runs.csv.k1ll3d.tmp").write_text("another")
    assert resume(out, capsys) == []
    assert_same_as(reference, out, reran=3)
    assert not list(out.glob(".*.tmp"))


def test_a_corrupted_manifest_names_the_file(reference: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_of(reference, tmp_path)
    (out / "manifest.json").write_text('{"model": "sim", "seed": ')
    for command in (["criterion", str(out)], ["report", str(out)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{out / 'manifest.json'} is not a readable manifest" in err


@pytest.mark.parametrize("tasks, model, trials", [
    ((TOY, "pipeline"), "sim:error_rate=0.2,fault_rate=0.3", 2),  # retries, errors, injected faults
    (("examples/tickets/tickets.toml",), "replay:examples/tickets/cassette.jsonl", 1),  # unpriced: empty costs
])
def test_runs_csv_is_written_as_pandas_writes_it(tasks: tuple[str, ...], model: str, trials: int,
                                                 tmp_path: Path) -> None:
    """Streamed row by row, runs.csv is byte for byte the file `DataFrame(rows).to_csv()` gave before."""
    import asyncio

    import pandas as pd

    from benchmarks.harness.bench import BenchConfig, run_bench
    from benchmarks.harness.trial import RUN_COLUMNS

    from .conftest import ROOT

    rows: list[dict] = []
    config = BenchConfig(tasks=tuple(str(ROOT / t) if t.endswith(".toml") else t for t in tasks), instances=4,
                         trials=trials, model=model.replace("examples/", f"{ROOT}/examples/"), out=tmp_path / "r",
                         workers=1)
    asyncio.run(run_bench(config, on_trial=rows.append))
    written = (tmp_path / "r" / "runs.csv").read_text()
    order = {line.split(",", 1)[0]: i for i, line in enumerate(written.splitlines())}
    frame = pd.DataFrame(sorted(rows, key=lambda r: order[r["run_id"]]), columns=RUN_COLUMNS)
    frame = frame.astype({"success": bool, "trial": int, "seed": int})
    assert frame.to_csv(index=False, lineterminator="\n") == written
