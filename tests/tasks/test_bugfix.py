"""`bugfix`: real modules, real tests, real tools. Every catalogued bug fails its tests and passes once fixed
(checked again here, one subprocess per module); the tools read the real bytes and really run the tests; the
designs solve instances with a model that is always right; the Agentless chain is drawn, not an agent."""

from __future__ import annotations

import asyncio
import collections
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.bugfix.modules import CATALOGUE
from benchmarks.tasks.bugfix.policy import know, tag_of
from benchmarks.tasks.codebase.catalogue import test_file as path_of_tests
from benchmarks.tasks.codebase.tools import MOST_LINES, frame_of, run_tests_in
from benchmarks.tasks.registry import load_task
from benchmarks.tasks.trail.knowledge import NotAModel
from benchmarks.tasks.variants import design_for
from patterns.sim import SimModel
from patterns.workflows import agent_like, run_workflow
from tests.tasks.forcing import ForcedPolicy


@pytest.fixture(scope="module")
def family() -> Any:
    return load_task("bugfix")


def test_every_instance_fails_before_the_fix_and_passes_after_it() -> None:
    entries = CATALOGUE.load()
    pool = CATALOGUE.mutations()
    assert len({tag_of(t, m) for t, m in pool}) == len(pool) >= 100
    assert len({t["module"] for t, _ in pool}) >= 15
    assert len(collections.Counter(m["kind"] for _, m in pool)) >= 3
    with ThreadPoolExecutor(2) as pool:  # one subprocess per module
        verdicts = dict(zip([e["module"] for e in entries], pool.map(CATALOGUE.verify, entries), strict=True))
    assert {module: all(v) for module, v in verdicts.items()} == dict.fromkeys(verdicts, True)
    assert all(len(e["cases"]) == len(e["expected"]) == 30 for e in entries)


def call(env: Any, name: str, **args: Any) -> str:
    result = asyncio.run(env.tools.execute(name, args))
    assert not result.is_error, result
    return str(result.content)


def test_the_tools_read_the_real_bytes_and_really_run_the_tests(family: Any, tmp_path: Path) -> None:
    instance = family.instances(1, seed=0)[0]
    m = instance.data["mutation"]
    env = family.environment(instance, tmp_path)
    on_disk = (tmp_path / m["file"]).read_text(encoding="utf-8")
    stdlib = (Path(sysconfig.get_paths()["stdlib"]) / m["file"]).read_text(encoding="utf-8")
    assert on_disk.splitlines()[m["line"] - 1] == m["mutated"] != stdlib.splitlines()[m["line"] - 1]
    assert [a for a, b in zip(on_disk.splitlines(), stdlib.splitlines(), strict=True) if a != b] == [m["mutated"]]
    shown = call(env, "read_file", path=m["file"], start=1, end=10_000)
    assert [line.split("| ", 1)[1] if "| " in line else "" for line in shown.splitlines()[1:]] == \
        on_disk.splitlines()[:MOST_LINES]
    failing = call(env, "run_tests")
    assert "FAILED: " in failing and "(exit code 1)" in failing
    assert m["mutated"].strip() in call(env, "search_code", text=m["mutated"].strip())
    call(env, "edit", path=m["file"], old=m["mutated"], new=m["original"])
    assert (tmp_path / m["file"]).read_text(encoding="utf-8") == stdlib
    assert "OK: 30 cases passed" in call(env, "run_tests")
    assert family.grade(instance, env, "") == 1.0


def test_only_a_policy_call_knows_where_the_bug_is(family: Any) -> None:
    with pytest.raises(NotAModel):
        know(family.instances(1, seed=0)[0].prompt)


def test_failures_of_both_kinds_occur_a_traceback_into_the_code_and_prose_only(family: Any, tmp_path: Path) -> None:
    kinds = set()
    for k, instance in enumerate(family.instances(12, seed=0)):
        (tmp_path / str(k)).mkdir()
        env = family.environment(instance, tmp_path / str(k))
        kinds.add(frame_of(run_tests_in(env.state["root"], path_of_tests(instance.data["module"]))[1]) is not None)
    assert kinds == {True, False}


@pytest.mark.parametrize("design", ["agent", "chain", "chain:oneshot", "chain:survey"])
def test_every_design_fixes_the_bug_with_a_model_that_is_always_right(family: Any, tmp_path: Path,
                                                                       design: str) -> None:
    for k, instance in enumerate(family.instances(3, seed=1)):
        (tmp_path / str(k)).mkdir()
        env = family.environment(instance, tmp_path / str(k))
        spec = design_for(family, design, env)
        result = run_workflow(spec, SimModel(policy=family.policy(), error_rate=0.0, seed=k), instance.prompt)
        assert family.grade(instance, env, result.output) == 1.0, (design, instance.id, result.output)
        assert design == "agent" or agent_like(spec) is None


def test_the_oracle_records_the_true_fixes_offline(tmp_path: Path) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "examples" / "oracle.py"
    spec = importlib.util.spec_from_file_location("oracle", path)
    assert spec is not None and spec.loader is not None
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    summary = oracle.record_family("bugfix", tmp_path / "bugfix.jsonl", instances=2)
    assert set(summary["pattern"]) == {"agent", "chain", "chain:oneshot", "chain:survey"}
    assert (summary["success_rate"] == 1.0).all()
    assert sum(1 for _ in (tmp_path / "bugfix.jsonl").open()) > 6


def test_the_declared_chain_falls_back_to_the_survey_when_its_one_localization_misses(family: Any,
                                                                                        tmp_path: Path) -> None:
    """The first decision made wrong: where the one-shot chain then fails (its one look went elsewhere), the
    declared chain reads every file and fixes the bug; where the one-shot chain succeeds, so does the chain."""
    graded: dict[str, list[float]] = {"chain:oneshot": [], "chain": []}
    for k, instance in enumerate(family.instances(6, seed=2)):
        for design, scores in graded.items():
            (tmp_path / design / str(k)).mkdir(parents=True)
            env = family.environment(instance, tmp_path / design / str(k))
            policy = ForcedPolicy(family.policy(), wrong={0})
            result = run_workflow(design_for(family, design, env), SimModel(policy=policy, seed=k), instance.prompt)
            scores.append(family.grade(instance, env, result.output))
    assert 0.0 in graded["chain:oneshot"]
    assert graded["chain"] == [1.0] * 6
