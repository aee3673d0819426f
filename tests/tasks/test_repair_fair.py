"""`repair` is fair by construction: the policy gives the same request content the same behaviour whichever
design sends it (a step is told by its header anywhere in its instructions), the agent validates after every
edit as it is told (no judgement only it could make), a retried fix is keyed as it was the first time, and
the declared comparator is the validate → fix loop drawn in advance with bounds no smaller than the agent's."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.studies.audit import probe, step_framed
from benchmarks.tasks.registry import load_task
from benchmarks.tasks.repair import Repair
from benchmarks.tasks.repair.drawn import fault_done, with_report
from benchmarks.tasks.repair.prompts import CLASSIFIER, EVALUATOR, FIX_PROMPT, SYSTEM
from benchmarks.tasks.repair.tools import Sandbox, make_tools, validation_report
from patterns.sim import Decider, Request, SimModel
from patterns.workflows import Loop, run_workflow

from .decisions import Keys
from .forcing import ForcedPolicy

FAMILY = Repair(faults=1)
INSTANCE = FAMILY.instances(1, seed=0)[0]
PATH = INSTANCE.data["path"]
LINE = INSTANCE.data["faults"][0]["line"]
REPORT = validation_report(PATH, INSTANCE.data["faulty"])
TOOLS = make_tools(Sandbox(Path("."))).params  # the tool schemas only


def ask(params: dict[str, Any], wrong: bool = False) -> tuple[Any, Decider, Keys]:
    keys = Keys(wrong)
    request = Request(system=params.get("system", ""), messages=params["messages"], tools=params.get("tools", []),
                      max_tokens=1024)
    decide = Decider(random.Random(0), 0.1, 0.1, draws=keys)
    return FAMILY.policy().respond(request, decide), decide, keys


def agent_after(*rounds: tuple[str, dict[str, Any], str]) -> dict[str, Any]:
    """The agent's conversation after tool rounds of (tool, input, result)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": INSTANCE.prompt}]
    for i, (name, args, result) in enumerate(rounds):
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
        messages += [{"role": "assistant", "content": [{"type": "text", "text": "..."}, use]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                                   "content": result}]}]
    return {"system": SYSTEM, "tools": TOOLS, "messages": messages}


def step(prompt: str, tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"system": SYSTEM, "tools": tools or [], "messages": [{"role": "user", "content": prompt}]}


def _trial(family: Repair, instance: Any, workdir: Path, error_rate: float, seed: int) -> tuple[float, Any, Any]:
    workdir.mkdir(parents=True)
    env = family.environment(instance, workdir)
    result = run_workflow(family.design("agent", env), SimModel(family.policy(), error_rate=error_rate, seed=seed),
                          instance.prompt)
    return family.grade(instance, env, result.output), result, env


def uses(reply: Any) -> list[str]:
    return [b["name"] for b in reply.content if b["type"] == "tool_use"]


VALIDATED = ("validate", {"path": PATH}, REPORT)
EDITED = ("replace_line", {"path": PATH, "line_no": LINE, "text": "x"}, f"line {LINE} of {PATH} is now: x")
EDITOR = [t for t in TOOLS if t["name"] == "replace_line"]
REQUESTS = {
    "the task": agent_after(),
    "a FAIL report, as a tool result": agent_after(VALIDATED),
    "a FAIL report, quoted": step(FIX_PROMPT.format(path=PATH).replace("{input}", REPORT), EDITOR),
    "after an edit": agent_after(VALIDATED, EDITED),
    "a classifier": step(CLASSIFIER.replace("{input}", REPORT)),
    "an evaluator": {**agent_after(VALIDATED), "messages": [
        {"role": "user", "content": EVALUATOR.format(path=PATH).replace("{input}", "I fixed it.")},
        *agent_after(VALIDATED)["messages"][1:]]},
}


def test_the_audit_probe_is_symmetric() -> None:
    rows = probe(Repair(), knobs={"error_rate": 0.1}, instances=1, samples=2)
    assert [r.symmetric for r in rows] == [True, True], rows


@pytest.mark.parametrize("name", REQUESTS)
@pytest.mark.parametrize("wrong", [False, True])
def test_each_capability_behaves_the_same_agent_framed_and_step_framed(name: str, wrong: bool) -> None:
    a, da, ka = ask(REQUESTS[name], wrong)
    s, ds, ks = ask(step_framed(REQUESTS[name]), wrong)
    assert (da.decisions, da.judgements, ka.drawn, uses(a)) == (ds.decisions, ds.judgements, ks.drawn, uses(s))
    assert [b["type"] for b in a.content] == [b["type"] for b in s.content]


def test_after_an_edit_the_agent_validates_whatever_its_judgement_would_say() -> None:
    for wrong in (False, True):  # every draw wrong: a judgement, if there were one, would trust the edit
        reply, decide, _ = ask(REQUESTS["after an edit"], wrong)
        assert uses(reply) == ["validate"] and (decide.decisions, decide.judgements) == (0, 0)


def test_a_fix_is_one_decision_keyed_by_the_line_whether_the_report_is_a_tool_result_or_quoted() -> None:
    agent, da, ka = ask(REQUESTS["a FAIL report, as a tool result"])
    fixer, df, kf = ask(REQUESTS["a FAIL report, quoted"])
    assert da.decisions == df.decisions == 1 and ka.drawn == kf.drawn == [("decide", f"repair|fix|{PATH}|line {LINE}")]
    assert agent.content[-1]["input"] == fixer.content[-1]["input"]


