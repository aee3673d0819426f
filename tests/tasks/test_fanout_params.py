"""`fanout`'s parameters (moved from test_fanout.py, which had grown past 300 lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.tasks.fanout import Fanout
from benchmarks.tasks.registry import load_task

WORK = Path(".")


@pytest.mark.parametrize("bad", [{"items": "1"}, {"items": "x"}, {"items": "5-2"}, {"crowding": "-1"},
                                 {"crowding": "lots"}, {"questions": "sum"}, {"nope": "1"}])
def test_bad_parameters_are_one_line_value_errors(bad: dict[str, str]) -> None:
    with pytest.raises(ValueError) as info:
        Fanout(**bad)
    assert "\n" not in str(info.value)


def test_parameters_from_a_task_spec_and_unknown_patterns() -> None:
    family = load_task("fanout:items=3-5,questions=max/total,crowding=0.5")
    assert (str(family.items), family.questions, family.crowding) == ("3-5", "max/total", 0.5)
    assert {i.data["kind"] for i in family.instances(20, 0)} == {"max", "total"}
    with pytest.raises(ValueError, match="unknown pattern"):
        family.design("nope", family.environment(family.instances(1, 0)[0], WORK))
