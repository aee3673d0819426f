"""`wva graph`: a pattern's fixed graph for a task, as a PNG."""

from __future__ import annotations

import shutil
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


def test_a_model_decision_is_marked_with_its_width_and_an_agent_like_one_flagged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The orders example's route after a lookup: 1 of 4, not agent-like; a design that wraps the agent (its own loop
    over ten places) after a lookup: flagged; a task-file loop refused at load: one line, exit 2."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    orders = design_graph("chain", str(examples / "orders" / "orders.toml"))
    assert orders.nodes["done.call"]["label"].startswith("model picks 1 of 4: ")
    assert not any(d.get("agent_like") for _, d in orders.nodes(data=True))
    mine = tmp_path / "mine.py"
    mine.write_text("from patterns.workflows import Agent, Chain, LLM\n\n\ndef wrapped(family, env):\n"
                    "    return Chain([LLM('read', '{input}'), Agent(tools=env.tools)])\n", encoding="utf-8")
    wrapped = design_graph(f"{mine}:wrapped", "explore")
    [flagged] = [d for _, d in wrapped.nodes(data=True) if d.get("agent_like")]
    assert flagged["label"].startswith("AGENT-LIKE: model picks 1 of 10: ")
    assert main(["graph", f"{mine}:wrapped", "explore", "--out", str(tmp_path / "w.png")]) == 0
    shutil.copytree(examples / "orders", tmp_path / "o", ignore=shutil.ignore_patterns("__pycache__", "*.toml"))
    looping = tmp_path / "o" / "loop.toml"
    looping.write_text('dataset = "orders.jsonl"\ntools = "tools.py"\n[[workflow.steps]]\nname = "walk"\n'
                       'max_rounds = 3\nuntil = { field = "status", equals = "DONE" }\n[[workflow.steps.steps]]\n'
                       'name = "act"\nprompt = "{input}"\ntools = ["get_order", "refund_order", "reship_order", '
                       '"cancel_order", "escalate"]\n', encoding="utf-8")
    assert main(["graph", "chain", str(looping), "--out", str(tmp_path / "l.png")]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "agent-like: at step 'act'" in err[0]
