"""`fanout`'s success laws at error_rate > 0 (moved from test_fanout.py, which had grown past 300 lines): each
design's measured success matches the probability its decisions give, computed by hand."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.base import Instance
from benchmarks.tasks.fanout import Fanout
from patterns.result import Result
from patterns.sim import SimModel
from patterns.workflows import run_workflow

WORK = Path(".")
E = 0.1


def run(family: Fanout, pattern: str, instance: Instance, model: Any) -> tuple[Result, float]:
    env = family.environment(instance, WORK)
    result = run_workflow(family.design(pattern, env), model, instance.prompt)
    return result, family.grade(instance, env, result.output)


def measured(family: Fanout, pattern: str, n: int = 300) -> float:
    """The laws below take every decision as independent: error_correlation 0 (a retry draws afresh)."""
    instances = family.instances(n, 11)
    return sum(run(family, pattern, inst, SimModel(policy=family.policy(), error_rate=E, error_correlation=0.0,
                                                   seed=t))[1]
               for t, inst in enumerate(instances)) / n


def within(rate: float, p: float, n: int = 300) -> bool:
    return abs(rate - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-9


def crowded_rate(k: int, crowding: float) -> float:
    return min(1.0, E * (1 + crowding * (k - 1)))


def checked_answer_law(rechecks: int = 2) -> float:
    """P(right answer) from an aggregation told to check it: each doubt (a judgement) recomputes it."""
    right, wrong = 1.0, 0.0  # no recheck left: as it stands
    for _ in range(rechecks):
        again = (1 - E) * right + E * wrong
        right, wrong = (1 - E) + E * again, (1 - E) * again
    return (1 - E) * right + E * wrong


def agent_law(n: int, crowding: float) -> float:
    """P(success) from n records to look up: the first turn looks them all up; each later turn first notices
    (a judgement) that records are missing, then looks them all up; a turn that skips all of them answers."""
    f = [checked_answer_law()]  # f[m]: from a later turn with m records missing
    for m in range(1, n + 1):
        r = crowded_rate(m, crowding)
        onward = sum(math.comb(m, j) * (1 - r) ** (m - j) * r ** j * f[j] for j in range(m))
        f.append((1 - E) * onward / (1 - (1 - E) * r ** m * (1 - 0.5 ** m)))
    r = crowded_rate(n, crowding)
    first = sum(math.comb(n, j) * (1 - r) ** (n - j) * r ** j * f[j] for j in range(n))
    return first + r ** n * (1 - 0.5 ** n) * f[n]


@pytest.mark.parametrize("crowding", [0.0, 1.0])
def test_single_law(crowding: float) -> None:
    family = Fanout(items="4", questions="total", crowding=str(crowding))
    p = (1 - crowded_rate(4, crowding)) ** 4 * (1 - E)
    rate = measured(family, "single")
    assert within(rate, p), (rate, p)


def test_parallel_and_agent_laws() -> None:
    family = Fanout(items="4", questions="total")
    assert within(measured(Fanout(items="4", questions="total", plain=True), "parallel"), 1 - E)
    assert within(measured(family, "parallel"), checked_answer_law())
    rate, p = measured(family, "agent"), agent_law(4, 0.0)
    assert within(rate, p) and p > (1 - E) ** 5, (rate, p)


def test_orchestrate_law() -> None:
    family = Fanout(items="3", questions="total")
    ids_ok, all_skipped = (1 - E) ** 3, (E / 2) ** 3
    plan = (1 - E) * ids_ok * (1 + E + (1 - E) * all_skipped)  # one repair after prose or an empty plan
    p = plan * (1 - E) ** 3 * (1 - E)
    rate = measured(family, "orchestrate")
    assert within(rate, p), (rate, p)


