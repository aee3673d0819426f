"""Issue 41 §1 at the edges a user meets: routing after a lookup runs; a loop in which the model picks among more
than K next steps (offered, or named by the model and dispatched by code) is refused when the task file is loaded
or the sweep is set up, exit 2 with one whole line saying "agent-like" and naming the step."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.cli.main import main
from benchmarks.tasks.dataset import DatasetTask

from .toml_loops import loop_step

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = ["--trials", "1", "--quiet", "--workers", "1", "--no-drawn"]
HEAD = """name = "orders"
dataset = "orders.jsonl"
tools = "tools.py"
"""
PICK = 'name = "pick"\nprompt = "Which tool comes next? Reply with its name only.\\n\\n{task}\\n\\n{input}"\n'
GO = 'name = "go"\ndispatch = "{pick}"\nargs = { order_id = "{task}" }\n'
PICK_THEN_GO = loop_step(5, "status", "DONE", PICK, GO)


def _orders(tmp_path: Path, workflow: str) -> Path:
    folder = tmp_path / "orders"
    shutil.copytree(EXAMPLES / "orders", folder, ignore=shutil.ignore_patterns("__pycache__", "*.toml"))
    (folder / "orders.toml").write_text(HEAD + workflow, encoding="utf-8")
    return folder / "orders.toml"


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_routing_to_one_of_four_actions_after_a_lookup_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The example: lookup, then the model names 1 of 4 actions for code to call, once. It runs: no AgentLike
    trial; the generic evaluate_optimize (a generator offered 5 tools round after round) is not offered."""
    task = DatasetTask.from_file(EXAMPLES / "orders" / "orders.toml")
    assert "evaluate_optimize" in task.not_offered() and "agent-like" in task.not_offered()["evaluate_optimize"]
    out = tmp_path / "r"
    assert main(["bench", "--tasks", str(EXAMPLES / "orders" / "orders.toml"), "--patterns",
                 "chain,evaluate_optimize,agent", "--instances", "4", "--out", str(out), *SMALL]) == 0
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs["pattern"]) == {"chain", "agent"}
    assert not runs["error_kinds"].fillna("").str.contains("AgentLike|CodeError").any()
    assert (runs.loc[runs["pattern"] == "chain", "tool_calls"] >= 1).all()  # it ran: the lookup at least
    said = capsys.readouterr()
    assert "evaluate_optimize: not offered for orders: its generic design is agent-like" in said.out + said.err


OFFERED = loop_step(5, "status", "DONE", PICK.replace('prompt = "Which', 'tools = ["get_order", "refund_order", '
                                                      '"reship_order", "cancel_order", "escalate"]\nprompt = "Which'))


@pytest.mark.parametrize(("workflow", "step", "how"), [
    (PICK_THEN_GO, "go", "a step it names for code to call"),
    (OFFERED,
     "pick", "tools offered to it"),
])
def test_a_task_file_loop_where_the_model_picks_among_five_is_refused_at_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], workflow: str, step: str, how: str) -> None:
    toml = _orders(tmp_path, workflow)
    with pytest.raises(ValueError, match=f"agent-like: at step '{step}' the model picks 1 of 5 next steps"):
        DatasetTask.from_file(toml)
    out = tmp_path / "r"
    assert main(["bench", "--tasks", str(toml), "--instances", "2", "--out", str(out), *SMALL]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "agent-like" in line and f"'{step}'" in line and how in line and line.endswith("agent pattern")
    assert not out.exists()


def test_a_loop_dispatching_on_a_tools_field_loads(tmp_path: Path) -> None:
    """The same loop with the name read off a tool's result (code's decision) is drawn."""
    code = PICK_THEN_GO.replace('prompt = "Which tool comes next? Reply with its name only.\\n\\n{task}\\n\\n{input}"',
                                'tool = "get_order"\nargs = { order_id = "{task}" }')
    code = code.replace('"{pick}"', '"{pick.next}"')
    assert DatasetTask.from_file(_orders(tmp_path, code)).natural_workflow == "chain"


def test_a_literal_dispatch_to_a_missing_tool_is_refused_at_load(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 44, attack 13."""
    toml = _orders(tmp_path, '[[workflow.steps]]\nname = "go"\ndispatch = "no_such_tool"\n'
                             'args = { order_id = "{task}" }\n')
    assert main(["bench", "--tasks", str(toml), "--instances", "2", "--out", str(tmp_path / "r"), *SMALL]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "dispatch names 'no_such_tool'" in line and "get_order" in line


def test_a_user_design_whose_model_names_the_next_place_on_a_loop_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's too-loose case: on `explore`, a model step reads the note and writes which place comes next,
    and code calls that place, round after round. The agent's 10-way pick re-coded: exit 2 before any trial."""
    design = tmp_path / "mine.py"
    design.write_text('''
from patterns.workflows import LLM, Chain, Dispatch, Loop


def walk(family, env):
    def place(text):
        words = text.split()
        return (words[-1], {"key": words[0]}) if words else None

    step = Chain([LLM("read", "Which place does this note mean?\\n\\n{input}"), Dispatch("go", env.tools, place)])
    return Loop(step, until=lambda text: "END" in text, max_rounds=20, name="walk")
''', encoding="utf-8")
    out = tmp_path / "r"
    assert main(["bench", "--tasks", "explore", "--patterns", f"agent,{design}:walk", "--instances", "2",
                 "--out", str(out), *SMALL]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "agent-like: at step 'go' the model picks 1 of 10 next steps" in line and "explore" in line
    assert not out.exists()


def test_the_oracle_names_the_action_a_dispatch_calls(tmp_path: Path) -> None:
    """examples/oracle.py answers a step that asks for a tool's name with the tool whose result holds the target,
    so an oracle cassette measures the routing workflow, not a gap in the recorder (the chain lost every trial)."""
    from examples.oracle import record

    folder = tmp_path / "orders"
    shutil.copytree(EXAMPLES / "orders", folder, ignore=shutil.ignore_patterns("__pycache__"))
    summary = record(folder / "orders.toml", tmp_path / "c.jsonl", instances=4).set_index("pattern")
    assert summary.loc["chain", "success_rate"] == 1.0 and summary.loc["agent", "success_rate"] == 1.0
