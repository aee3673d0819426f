"""The `repair` family: instances, sandboxed tools, designs on SimModel, and the success laws."""

from __future__ import annotations

import asyncio
import itertools
import math
import random
from math import comb
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.base import PATTERNS, Environment, Instance
from benchmarks.tasks.registry import load_task
from benchmarks.tasks.repair import Repair
from benchmarks.tasks.repair.policy import RepairPolicy
from benchmarks.tasks.repair.skills import Report, fix_for, parse_reports
from benchmarks.tasks.repair.tools import first_problem
from patterns.result import Result
from patterns.sim import Decider, SimModel
from patterns.sim.policy import CROWDING, Request, crowded
from patterns.workflows import arun_workflow, run_workflow


def trial(family: Repair, pattern: str, instance: Instance, workdir: Path, error_rate: float = 0.0,
          seed: int = 0) -> tuple[float, Result, Environment]:
    workdir.mkdir(parents=True, exist_ok=True)
    env = family.environment(instance, workdir)
    model = SimModel(family.policy(), error_rate=error_rate, seed=seed)
    result = run_workflow(family.design(pattern, env), model, instance.prompt)
    return family.grade(instance, env, result.output), result, env


def tool_uses(result: Result, name: str) -> list[dict[str, Any]]:
    return [b for m in result.messages if m["role"] == "assistant" for b in m["content"]
            if b.get("type") == "tool_use" and b.get("name") == name]


def call(env: Environment, name: str, **args: Any) -> tuple[str, bool]:
    outcome = asyncio.run(env.tools.execute(name, args))
    return outcome.content, outcome.is_error


# --- parameters, instances, environments ---------------------------------------------------------

def test_parameters_and_one_line_errors() -> None:
    family = Repair()
    assert (str(family.faults), family.rounds, family.voters, family.crowding) == ("1-5", 5, 3, CROWDING)
    assert (family.attempts, family.plain) == (24, False)  # the agent's fixes within its 50-call step limit
    assert load_task("repair:faults=2-4,rounds=5").rounds == 5
    assert load_task("repair:attempts=3,plain=true").attempts == 3
    for bad in ({"nope": 1}, {"faults": "0"}, {"faults": "x"}, {"faults": "14"}, {"rounds": "0"},
                {"crowding": "-1"}, {"voters": "many"}, {"attempts": "0"}, {"plain": "maybe"}):
        with pytest.raises(ValueError) as err:
            Repair(**bad)
        assert "\n" not in str(err.value)


def test_instances_are_seeded_and_independent_of_n() -> None:
    family = Repair(faults="2-4")
    first = family.instances(6, seed=3)
    assert first == family.instances(6, seed=3)
    assert family.instances(2, seed=3) == first[:2]
    assert [i.data for i in first] == [i.data for i in family.instances(6, seed=3)]
    assert [i.data for i in family.instances(6, seed=4)] != [i.data for i in first]
    assert [i.id for i in first[:2]] == ["repair-0000", "repair-0001"]
    for instance in first:
        faults = instance.data["faults"]
        assert 2 <= len(faults) <= 4
        assert first_problem(instance.data["original"]) is None
        assert first_problem(instance.data["faulty"]).startswith(f"line {faults[0]['line']}:")
        assert f"`{instance.data['path']}`" in instance.prompt and "[repair]" in instance.prompt


def test_every_generated_fault_is_fixable_from_its_report_and_the_near_miss_is_not() -> None:
    family = Repair(faults="13")  # every line faulty: all kinds on all keys
    for instance in family.instances(40, seed=0):
        lines = instance.data["original"].splitlines()
        for fault in instance.data["faults"]:
            alone = list(lines)
            alone[fault["line"] - 1] = fault["text"]
            report = parse_reports("FAIL: " + first_problem("\n".join(alone)))[0]
            assert report.line == fault["line"]
            fix = fix_for(report)
            assert fix is not None and fix.right != fix.wrong
            alone[fix.line - 1] = fix.right
            assert first_problem("\n".join(alone)) is None, (fault, fix)
            alone[fix.line - 1] = fix.wrong
            assert first_problem("\n".join(alone)).startswith(f"line {fix.line}:"), (fault, fix)


