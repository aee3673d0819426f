"""A new workflow pattern is cheap to add: a family that has no design for it says "not offered", the sweep
runs the rest, and the charts give it a colour of its own kind — no crash anywhere."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmarks.harness import config as config_module
from benchmarks.harness import plan as plan_module
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.report.charts.style import OTHER, colour, ordered
from benchmarks.tasks import base
from benchmarks.tasks import variants as variants_module
from benchmarks.tasks.registry import load_task

NEW = "debate"  # a pattern no family designs yet
WITH_NEW = (*base.PATTERNS[:-1], NEW, "agent")


def test_a_family_without_a_design_for_a_pattern_does_not_offer_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "PATTERNS", WITH_NEW)
    family = load_task("pipeline")
    assert family.not_offered() == {NEW: f"pipeline has no design for {NEW} (no design_{NEW} method)"}


def test_a_sweep_with_a_new_pattern_runs_the_families_that_design_it_and_skips_the_rest(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(base, "PATTERNS", WITH_NEW)
    monkeypatch.setattr(config_module, "PATTERNS", WITH_NEW)
    monkeypatch.setattr(variants_module, "PATTERNS", WITH_NEW)  # where design names are checked
    config = BenchConfig(patterns=("chain", NEW, "agent"), tasks=("pipeline",), instances=2, trials=1,
                         out=tmp_path / "r")
    the_plan = plan_module.Plan(config)
    assert the_plan.tasks[0].patterns == ("chain", "agent")
    outcome = asyncio.run(run_bench(config))
    assert set(outcome.runs["pattern"]) == {"chain", "agent"}


def test_the_charts_place_and_colour_a_pattern_they_do_not_know() -> None:
    assert colour(NEW) == OTHER
    assert ordered(["agent", NEW, "chain"]) == ["chain", "agent", NEW]
