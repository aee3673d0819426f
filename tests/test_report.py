"""`wva report` on a small real bench: every chart is written, and REPORT.md embeds them and says what
produced the data; `wva bench` ends with the criterion's verdicts and survives a criterion failure."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.report.charts import PATTERN_COLOURS

TOY = "examples.minimal_family:Capitals"
CHARTS = ["cost_vs_success.png", "latency_vs_success.png", "steps.png", "context_growth.png", "terminals.png",
          "criterion_map.png", "pass_k.png", "graph_capitals.png"]


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("bench")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["bench", "--tasks", TOY, "--instances", "2", "--trials", "2", "--out", str(out), "--quiet"]) == 0
    return out, buf.getvalue()


def test_bench_ends_with_the_verdicts_and_writes_criterion_csv(bench_dir: tuple[Path, str]) -> None:
    out, printed = bench_dir
    assert "criterion (agent vs the comparator workflow, per task):" in printed
    assert "capitals:" in printed.split("criterion (")[1]
    table = pd.read_csv(out / "criterion.csv")
    assert list(table["task"]) == ["capitals"]
    assert table["verdict"].iloc[0] in ("workflow", "agent", "either", "inconclusive")


def test_report_writes_every_chart_and_a_report_that_embeds_them(bench_dir: tuple[Path, str], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    shutil.copytree(bench_dir[0], out)
    assert main(["report", str(out)]) == 0
    capsys.readouterr()
    for name in CHARTS:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
    report = (out / "REPORT.md").read_text()
    for name in CHARTS:
        assert f"]({name})" in report, name  # relative paths: the folder can be moved or published
    assert "`sim`" in report and "not the quality of any real model" in report
    assert "### capitals" in report and "**Verdict:" in report and "95% CI" in report


def test_report_shows_a_sweep_when_one_is_there(bench_dir: tuple[Path, str], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    shutil.copytree(bench_dir[0], out)
    crit = pd.read_csv(out / "criterion.csv")
    sweep = pd.concat([crit.assign(value="1", task="capitals:countries=1", verdict="workflow"),
                       crit.assign(value="5", verdict="agent")])
    sweep.insert(0, "param", "countries")
    (out / "sweep").mkdir()
    sweep.to_csv(out / "sweep" / "sweep.csv", index=False)
    assert main(["report", str(out)]) == 0
    capsys.readouterr()
    report = (out / "REPORT.md").read_text()
    assert "## The sweep" in report and "flips from workflow to agent between `countries=1` and `countries=5`" in report


def test_a_criterion_failure_never_loses_the_bench(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmarks.criterion.table

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(benchmarks.criterion.table, "write_criterion", broken)
    argv = ["bench", "--tasks", TOY, "--patterns", "chain,agent", "--instances", "1", "--trials", "1",
            "--out", str(tmp_path), "--quiet"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "warning: criterion not computed: RuntimeError: boom" in captured.err
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 2  # the bench's results are all there


def test_one_colour_per_pattern_from_the_okabe_ito_palette() -> None:
    okabe_ito = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
    colours = list(PATTERN_COLOURS.values())
    assert set(colours) <= okabe_ito and len(set(colours)) == len(colours) == 7
