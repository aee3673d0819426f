"""`wva plan DIR --model openai:<id>` estimates from the price table alone: no openai SDK needed (issue 44)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from benchmarks.cli.main import main

TOY = "examples.minimal_family:Capitals"


@pytest.fixture
def pilot(tmp_path: Path) -> Path:
    out = tmp_path / "pilot"
    assert main(["bench", "--tasks", TOY, "--patterns", "chain,agent", "--instances", "4", "--trials", "1",
                 "--no-drawn", "--out", str(out), "--quiet"]) == 0
    return out


def test_plan_prices_an_openai_model_without_its_sdk(pilot: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec

    def without_openai(name: str, *args: Any) -> Any:
        return None if name.split(".")[0] == "openai" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_openai)  # the extra not installed
    capsys.readouterr()
    assert main(["plan", str(pilot), "--model", "openai:gpt-4.1-mini"]) == 0
    assert "openai" in capsys.readouterr().out


@pytest.mark.parametrize(("spec", "says"), [("openai:", "has no model id"), ("nosuch:x", "unknown model spec"),
                                            ("sim:error_rate=2", "error_rate")])
def test_a_bad_spec_is_still_one_line_and_exit_2(pilot: Path, spec: str, says: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["plan", str(pilot), "--model", spec]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err
