"""`pipeline` is fair by construction: the policy gives the same request content the same behaviour
whichever design sends it, a decision made again is keyed as it was the first time, and the declared
comparator is the three steps plus the checks the agent is told to make, drawn as a bounded loop."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.studies.audit import probe, step_framed
from benchmarks.tasks.pipeline import Pipeline
from benchmarks.tasks.pipeline import prompts as pt
from benchmarks.tasks.pipeline.drawn import accepted, line_of
from benchmarks.tasks.pipeline.tools import format_problems
from benchmarks.tasks.registry import load_task
from patterns.sim import Decider, Request, SimModel
from patterns.workflows import Loop, run_workflow

from .decisions import Keys

WORK = Path(".")
FAMILY = Pipeline(fields="3-5")
INSTANCE = FAMILY.instances(1, seed=8)[0]
TRUTH = INSTANCE.data["expected"]
TOOLS = FAMILY.environment(INSTANCE, WORK).tools.params
AGENT_SYSTEM = f"{pt.SYSTEM} {pt.AGENT_HINT}"


def ask(params: dict[str, Any], keys: Keys, error_rate: float = 0.1) -> tuple[Any, Decider]:
    request = Request(system=params.get("system", ""), messages=params["messages"], tools=params.get("tools", []),
                      max_tokens=1024)
    decide = Decider(random.Random(0), error_rate, draws=keys)
    return FAMILY.policy().respond(request, decide), decide


def both_framings(params: dict[str, Any], wrong: bool = False) -> list[tuple[Any, Decider, Keys]]:
    out = []
    for framed in (params, step_framed(params)):
        keys = Keys(wrong)
        reply, decide = ask(framed, keys)
        out.append((reply, decide, keys))
    return out


def agent_after(line: str, report: str) -> dict[str, Any]:
    """The agent's conversation after its first check_format call on `line`, answered with `report`."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "check_format", "input": {"line": line}}
    return {"system": AGENT_SYSTEM, "tools": TOOLS, "messages": [
        {"role": "user", "content": INSTANCE.prompt},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": report}]}]}


def step(template: str, text: str) -> dict[str, Any]:
    return {"system": pt.SYSTEM, "messages": [
        {"role": "user", "content": template.replace("{task}", INSTANCE.prompt).replace("{input}", text)}]}


def reply_kind(reply: Any) -> tuple[str, ...]:
    return tuple(b["type"] for b in reply.content)


def test_the_audit_probe_is_symmetric() -> None:
    rows = probe(FAMILY, knobs={"error_rate": 0.1}, instances=1, samples=2)
    assert [r.symmetric for r in rows] == [True, True], rows


BAD_LAYOUT = TRUTH.replace(" | ", "; ")
REQUESTS = {
    "whole line": {"system": pt.SYSTEM, "messages": [{"role": "user", "content": INSTANCE.prompt}]},
    "fix, as a tool result": agent_after(BAD_LAYOUT, "INVALID: expected 5 fields separated by ' | '"),
    "fix, quoted": step(pt.FIX_PROMPT, f"{pt.LINE} {BAD_LAYOUT}\n{pt.REPORT} INVALID: expected 5 fields"),
    "self-check of a VALID line": agent_after(TRUTH, "VALID: the line has the required layout."),
    "judge step": step(pt.JUDGE, TRUTH),
    "redo, quoted": step(pt.REDO_PROMPT, f"{pt.LINE} {TRUTH}\n{pt.NOTE}\nFAIL: the city does not match the record."),
}


@pytest.mark.parametrize("name", REQUESTS)
@pytest.mark.parametrize("wrong", [False, True])
def test_each_capability_behaves_the_same_agent_framed_and_step_framed(name: str, wrong: bool) -> None:
    (a, da, ka), (s, ds, ks) = both_framings(REQUESTS[name], wrong)
    assert (da.decisions, da.judgements) == (ds.decisions, ds.judgements)
    assert ka.drawn == ks.drawn and reply_kind(a) == reply_kind(s)


def test_a_fix_from_the_report_is_one_decision_whether_the_report_is_a_tool_result_or_quoted() -> None:
    (agent, da, ka), _ = both_framings(REQUESTS["fix, as a tool result"])
    (fix_step, ds, ks), _ = both_framings(REQUESTS["fix, quoted"])
    assert da.decisions == ds.decisions == 1 and ka.drawn == ks.drawn == [("decide", f"pipeline|fix|{BAD_LAYOUT}")]
    assert agent.content[-1]["input"]["line"] == fix_step.content[0]["text"] == TRUTH  # fixed, and checked again


def test_the_self_check_is_the_judges_judgement_and_its_redo_the_redo_steps() -> None:
    (_, da, ka), _ = both_framings(REQUESTS["self-check of a VALID line"], wrong=True)  # a wrong doubt
    (judge, dj, kj), _ = both_framings(REQUESTS["judge step"], wrong=True)
    note = judge.content[0]["text"]
    assert note.startswith("FAIL: the ") and (da.judgements, dj.judgements) == (1, 1)
    assert ka.drawn[0] == kj.drawn[0] == ("judge", f"pipeline|judge|{INSTANCE.prompt.split('Record: ')[1].strip()}"
                                          f"|{TRUTH}")
    (_, dr, kr), _ = both_framings(step(pt.REDO_PROMPT, f"{pt.LINE} {TRUTH}\n{pt.NOTE}\n{note}"), wrong=True)
    assert ka.drawn[1:] == kr.drawn and da.decisions - da.judgements == dr.decisions == 2  # the same 2 decisions


def test_a_redo_draws_under_the_first_attempts_keys_in_an_agent_and_in_a_workflow() -> None:
    first = Keys()
    ask({"system": pt.SYSTEM, "messages": [{"role": "user", "content": INSTANCE.prompt}]}, first)
    (_, _, agent), _ = both_framings(REQUESTS["self-check of a VALID line"], wrong=True)
    (_, _, workflow), _ = both_framings(REQUESTS["redo, quoted"])
    assert [k for _, k in agent.drawn[1:]] == [k for _, k in workflow.drawn] == [k for _, k in first.drawn[:2]]


def _first_then_redo(model: SimModel, first: dict[str, Any]) -> tuple[str, str]:
    """The agent's first line, and its redo after its own (right) doubt, in one trial."""
    reply = asyncio.run(model.create(max_tokens=512, **first))
    line = next(b.input["line"] for b in reply.content if b.type == "tool_use")
    after = agent_after(line, "VALID: the line has the required layout.")
    redone = asyncio.run(model.create(max_tokens=512, **after))
    uses = [b.input["line"] for b in redone.content if b.type == "tool_use"]
    return line, uses[0] if uses else line


@pytest.mark.parametrize("correlation", [0.0, 1.0])
def test_an_agent_redoing_a_decision_is_correlated_at_error_correlation(correlation: float) -> None:
    family = Pipeline(fields="3-5", crowding="0")  # the first attempt and the redo err at the same rate
    first = {"system": AGENT_SYSTEM, "tools": TOOLS, "messages": [{"role": "user", "content": INSTANCE.prompt}]}
    redos = []
    for seed in range(200):
        model = SimModel(policy=family.policy(), error_rate=0.5, checker_error_rate=0.0, context_decay=0.0,
                         error_correlation=correlation, seed=seed)
        line, redone = _first_then_redo(model, first)
        if line != TRUTH and not format_problems(line, INSTANCE.data["fields"]):  # a misreading, laid out right
            redos.append(redone == TRUTH)
    assert len(redos) >= 15
    if correlation == 1.0:
        assert not any(redos)  # the redo misreads the record again, every time
    else:
        assert 0 < sum(redos) < len(redos)


def test_the_declared_chain_draws_the_validator_the_judge_and_a_bounded_loop() -> None:
    spec = FAMILY.design("chain", FAMILY.environment(INSTANCE, WORK))
    graph = spec.graph
    kinds = {graph.nodes[n]["label"]: graph.nodes[n]["kind"] for n in graph}
    assert kinds["check_format"] == "tool" and kinds["judge"] == kinds["fix"] == kinds["redo"] == "llm"
    loops = [(u, v) for u, v, is_loop in graph.edges(data="loop") if is_loop]
    assert len(loops) == 1 and graph.nodes[loops[0][1]]["label"] == "check_format"
    loop = next(s for s in spec.steps if isinstance(s, Loop))
    assert loop.max_rounds == FAMILY.policy().max_checks == 4  # the agent's own bound
    plain = load_task("pipeline:plain=true").design("chain", FAMILY.environment(INSTANCE, WORK))
    assert [s.name for s in plain.steps] == ["extract", "normalise", "format"]


def test_the_loop_carries_the_line_and_stops_when_the_judge_accepts() -> None:
    assert line_of(f"{pt.LINE} {TRUTH}\n{pt.REPORT} VALID") == TRUTH
    assert line_of(f"Here it is:\n`{TRUTH}`") == TRUTH and accepted(f"ACCEPTED\n{pt.LINE} {TRUTH}")


@pytest.mark.parametrize("spec", ["pipeline", "pipeline:plain=true"])
def test_at_error_rate_0_the_declared_chain_solves_every_instance_of_the_range(spec: str) -> None:
    family = load_task(spec + ",fields=3-5" if ":" in spec else spec + ":fields=3-5")
    for i, instance in enumerate(family.instances(24, seed=0)):
        env = family.environment(instance, WORK)
        result = run_workflow(family.design("chain", env), SimModel(policy=family.policy(), error_rate=0.0, seed=i),
                              instance.prompt)
        assert family.grade(instance, env, result.output) == 1.0, (spec, instance.id, result.output)
