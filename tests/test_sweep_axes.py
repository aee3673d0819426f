"""`wva sweep` over model knobs and grids of two axes, and the verdict map drawn from it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.report.charts.verdict_map import verdict_grid, verdict_map
from benchmarks.studies.sweep import Axis, model_with, points


def test_a_model_knob_axis_gives_one_bench_folder_and_model_per_value() -> None:
    pts = points("multihop", [Axis("error_correlation", ("0", "0.9"), knob=True), Axis("depth", ("3", "6"))],
                 "sim:error_rate=0.1")
    assert [(p.values, p.folder, p.model, p.label) for p in pts] == [
        (("0", "3"), "error_correlation=0", "sim:error_rate=0.1,error_correlation=0", "multihop:depth=3"),
        (("0", "6"), "error_correlation=0", "sim:error_rate=0.1,error_correlation=0", "multihop:depth=6"),
        (("0.9", "3"), "error_correlation=0.9", "sim:error_rate=0.1,error_correlation=0.9", "multihop:depth=3"),
        (("0.9", "6"), "error_correlation=0.9", "sim:error_rate=0.1,error_correlation=0.9", "multihop:depth=6"),
    ]
    assert model_with("sim", "context_decay", "0.3") == "sim:context_decay=0.3"
    assert model_with("sim:error_rate=0.1,seed=2", "error_rate", "0.2") == "sim:error_rate=0.2,seed=2"  # replaced


def test_a_knob_the_default_model_already_sets_is_swept_by_replacing_it(tmp_path: Path) -> None:
    """`wva sweep pipeline --model-knob error_rate --values 0,0.2` on the default model (sim:error_rate=0.1)."""
    out = tmp_path / "sw"
    assert main(["sweep", "pipeline", "--model-knob", "error_rate", "--values", "0,0.2", "--instances", "2",
                 "--trials", "1", "--out", str(out), "--quiet"]) == 0
    models = {row.folder: pd.read_csv(out / row.folder / "runs.csv")["model"].unique().tolist()
              for row in pd.read_csv(out / "sweep.csv").itertuples()}
    assert models == {"error_rate=0": ["sim:error_rate=0"], "error_rate=0.2": ["sim:error_rate=0.2"]}


@pytest.mark.parametrize(("axes", "model", "says"), [
    ([Axis("nope", ("1",), knob=True)], "sim", "unknown model knob 'nope'"),
    ([Axis("error_correlation", ("2",), knob=True)], "sim", "error_correlation"),
    ([Axis("error_correlation", ("0.5",), knob=True)], "anthropic:claude-x", "set .or swept. on the sim model"),
    ([Axis("hops", ("3",)), Axis("hops", ("4",))], "sim", "must differ"),
    ([Axis("context_decay", ("0", "0.0"), knob=True)], "sim", "the same setting"),
])
def test_bad_axes_are_value_errors(axes: list[Axis], model: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        points("multihop", axes, model)


def test_a_knob_sweep_runs_writes_each_point_and_reads_its_verdict(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sw"
    argv = ["sweep", "multihop:hops=1-2", "--model-knob", "error_correlation", "--values", "0,1",
            "--by", "votes", "--by-values", "1,3", "--instances", "2", "--trials", "1", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    table = pd.read_csv(out / "sweep.csv")
    assert list(table[["value", "by_value"]].itertuples(index=False, name=None)) == [(0, 1), (0, 3), (1, 1), (1, 3)]
    for row in table.itertuples():
        crit = pd.read_csv(out / row.folder / "criterion.csv").set_index("task")
        assert crit.loc[row.task, "verdict"] == row.verdict  # each point's verdict is its own bench's
    assert "error_correlation=1, votes=3:" in capsys.readouterr().out
    assert (out / "verdict_map.png").is_file()
    xs, ys, cells = verdict_grid(table)
    assert (xs, ys) == (["0", "1"], ["1", "3"]) and cells["1", "3"][0] == table["verdict"].iloc[3]
    assert verdict_map(table, tmp_path).read_bytes()[:4] == b"\x89PNG"


def test_a_one_axis_sweep_is_one_row_of_the_map(tmp_path: Path) -> None:
    table = pd.DataFrame({"param": "hops", "value": ["3", "1-6"], "task": ["multihop:hops=3", "multihop"],
                          "verdict": ["workflow", "agent"], "success_diff": [-0.1, 0.3]})
    xs, ys, cells = verdict_grid(table)
    assert (xs, ys, cells["1-6", ""]) == (["3", "1-6"], [""], ("agent", 0.3))
    assert verdict_map(table, tmp_path).is_file()


@pytest.mark.parametrize(("extra", "says"), [
    (["--model-knob", "nope", "--values", "1"], "unknown model knob"),
    (["--param", "hops", "--values", "3", "--by", "depth"], "--by-values"),
    (["--model-knob", "error_correlation", "--values", "0.5", "--model", "anthropic:claude-x"], "sim model"),
])
def test_sweep_bad_axes_are_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  extra: list[str], says: str) -> None:
    assert main(["sweep", "multihop", *extra, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and says in err, err
    assert not (tmp_path / "out").exists()
