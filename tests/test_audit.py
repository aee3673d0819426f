"""`wva audit`: the symmetry probe catches a policy that keys a capability on where an instruction sits."""

from __future__ import annotations

import pytest

from benchmarks.cli.main import main
from benchmarks.studies.audit import capability_table, probe, step_framed
from benchmarks.studies.charges import audit_family, designs_of
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


@pytest.mark.parametrize(("family", "named"), [
    ("tests.unfair_family:Skewed", "skewed capitals|country"),  # the agent's decision charged 1.5 times the odds
    ("tests.unfair_family:Rekeyed", "rekeyed capitals|guess"),  # ... or keyed apart from every workflow's
])
def test_an_injected_asymmetry_in_the_odds_or_the_key_fails_the_audit_and_names_the_decision(
        family: str, named: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", family, "--instances", "2", "--samples", "1"]) == 1
    out = capsys.readouterr().out
    assert "UNEXPLAINED" in out and f"unexplained odds: {named}" in out


def test_the_charge_table_shows_every_design_and_the_knobs_that_explain_its_odds() -> None:
    family = load_task("pipeline")
    audit = audit_family(family, designs_of(family), {"error_rate": 0.1}, instances=2)
    assert not audit.failed and {c.design for c in audit.charges} >= {"agent", "chain", "single"}
    extract = {c.design: c for c in audit.charges if c.kind == "pipeline|extract"}
    # the agent's whole line in one reply carries 3 decisions, a chain step 1: crowding, the same rule for both
    assert extract["single"].crowd == 3 and extract["chain"].crowd < extract["single"].crowd
    assert all(abs(c.residual - 1) < 1e-9 for c in audit.charges)
    assert any(line.startswith("pipeline|extract: crowding") for line in audit.declared)


def test_the_support_audit_shows_a_handler_deciding_the_argument_alone_and_rules_it_fair() -> None:
    family = load_task("support")
    audit = audit_family(family, designs_of(family), {"error_rate": 0.1}, instances=2)
    argument = {c.design: c for c in audit.charges if c.kind == "support|argument"}
    assert argument["route:plain"].crowd == 1 and argument["agent"].crowd == 2
    assert "You handle" in argument["route:plain"].instruction and not audit.failed
    assert any("category known: fair" in line for line in audit.declared)
