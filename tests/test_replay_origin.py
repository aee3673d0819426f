"""A replay says whose recording it is: an oracle's is labelled as such in REPORT.md, its cost section and its charts
(issue 44: it read "a real model's run" while its costs said "the simulator models")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.report.origin import ORACLE_NOTE, SIM_NOTE, origin_of
from benchmarks.report.write import write_report
from examples.oracle import record
from patterns.replay import recorded_by

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SMALL = ["--trials", "1", "--quiet", "--workers", "1", "--no-drawn", "--patterns", "chain,agent", "--instances", "3"]


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("oracle")
    shutil.copytree(EXAMPLES / "invoices", tmp / "invoices", ignore=shutil.ignore_patterns("__pycache__"))
    cassette = tmp / "cassette.jsonl"
    record(tmp / "invoices" / "invoices.toml", cassette, instances=3)
    out = tmp / "r"
    assert main(["bench", "--tasks", str(tmp / "invoices" / "invoices.toml"), "--model", f"replay:{cassette}",
                 "--out", str(out), *SMALL]) == 0
    return out


def test_the_oracle_marks_its_cassette_and_the_manifest_says_so(oracle_run: Path) -> None:
    cassette = oracle_run.parent / "cassette.jsonl"
    assert {json.loads(line)["made_by"] for line in cassette.open()} == {"oracle"}
    assert recorded_by(cassette) == "oracle"
    assert json.loads((oracle_run / "manifest.json").read_text())["recorded_by"] == "oracle"
    assert recorded_by(EXAMPLES / "tickets" / "cassette.jsonl") == "oracle"  # the bundled one is an oracle's too


def test_the_report_calls_an_oracle_replay_what_it_is(oracle_run: Path) -> None:
    write_report(oracle_run)
    text = (oracle_run / "REPORT.md").read_text()
    assert "an **oracle** recorded" in text and "real model's run" not in text
    assert "These are the costs the simulator models" in text  # and the data paragraph agrees with it
    runs = pd.read_csv(oracle_run / "runs.csv")
    assert origin_of(runs, {}).chart_note == ORACLE_NOTE  # read from the cassette when the manifest is silent


def test_a_real_models_recording_and_a_missing_one_are_told_apart(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    line = json.loads((EXAMPLES / "tickets" / "cassette.jsonl").open().readline())
    del line["made_by"]
    line["response"]["model"] = "claude-sonnet-4-5"
    real.write_text(json.dumps(line) + "\n")
    runs = pd.DataFrame({"model": [f"replay:{real}"]})
    origin = origin_of(runs, {})
    assert origin.kind == "model-recording" and origin.chart_note is None and not origin.modelled
    assert "a real model's run (`claude-sonnet-4-5`)" in origin.sentence
    gone = origin_of(pd.DataFrame({"model": [f"replay:{tmp_path / 'gone.jsonl'}"]}), {})
    assert gone.kind == "unknown-recording" and "not known" in gone.sentence
    assert origin_of(pd.DataFrame({"model": ["sim:error_rate=0.1"]}), {}).chart_note == SIM_NOTE
