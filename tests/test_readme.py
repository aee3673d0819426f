"""The README's examples run as written."""

from __future__ import annotations

import re

from .conftest import ROOT


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_the_agent_loop_example_runs(capsys) -> None:
    """The ten-line example (the README points to it in docs/patterns.md) runs as printed."""
    block = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "patterns.md").read_text(), flags=re.S)[0]
    exec(compile(block, "docs/patterns.md", "exec"), {})  # our own docs, not model output
    out = capsys.readouterr().out
    assert out.startswith("completed ")


def test_the_two_commands_are_the_ci_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in readme
