"""A design that fails mechanically — a fixed tool step naming a tool the task lacks, or passing a placeholder
that never filled — is reported as a design error (DesignError, exit 1) and left out of the verdict, never
counted as the workflow losing on the task."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.harness.code_errors import design_error, is_design_error

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tickets"
DESIGN = """from patterns.workflows import Chain, ToolStep

def design(pattern, env):
    if pattern == "chain":
        return Chain([ToolStep("look", env.tools, {tool!r}, lambda _: {args!r})], name="broken")
"""


def event(**fields: object) -> SimpleNamespace:
    base = {"tool_use_id": "fixed_look", "is_error": True, "error_type": "ToolError", "arguments": "{}"}
    return SimpleNamespace(**(base | fields))


def test_only_a_fixed_steps_mechanical_failure_is_a_design_error() -> None:
    assert design_error([event(error_type="UnknownTool")]) == "DesignError:UnknownTool"
    assert design_error([event(arguments='{"customer_id": "{customer}"}')]) == "DesignError:Placeholder"
    assert design_error([event(tool_use_id="toolu_1", error_type="UnknownTool")]) is None  # a model's own call
    assert design_error([event(arguments='{"customer_id": "C-0000"}')]) is None  # a wrong value: as designed
    assert design_error([event(is_error=False, arguments='{"x": "{y}"}')]) is None
    assert is_design_error("GateFailed;DesignError:Placeholder") and not is_design_error("CodeError:KeyError")


@pytest.mark.parametrize(("tool", "args", "kind"), [
    ("get_invoce", {"customer_id": "C-1"}, "DesignError:UnknownTool"),
    ("get_invoice", {"customer_id": "{customer}"}, "DesignError:Placeholder"),
])
def test_a_mechanical_failure_is_reported_and_left_out_of_the_verdict(
        tool: str, args: dict[str, str], kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "task"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("cassette.jsonl", "__pycache__"))
    toml = (folder / "tickets.toml").read_text().replace('scorer = "includes"', 'scorer = "includes"\ndesign = "d.py"')
    (folder / "tickets.toml").write_text(toml)
    (folder / "d.py").write_text(DESIGN.format(tool=tool, args=args))
    out = tmp_path / "out"
    argv = ["bench", "--tasks", str(folder / "tickets.toml"), "--patterns", "chain,agent", "--instances", "3",
            "--trials", "1", "--out", str(out), "--quiet", "--workers", "1", "--no-drawn"]
    assert main(argv) == 1  # the task's design has a bug: said, and a non-zero exit
    assert "DesignError" in capsys.readouterr().err
    runs = pd.read_csv(out / "runs.csv")
    chain = runs[runs["pattern"] == "chain"]
    assert chain["error_kinds"].str.endswith(kind).all()
    row = pd.read_csv(out / "criterion.csv").iloc[0]
    # never "the agent wins": the broken trials are not a loss, and the task gets no verdict (issue 41 §2)
    assert row["verdict"] == "withheld" and f"chain 3 of 3 ({kind})" in row["reason"]
