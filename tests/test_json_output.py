"""`--json` on `wva criterion`, `plan`, `sweep` and `bench`: one document `json.loads` accepts, built from the same
tables as the text (every column), errors included; a non-default `--comparator` writes its own file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.table import COLUMNS

SMALL = ["--instances", "4", "--trials", "1", "--quiet", "--workers", "1", "--no-drawn"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("json") / "b"
    assert main(["bench", "--tasks", "pipeline", "--patterns", "chain,single,agent", "--out", str(out), *SMALL]) == 0
    return out


def one_document(capsys: pytest.CaptureFixture[str]) -> dict:
    out = capsys.readouterr().out
    doc = json.loads(out)  # the whole of stdout is the one document
    assert isinstance(doc, dict)
    return doc


def test_bench_json_has_the_summary_verdicts_and_totals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b"
    assert main(["bench", "--tasks", "pipeline", "--patterns", "chain,agent", "--out", str(out), "--json",
                 *SMALL]) == 0
    doc = one_document(capsys)
    assert doc["schema"] == "wva.bench/1" and doc["status"] == 0 and doc["error"] is None
    runs = pd.read_csv(out / "runs.csv")
    assert {r["pattern"] for r in doc["summary"]} == {"chain", "agent"}
    assert set(doc["criterion"][0]) == set(pd.read_csv(out / "criterion.csv").columns)
    totals = doc["totals"]
    assert totals["trials"] == len(runs) == 8 and doc["drawn_totals"] is None and doc["decided_totals"] is None
    assert doc["estimate"] is None  # on the simulator nothing is estimated: its cost is already the estimate
    assert totals["cost_usd"] == pytest.approx(runs["cost_usd"].sum())
    assert totals["total_tokens"] == runs["total_tokens"].sum()


def test_bench_prints_the_runs_total_cost_and_tokens(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--tasks", "pipeline", "--patterns", "chain,single,agent", "--out", str(folder),
                 *SMALL]) == 0  # nothing to do: read, and the totals said again
    text = capsys.readouterr().out
    runs = pd.read_csv(folder / "runs.csv")
    line = next(x for x in text.splitlines() if x.startswith("total: "))
    assert f"${runs['cost_usd'].sum():,.2f} modelled" in line and f"{runs['total_tokens'].sum():,} tokens" in line
    assert f"over {len(runs)} trials" in line


def test_criterion_json_carries_every_column(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["criterion", str(folder), "--json"]) == 0
    doc = one_document(capsys)
    assert doc["schema"] == "wva.criterion/1" and [t["task"] for t in doc["tasks"]] == ["pipeline"]
    assert set(COLUMNS) <= set(doc["tasks"][0])  # built from the DataFrame: a new column flows through
    assert doc["pairs"] and doc["written"] == [str(folder / "criterion.csv"), str(folder / "criterion_pairs.csv")]


def test_another_comparator_writes_its_own_file_and_leaves_criterion_csv(folder: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["criterion", str(folder)]) == 0
    before = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
              for name in ("criterion.csv", "criterion_pairs.csv")}
    assert main(["criterion", str(folder), "--comparator", "single"]) == 0
    assert f"written to {folder / 'criterion_single.csv'}" in capsys.readouterr().out
    after = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in before}
    assert after == before
    assert pd.read_csv(folder / "criterion_single.csv")["comparator"].tolist() == ["single"]
    assert pd.read_csv(folder / "criterion.csv")["comparator"].tolist() == ["chain"]  # the declared one


def test_plan_json(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(folder), "--json", "--max-instances", "200"]) == 0
    doc = one_document(capsys)
    assert doc["schema"] == "wva.plan/1" and doc["tasks"][0]["task"] == "pipeline"
    assert doc["tasks"][0]["instances_available"] is None  # a generated family has no limit
    assert len(doc["rows"]) == len(pd.read_csv(folder / "plan.csv"))


@pytest.mark.parametrize("argv", [
    ["criterion", "no-such-folder", "--json"],
    ["plan", "no-such-folder", "--json"],
    ["sweep", "pipeline", "--param", "fields", "--values", "9", "--json"],
    ["bench", "--tasks", "pipeline", "--model", "anthropic:claude-sonnet-4-5", "--json"],  # pre-flight: no key
    ["run", "agent", "pipeline", "--model", "anthropic:claude-sonnet-4-5", "--json"],
])
def test_errors_are_json_too(argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["schema"] == "wva.error/1" and doc["command"] == argv[0] and doc["status"] == 2
    assert doc["error"] and captured.err.startswith("wva: error: ")  # and the one line on stderr, as ever


def test_sweep_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", "pipeline", "--model-knob", "error_rate", "--values", "0,0.3", "--out", str(tmp_path / "s"),
            "--instances", "3", "--trials", "1", "--quiet", "--json"]
    assert main(argv) == 0
    doc = one_document(capsys)
    assert doc["schema"] == "wva.sweep/1" and [p["value"] for p in doc["points"]] == ["0", "0.3"]
    assert doc["axes"] == [{"name": "error_rate", "values": ["0", "0.3"], "model_knob": True}]
    assert isinstance(doc["flips"], list)