def test_fresh_environment_per_trial(tmp_path: Path) -> None:
    family = Repair()
    instance = family.instances(1, seed=0)[0]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = family.environment(instance, tmp_path / "a"), family.environment(instance, tmp_path / "b")
    line = instance.data["faults"][0]["line"]
    assert not call(a, "replace_line", path=instance.data["path"], line_no=line, text="# gone")[1]
    assert call(b, "read_file", path=instance.data["path"])[0].splitlines()[line - 1].endswith(
        instance.data["faults"][0]["text"])
    assert a.tools is not b.tools


def test_path_escapes_and_bad_edits_are_error_results(tmp_path: Path) -> None:
    family = Repair()
    instance = family.instances(1, seed=0)[0]
    (tmp_path / "outside.txt").write_text("secret\n")
    work = tmp_path / "work"
    work.mkdir()
    env = family.environment(instance, work)
    (work / "link.conf").symlink_to(tmp_path / "outside.txt")
    (work / "dir_link").symlink_to(tmp_path)
    escapes: list[tuple[str, dict[str, Any]]] = [
        ("read_file", {"path": "../outside.txt"}), ("read_file", {"path": str(tmp_path / "outside.txt")}),
        ("read_file", {"path": "link.conf"}), ("write_file", {"path": "dir_link/x.conf", "content": "a"}),
        ("replace_line", {"path": "../outside.txt", "line_no": 1, "text": "x"}), ("validate", {"path": "/etc/passwd"})]
    for name, args in escapes:
        content, is_error = call(env, name, **args)
        assert is_error and "refused" in content, (name, args, content)
    assert (tmp_path / "outside.txt").read_text() == "secret\n" and not (tmp_path / "x.conf").exists()
    path = instance.data["path"]
    bad_edits: list[tuple[dict[str, Any], str]] = [({"line_no": 99, "text": "x"}, "line_no must be"),
                                                   ({"line_no": 1, "text": "a\nb"}, "single line")]
    for args, words in bad_edits:
        content, is_error = call(env, "replace_line", path=path, **args)
        assert is_error and words in content
    content, is_error = call(env, "validate", path="missing.conf")
    assert is_error and path in content  # the error lists the files that do exist


def test_unknown_pattern_and_every_design_builds(tmp_path: Path) -> None:
    family = Repair()
    env = family.environment(family.instances(1, seed=0)[0], tmp_path)
    with pytest.raises(ValueError, match="unknown pattern"):
        family.design("nope", env)
    for pattern in PATTERNS:
        assert family.design(pattern, env).graph.number_of_nodes() >= 3


# --- designs at error_rate 0: success where the design can reach, failure where it cannot ------------

CAN = [("agent", 1), ("agent", 5), ("chain", 1), ("chain", 3), ("route", 3), ("parallel", 3),
       ("evaluate_optimize", 3), ("orchestrate", 1)]
CANNOT = [("single", 1), ("chain", 4), ("route", 4), ("parallel", 4), ("evaluate_optimize", 4), ("orchestrate", 2)]


@pytest.mark.parametrize(("pattern", "faults"), CAN)
def test_design_succeeds_when_faults_fit(tmp_path: Path, pattern: str, faults: int) -> None:
    family = Repair(faults=faults, rounds=3)
    for i, instance in enumerate(family.instances(4, seed=1)):
        score, result, _ = trial(family, pattern, instance, tmp_path / str(i))
        assert score == 1.0, (pattern, result.terminal, result.output, result.detail)
        assert result.output.startswith("DONE")


@pytest.mark.parametrize(("pattern", "faults"), CANNOT)
def test_design_fails_when_faults_exceed_its_depth(tmp_path: Path, pattern: str, faults: int) -> None:
    family = Repair(faults=faults, rounds=3)
    for i, instance in enumerate(family.instances(4, seed=1)):
        score, result, _ = trial(family, pattern, instance, tmp_path / str(i))
        assert score == 0.0, (pattern, result.output)


