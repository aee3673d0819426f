"""`wva graph`: a pattern's fixed graph for a task, as a PNG."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.cli.graph import design_graph
from benchmarks.cli.main import main


def test_draws_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "chain.png"
    assert main(["graph", "chain", "pipeline", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and capsys.readouterr().out.strip() == str(out)


def test_the_graph_is_the_designs_fixed_structure() -> None:
    graph = design_graph("chain", "pipeline")
    assert [graph.nodes[n]["label"] for n in ("extract", "normalise", "format")] == ["extract", "normalise", "format"]


@pytest.mark.parametrize("argv", [["graph", "nope", "pipeline"], ["graph", "chain", "nosuch"],
                                  ["graph", "chain", "pipeline", "--out", "/no/such/folder/x.png"]])
def test_bad_input(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("wva: error:") and err.count("\n") == 1
