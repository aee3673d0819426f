"""Finished work is never thrown away or mixed: what a sweep may do with a folder that already holds trials."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness import journal
from benchmarks.harness.manifest import fingerprint

TOY = "examples.minimal_family:Capitals"
TICKETS = str(Path(__file__).resolve().parent.parent / "examples" / "tickets" / "tickets.toml")
BASE = ["bench", "--tasks", TOY, "--instances", "2", "--trials", "1", "--quiet", "--workers", "1"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def error_of(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wva: error:") and "Traceback" not in err, err
    return err


@pytest.fixture
def finished(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "r"
    assert main([*BASE, "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_a_rerun_that_would_add_trials_is_refused_without_resume(finished: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(finished)
    assert main([*BASE[:4], "3", *BASE[5:], "--out", str(finished)]) == 2  # --instances 3
    assert "--resume to continue, or --overwrite to start again" in error_of(capsys)
    assert snapshot(finished) == before
    assert main([*BASE[:4], "3", *BASE[5:], "--out", str(finished), "--resume"]) == 0  # extends it
    assert len(pd.read_csv(finished / "runs.csv")) == 7 * 3


def test_a_killed_sweep_rerun_without_resume_is_refused(finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = pd.read_csv(finished / "runs.csv")
    (finished / "runs.csv").unlink()
    with journal.Journal(finished / journal.NAME) as log:  # as a sweep killed after 3 trials leaves it
        for row in rows.head(3).to_dict("records"):
            log.append(row, [])
    before = snapshot(finished)
    assert main([*BASE, "--out", str(finished)]) == 2
    assert "holds 3 finished trials" in error_of(capsys) and snapshot(finished) == before


@pytest.mark.parametrize("change, named", [
    (["--model", "sim:error_rate=0.2"], "--model"), (["--seed", "1"], "--seed"),
    (["--patterns", "single,agent"], "--patterns"), (["--trials", "2"], "--trials"),
    (["--tasks", "pipeline"], "--tasks"), (["--prompt-cache", "off"], "--prompt-cache"),
])
def test_resume_with_another_setting_is_refused_naming_it(finished: Path, change: list[str], named: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(finished)
    assert main([*BASE, "--out", str(finished), "--resume", *change]) == 2
    err = error_of(capsys)
    assert f"was run with {named}" in err and "--overwrite" in err
    assert snapshot(finished) == before


def edit_manifest(folder: Path, *, refingerprint: bool, **changes: object) -> None:
    doc = json.loads((folder / "manifest.json").read_text())
    doc.update(changes)
    if refingerprint:  # as another version of the code would have written it
        doc["fingerprint"] = fingerprint(doc)
    (folder / "manifest.json").write_text(json.dumps(doc, indent=2))


def test_resume_across_a_code_change_needs_allow_mixed_and_records_both(finished: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    old_code = {"code_digest": "0123456789abcdef", "git": {"commit": "c0ffee", "dirty": False}}
    edit_manifest(finished, refingerprint=True, **old_code)
    before = snapshot(finished)
    more = [*BASE[:4], "3", *BASE[5:], "--out", str(finished), "--resume"]
    assert main(more) == 2
    err = error_of(capsys)
    assert "other code" in err and "0123456789abcdef" in err and "--allow-mixed" in err
    assert snapshot(finished) == before
    assert main([*more, "--allow-mixed"]) == 0
    doc = json.loads((finished / "manifest.json").read_text())
    assert [m["code_digest"] for m in doc["mixed"]] == ["0123456789abcdef", doc["code_digest"]]
    assert doc["mixed"][0]["commit"] == "c0ffee" and doc["code_digest"] != "0123456789abcdef"


def test_resume_across_package_versions_is_refused_naming_the_package(finished: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((finished / "manifest.json").read_text())
    edit_manifest(finished, refingerprint=True, packages={**doc["packages"], "pandas": "1.0.0"})
    assert main([*BASE[:4], "3", *BASE[5:], "--out", str(finished), "--resume"]) == 2
    assert "pandas 1.0.0" in error_of(capsys)


def test_a_hand_edited_or_missing_manifest_is_never_resumed(finished: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    edit_manifest(finished, refingerprint=False, prompt_cache="off")  # to let --prompt-cache off mix in
    before = snapshot(finished)
    assert main([*BASE, "--out", str(finished), "--resume", "--prompt-cache", "off"]) == 2
    assert "changed after the sweep wrote it" in error_of(capsys) and snapshot(finished) == before
    (finished / "manifest.json").unlink()
    assert main([*BASE, "--out", str(finished), "--resume"]) == 2
    assert "no manifest.json" in error_of(capsys)
    (finished / "manifest.json").write_text("{not json")
    assert main([*BASE, "--out", str(finished), "--resume"]) == 2
    assert "manifest.json is not a readable manifest" in error_of(capsys)


def test_overwrite_clears_the_projects_files_and_only_those(finished: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("REPORT.md", "cost_vs_success.png", "graph_capitals.png", ".events.jsonl.x1y2.tmp"):
        (finished / name).write_text("from the earlier run")
    (finished / "notes.txt").write_text("mine")
    (finished / "graph_mine.png").write_text("mine too")
    assert main([*BASE, "--out", str(finished), "--seed", "5", "--overwrite"]) == 0
    assert "removed" in capsys.readouterr().err
    names = {p.name for p in finished.iterdir()}
    assert {"notes.txt", "graph_mine.png", "runs.csv", "manifest.json"} <= names
    assert not names & {"REPORT.md", "cost_vs_success.png", "graph_capitals.png", ".events.jsonl.x1y2.tmp"}
    assert set(pd.read_csv(finished / "runs.csv")["seed"]) == {5}


def test_a_fresh_run_clears_another_runs_leftovers_without_trials(tmp_path: Path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    (out / "REPORT.md").write_text("an old report whose runs are gone")
    (out / "mine.csv").write_text("a user's file")
    assert main([*BASE, "--out", str(out)]) == 0
    assert not (out / "REPORT.md").exists() and (out / "mine.csv").read_text() == "a user's file"


def test_resume_and_overwrite_together_or_allow_mixed_alone_are_usage_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--out", str(tmp_path / "r"), "--resume", "--overwrite"]) == 2
    assert "contradict" in error_of(capsys)
    assert main([*BASE, "--out", str(tmp_path / "r"), "--allow-mixed"]) == 2
    assert "--allow-mixed goes with --resume" in error_of(capsys)
    assert not (tmp_path / "r").exists()


def test_the_report_states_the_run_from_its_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    assert main(["bench", "--tasks", TICKETS, "--instances", "100", "--trials", "1", "--patterns", "single,agent",
                 "--quiet", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("--instances 100: tickets has only 30") == 1
    assert "NOT A MEASURE OF QUALITY" in captured.out
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["instances_run"] == {"tickets": 30} and doc["dataset_tasks"] == ["tickets"]
    edit_manifest(out, refingerprint=False, model="anthropic:claude-x", seed=7)
    assert main(["report", str(out)]) == 0
    report = (out / "REPORT.md").read_text()
    assert "`sim:error_rate=0.1` (seed 0)" in report and "30 instances × 1 trials each, 60 trials in all" in report
    assert "disagrees with `runs.csv`" in report and "`anthropic:claude-x`" in report and "seed 7" in report
    assert "Not a measure of quality" in report and report.count("measure nothing about quality") >= 8
    assert main(["criterion", str(out)]) == 0
    assert "NOT A MEASURE OF QUALITY: tickets" in capsys.readouterr().out


def test_a_results_folder_inside_the_clone_does_not_make_the_code_dirty(tmp_path: Path) -> None:
    import subprocess

    from benchmarks.harness.manifest import git_state

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "patterns").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "patterns" / "a.py").write_text("x = 1\n")
    (tmp_path / "results" / "runs.csv").write_text("run_id\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    (tmp_path / "results" / "runs.csv").write_text("run_id\nabc\n")
    assert git_state(tmp_path)["dirty"] is False
    (tmp_path / "patterns" / "a.py").write_text("x = 2\n")
    assert git_state(tmp_path)["dirty"] is True


def test_the_code_digest_covers_the_projects_code() -> None:
    """The digest reads every file of patterns/ and benchmarks/ (a digest of nothing would let --resume mix code)."""
    import hashlib

    from benchmarks.harness import code_errors
    from benchmarks.harness.manifest import ROOT, code_digest

    assert (ROOT / "pyproject.toml").is_file() and (ROOT / "patterns" / "agent.py").is_file()
    assert code_digest() != hashlib.sha256(b"").hexdigest()[:16]
    assert all(Path(p).is_dir() for p in code_errors._PROJECT)  # the project's own frames are told apart