def test_agent_steps_grow_with_the_hidden_faults(tmp_path: Path) -> None:
    steps = {f: trial(Repair(faults=f), "agent", Repair(faults=f).instances(1, seed=2)[0], tmp_path / str(f))[1].steps
             for f in (1, 3, 5)}
    assert steps == {1: 4, 3: 8, 5: 12}  # read+validate, then (fix, validate) per fault, then the answer


# --- the policy follows what the tools show, never the ground truth ---------------------------------

def test_policy_follows_the_file_not_the_instance(tmp_path: Path) -> None:
    family = Repair(faults=3)
    instance = family.instances(1, seed=5)[0]
    (tmp_path / "w").mkdir()
    env = family.environment(instance, tmp_path / "w")
    target = tmp_path / "w" / instance.data["path"]
    lines = instance.data["original"].splitlines()
    key_line = next(i for i, line in enumerate(lines) if line.startswith("workers ="))
    lines[key_line] = "workers = 99"  # a fault the instance does not know about, and none of its own
    target.write_text("\n".join(lines) + "\n")
    result = run_workflow(family.design("agent", env), SimModel(family.policy()), instance.prompt)
    edits = [u["input"] for u in tool_uses(result, "replace_line")]
    assert edits == [{"path": instance.data["path"], "line_no": key_line + 1, "text": "workers = 32"}]
    assert family.grade(instance, env, result.output) == 1.0

    target.write_text(instance.data["original"])  # already valid: nothing to do, whatever the instance says
    result = run_workflow(family.design("chain", env), SimModel(family.policy()), instance.prompt)
    assert (result.tool_calls, result.steps) == (2, 0) and result.output.startswith("DONE")  # valid: the code exit
    plain = Repair(faults=3, plain="true")
    result = run_workflow(plain.design("chain", env), SimModel(plain.policy()), instance.prompt)
    assert result.tool_calls == 4 and result.output.startswith("DONE")  # four validations, no edit


def test_policy_accepts_only_repair_prompts() -> None:
    policy = RepairPolicy()
    ours = Request(system="", messages=[{"role": "user", "content": Repair().instances(1, 0)[0].prompt}],
                   tools=[], max_tokens=100)
    theirs = Request(system="[fanout] You answer questions.", messages=[{"role": "user", "content": "What?"}],
                     tools=[], max_tokens=100)
    assert policy.accepts(ours) and not policy.accepts(theirs)


def test_wrong_decisions_are_near_misses_and_the_agent_validates_after_every_edit(tmp_path: Path) -> None:
    family = Repair(faults=1)
    instance = family.instances(1, seed=0)[0]
    _, result, env = trial(family, "agent", instance, tmp_path, error_rate=1.0)
    report = parse_reports(first_problem(instance.data["faulty"]) or "")[0]
    edits = tool_uses(result, "replace_line")
    assert edits and all(e["input"]["text"] == fix_for(report).wrong for e in edits)  # type: ignore[union-attr]
    turns = [[b["name"] for b in m["content"] if b.get("type") == "tool_use"] for m in result.messages
             if m["role"] == "assistant"]
    assert all(after == ["validate"] for before, after in itertools.pairwise(turns) if before == ["replace_line"])
    assert not result.output.startswith("DONE") and family.grade(instance, env, result.output) == 0.0


def test_agent_notices_a_wrong_fix_and_tries_again(tmp_path: Path) -> None:
    family = Repair(faults=1)
    instance = family.instances(1, seed=0)[0]
    retried = []
    for seed in range(30):
        score, result, _ = trial(family, "agent", instance, tmp_path / str(seed), error_rate=0.4, seed=seed)
        lines = [u["input"]["line_no"] for u in tool_uses(result, "replace_line")]
        retried.append(score == 1.0 and len(lines) >= 2 and len(set(lines)) == 1)
    assert any(retried)


