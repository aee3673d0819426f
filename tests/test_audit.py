"""`wva audit`: the symmetry probe catches a policy that keys a capability on where an instruction sits."""

from __future__ import annotations

import pytest

from benchmarks.cli.main import main
from benchmarks.studies.audit import capability_table, probe, step_framed
from benchmarks.tasks.registry import load_task

FAIR = "examples.minimal_family:Capitals"
UNFAIR = "tests.unfair_family:Unfair"


def test_step_framing_moves_the_system_prompt_to_the_top_of_the_first_user_turn() -> None:
    params = {"system": "Be terse.", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 9}
    assert step_framed(params) == {"messages": [{"role": "user", "content": "Be terse.\n\nHi"}], "max_tokens": 9}
    blocks = {"system": "S", "messages": [{"role": "user", "content": [{"type": "text", "text": "T"}]}]}
    assert step_framed(blocks)["messages"][0]["content"] == [{"type": "text", "text": "S"},
                                                             {"type": "text", "text": "T"}]
    assert step_framed({"messages": [{"role": "user", "content": "T"}]}) == {"messages": [{"role": "user",
                                                                                          "content": "T"}]}


def test_an_agent_only_self_check_is_caught_and_a_fair_policy_passes() -> None:
    unfair = probe(load_task(UNFAIR), knobs={"error_rate": 0.1}, instances=3, samples=4)
    assert not unfair[0].symmetric and unfair[0].agent["judgements"] > unfair[0].step["judgements"] == 0
    assert all(r.symmetric for r in probe(load_task(FAIR), knobs={"error_rate": 0.1}, instances=3, samples=4))


def test_wva_audit_prints_the_probe_and_the_table_and_exits_1_when_unfair(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", FAIR, "--instances", "2", "--samples", "2"]) == 0
    out = capsys.readouterr().out
    assert "agent" in out and "step" in out and "same" in out and "| read the country |" in out
    assert main(["audit", f"{FAIR};{UNFAIR}", "--instances", "2", "--samples", "2"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT" in out and out.rstrip().splitlines()[-1].startswith("asymmetric: unfair")
    assert capability_table(load_task(UNFAIR)) == "(no Capabilities section in the family's docstring)"


def test_audit_refuses_a_model_that_is_not_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", FAIR, "--model", "anthropic:claude-x"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