def test_a_retried_fix_has_the_same_key_in_the_agents_turn_and_in_the_workflows_try() -> None:
    near_miss = f"FAIL: line {LINE}: expected 'key = value', got 'max_body_kb: 4096'"
    _, _, agent = ask(agent_after(VALIDATED, EDITED, ("validate", {"path": PATH}, near_miss)))
    tried = with_report(f"Done: line {LINE} of {PATH} is now: max_body_kb: 4096", near_miss, False)
    assert not fault_done(tried)  # the same line again: the comparator tries again
    _, _, workflow = ask(step(FIX_PROMPT.format(path=PATH).replace("{input}", tried), EDITOR))
    assert agent.drawn == workflow.drawn == [("decide", f"repair|fix|{PATH}|line {LINE}")]


@pytest.mark.parametrize("correlation", [0.0, 1.0])
def test_an_agent_retrying_a_fix_is_correlated_at_error_correlation(correlation: float) -> None:
    again = []
    for seed in range(60):
        model = SimModel(policy=FAMILY.policy(), error_rate=0.5, context_decay=0.0, error_correlation=correlation,
                         seed=seed)
        first = asyncio.run(model.create(max_tokens=512, **agent_after(VALIDATED)))
        text = next(b.input["text"] for b in first.content if b.type == "tool_use")
        if text == INSTANCE.data["original"].splitlines()[LINE - 1]:
            continue  # the first fix was right: nothing to retry
        lines = INSTANCE.data["faulty"].splitlines()
        lines[LINE - 1] = text
        rejected = validation_report(PATH, "\n".join(lines) + "\n")
        edited = ("replace_line", {"path": PATH, "line_no": LINE, "text": text}, f"line {LINE} is now: {text}")
        second = asyncio.run(model.create(max_tokens=512, **agent_after(VALIDATED, edited,
                                                                         ("validate", {"path": PATH}, rejected))))
        again.append(next(b.input["text"] for b in second.content if b.type == "tool_use") == text)
    assert len(again) >= 15
    assert all(again) if correlation == 1.0 else 0 < sum(again) < len(again)


def test_the_agent_never_gives_up_within_its_step_limit(tmp_path: Path) -> None:
    """It validates after every edit and retries every rejected fix: at e=0.3 it fixes every file (no law to
    check: only its 50-call step limit could stop it, after 24 fixes)."""
    family, e = Repair(faults=3), 0.3
    results = [_trial(family, inst, tmp_path / str(i), e, seed=i) for i, inst in
               enumerate(family.instances(40, seed=11))]
    assert all(score == 1.0 and result.output.startswith("DONE") for score, result, _ in results)
    assert any(result.tool_calls > 2 + 2 * 3 for _, result, _ in results)  # some fixes were rejected and retried


def test_the_declared_chain_draws_the_validator_and_two_bounded_loops(tmp_path: Path) -> None:
    env = Repair().environment(INSTANCE, tmp_path)
    spec = Repair().design("chain", env)
    graph = spec.graph
    labels = [graph.nodes[n]["label"] for n in graph]
    assert labels.count("validate") == 3 and "fix" in labels and "replace_line" in labels
    loops = [u for u, _, is_loop in graph.edges(data="loop") if is_loop]
    assert sorted(graph.nodes[u]["label"] for u in loops) == ["done? (≤24 rounds)", "done? (≤5 rounds)"]
    assert [s.max_rounds for s in spec.steps if isinstance(s, Loop)] == [5]
    plain = load_task("repair:plain=true").design("chain", env)
    assert not any(is_loop for _, _, is_loop in plain.graph.edges(data="loop"))


def test_the_declared_chain_retries_a_rejected_fix_where_the_plain_one_runs_out_of_rounds(tmp_path: Path) -> None:
    for spec, score in (("repair:faults=1,rounds=1", 1.0), ("repair:faults=1,rounds=1,plain=true", 0.0)):
        family = load_task(spec)
        instance = family.instances(1, seed=0)[0]
        workdir = tmp_path / spec.replace(":", "_").replace(",", "_")
        workdir.mkdir()
        env = family.environment(instance, workdir)
        result = run_workflow(family.design("chain", env), SimModel(policy=ForcedPolicy(family.policy(), {0})),
                              instance.prompt)  # the first fix is a near miss
        assert family.grade(instance, env, result.output) == score, (spec, result.output)


@pytest.mark.parametrize("spec", ["repair", "repair:plain=true"])
def test_at_error_rate_0_the_declared_chain_solves_every_instance_of_the_range(spec: str, tmp_path: Path) -> None:
    family = load_task(spec)
    for i, instance in enumerate(family.instances(24, seed=0)):
        (tmp_path / str(i)).mkdir()
        env = family.environment(instance, tmp_path / str(i))
        result = run_workflow(family.design("chain", env), SimModel(policy=family.policy(), error_rate=0.0, seed=i),
                              instance.prompt)
        assert family.grade(instance, env, result.output) == 1.0 and result.output.startswith("DONE"), spec
