"""Designs by name: `pattern:variant` and `file.py:function` beside the patterns, the agent run once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmarks.cli.main import main
from benchmarks.criterion.table import criterion_tables
from benchmarks.harness.bench import run_bench
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.plan import not_offered
from benchmarks.tasks.registry import load_task
from benchmarks.tasks.variants import check_name, design_for, is_user_design, pattern_of, variants_of

MINE = '''
from patterns.workflows import Single


def my_design(family, env):
    return Single(prompt="{task}", tools=env.tools)
'''


def test_names_a_pattern_a_variant_or_a_users_file(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(MINE)
    assert check_name("route") == "route" and check_name("route:ladder") == "route:ladder"
    assert check_name(f"{tmp_path}/mine.py:my_design") and is_user_design(f"{tmp_path}/mine.py:my_design")
    assert pattern_of("chain:plain") == "chain" and pattern_of("x.py:f") == "user"
    unknown = "unknown pattern"
    for bad, why in (("nope", unknown), ("agent:fast", unknown), ("route:Ladder", unknown),
                     (f"{tmp_path}/missing.py:f", "no file"), (f"{tmp_path}/mine.py:other", "no function")):
        with pytest.raises(ValueError, match=why):
            check_name(bad)


def test_a_family_offers_its_variants_and_refuses_one_it_lacks() -> None:
    support, pipeline = load_task("support"), load_task("pipeline")
    assert {"route:ladder", "route:each", "route:plain"} <= set(variants_of(support))
    assert "route:ladder" in not_offered(pipeline, ("route:ladder", "agent"))
    assert "route:ladder" not in not_offered(support, ("route:ladder",))
    env = support.environment(support.instances(1, 0)[0], Path("."))
    assert design_for(support, "route:plain", env).pattern == "route"
    with pytest.raises(ValueError, match="offers no variant route:nope"):
        design_for(support, "route:nope", env)


def test_bench_runs_variants_and_a_users_design_beside_the_agent_run_once(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(MINE)
    mine = f"{tmp_path}/mine.py:my_design"
    config = BenchConfig(patterns=("agent", "route", "route:ladder", mine), tasks=("support",), instances=2,
                         trials=1, out=tmp_path / "out", workers=1)
    runs = asyncio.run(run_bench(config)).runs
    assert runs.groupby("pattern").size().to_dict() == {"agent": 2, "route": 2, "route:ladder": 2, mine: 2}
    _, pairs = criterion_tables(tmp_path / "out", comparator="selected")
    assert {"route", "route:ladder", mine} <= set(pairs["workflow"])  # selected ranges over every design that ran


def test_a_bad_design_name_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["bench", "--patterns", "agent,route:", "--tasks", "support", "--out", str(tmp_path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["bench", "--patterns", "agent,agent", "--tasks", "support", "--out", str(tmp_path)]) == 2