def test_crowding_raises_the_per_decision_error_rate() -> None:
    decide = Decider(random.Random(0), 0.1)
    wrong = sum(v.count(False) for v in (crowded(decide, 5, 1.0) for _ in range(2000))) / 10_000
    assert abs(wrong - 0.5) < 4 * math.sqrt(0.25 / 10_000)
    assert decide.decisions == 10_000 and decide.mistakes == round(wrong * 10_000)
    plain, same = Decider(random.Random(1), 0.5), Decider(random.Random(1), 0.5)
    assert crowded(plain, 8, 0.0) == [same.correct() for _ in range(8)]  # no crowding: plain correct() draws
    assert crowded(Decider(random.Random(2), 0.4), 3, 5.0) == [False] * 3  # rate capped at 1


def test_unfixable_report_is_not_fixed() -> None:
    assert fix_for(Report(None, "missing required key 'port' (add a line 'port = ...')")) is None


# --- the success laws at error_rate > 0 -----------------------------------------------------------

def _at_least(n: int, p: float, k: int) -> float:
    return sum(comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))


def law(pattern: str, f: int, r: int, e: float) -> float:
    """P(success) with f faults, r rounds, error rate e (every call makes one decision, independently)."""
    p = 1 - e
    if pattern == "plain_chain":  # r fix attempts, each right with p; f must be right
        return _at_least(r, p, f)
    if pattern == "chain":  # fault by fault (r >= f), each within ATTEMPTS tries
        return (1 - e ** ATTEMPTS) ** f
    if pattern == "route":  # a misrouted specialist wastes the first attempt
        return p * _at_least(r, p, f) + e * _at_least(r - 1, p, f)
    if pattern == "parallel":  # each attempt is a majority of 3 proposals
        return _at_least(r, _at_least(3, p, 2), f)
    if pattern == "evaluate_optimize":  # the f-th right fix in round k; every earlier verdict must be FAIL
        return sum(comb(k - 1, f - 1) * p ** f * e ** (k - f) * p ** (k - 1) for k in range(f, r + 1))
    if pattern == "orchestrate":
        return p * p if f == 1 else 0.0
    return 0.0


ATTEMPTS = 2


@pytest.mark.parametrize("pattern", ["plain_chain", "chain", "route", "parallel", "evaluate_optimize"])
def test_success_follows_the_law(tmp_path: Path, pattern: str) -> None:
    f, r, e, n = 2, 2, 0.3, 300  # small, so that 300 trials stay fast; the laws still differ
    family = Repair(faults=f, rounds=r, attempts=ATTEMPTS, plain=str(pattern == "plain_chain"))
    design = pattern.removeprefix("plain_")
    instances = family.instances(n, seed=11)
    envs = []
    for i, instance in enumerate(instances):
        (tmp_path / str(i)).mkdir()
        envs.append(family.environment(instance, tmp_path / str(i)))

    async def run_all() -> list[Result]:
        return await asyncio.gather(*(arun_workflow(family.design(design, env), SimModel(
            family.policy(), error_rate=e, error_correlation=0.0, seed=i), inst.prompt)
                                      for i, (inst, env) in enumerate(zip(instances, envs, strict=True))))

    results = asyncio.run(run_all())
    rate = sum(family.grade(i, env, res.output) for i, env, res in zip(instances, envs, results, strict=True)) / n
    expected = law(pattern, f, r, e)
    assert abs(rate - expected) <= 4 * math.sqrt(expected * (1 - expected) / n), (pattern, rate, expected)
    assert rate < 1.0


def test_orchestrate_law_with_one_fault(tmp_path: Path) -> None:
    family, e = Repair(faults=1), 0.3
    scores = [trial(family, "orchestrate", inst, tmp_path / str(i), e, seed=i)[0]
              for i, inst in enumerate(family.instances(300, seed=2))]
    expected = law("orchestrate", 1, 3, e)
    assert abs(sum(scores) / 300 - expected) <= 4 * math.sqrt(expected * (1 - expected) / 300)
