"""`--json` means exactly one JSON document on stdout (issue 44): with `--replicates`, on Ctrl-C, on a bench that
exits 1, and `wva run`'s document carries its schema and only the keys docs/json.md names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks.cli.main import main

from .test_verdict_stability import _folder

DOCS = Path(__file__).resolve().parents[1] / "docs" / "json.md"


def one_document(capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    out, err = capsys.readouterr()
    doc = json.loads(out)  # the whole of stdout is the one document
    assert isinstance(doc, dict)
    return doc, err


def test_criterion_json_with_replicates_is_one_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack 7: the replicates line was printed on stdout before the document."""
    a, b = _folder(tmp_path, "a", 0), _folder(tmp_path, "b", 1)
    assert main(["criterion", str(a), "--replicates", str(b), "--json"]) == 0
    doc, _ = one_document(capsys)
    assert doc["schema"] == "wva.criterion/1" and str(a / "replicates.csv") in doc["written"]


@pytest.mark.parametrize("argv", [["bench", "--tasks", "pipeline", "--instances", "2"], ["criterion", "."],
                                  ["plan", "."], ["sweep", "pipeline", "--model-knob", "error_rate", "--values", "0"],
                                  ["run", "agent", "pipeline"]])
def test_ctrl_c_under_json_is_an_error_document_and_exit_130(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Attack 8: exit 130 with an empty stdout. The interrupt is raised where the command's work starts."""
    import importlib

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(f"benchmarks.cli.{argv[0]}"), "run", interrupted)
    assert main([*argv, "--json"]) == 130
    doc, err = one_document(capsys)
    assert doc == {"schema": "wva.error/1", "command": argv[0], "error": "interrupted", "status": 130}
    assert err == "wva: interrupted\n"


def test_bench_json_that_exits_1_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Trials that failed in the task's own code exit 1: the document's `error` says so (it was null)."""
    assert main(["bench", "--tasks", "tests.broken_family:RaisingScorer", "--patterns", "single", "--instances", "2",
                 "--quiet", "--no-drawn", "--out", str(tmp_path / "b"), "--json"]) == 1
    doc, err = one_document(capsys)
    assert doc["status"] == 1 and "failed in the task's own code" in doc["error"]
    assert err.count("wva: error:") == 1


def test_run_json_has_its_schema_and_only_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "chain", "pipeline", "--json"]) == 0
    doc, _ = one_document(capsys)
    section = DOCS.read_text(encoding="utf-8").split("## `wva run ... --json`", 1)[1]
    documented = {key for cell in re.findall(r"^\| ([^|]+) \|", section, re.M) for key in re.findall(r"`(\w+)`", cell)}
    assert doc["schema"] == "wva.run/1"
    assert set(doc) - {"schema"} <= documented, sorted(set(doc) - {"schema"} - documented)
    assert documented - {"field"} <= set(doc)


def test_a_real_ctrl_c_mid_sweep_under_json_prints_the_error_document(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from .test_interrupts import ROOT, argv, finished

    out = tmp_path / "i"
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks", *argv(out), "--json"], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while finished(out) < 5 and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    doc = json.loads(stdout)
    assert doc["schema"] == "wva.error/1" and doc["status"] == 130 and doc["error"].startswith("interrupted")
