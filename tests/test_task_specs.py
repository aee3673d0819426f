"""Task specs: several parameters in one spec, several specs in one --tasks, a .toml path among them,
and the one-line error when a list is truly ambiguous (issue 15, section 5)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from benchmarks.cli.main import main
from benchmarks.tasks.base import task_label
from benchmarks.tasks.registry import load_task, split_task_list

TICKETS = str(Path(__file__).resolve().parent.parent / "examples" / "tickets" / "tickets.toml")


@pytest.mark.parametrize(("text", "specs"), [
    ("multihop", ["multihop"]),
    ("multihop:hops=1-6,depth=3", ["multihop:hops=1-6,depth=3"]),  # several parameters in one spec
    ("multihop:hops=1-6,depth=3,support", ["multihop:hops=1-6,depth=3", "support"]),
    ("pipeline,support,fanout", ["pipeline", "support", "fanout"]),  # several specs
    ("multihop:hops=2,support:issues=2,distractors=0", ["multihop:hops=2", "support:issues=2,distractors=0"]),
    ("multihop:hops=2;support", ["multihop:hops=2", "support"]),  # ';' still separates
    ("multihop, hops=3", ["multihop:hops=3"]),  # a parameter after a bare name starts its parameter list
    ("examples.minimal_family:Capitals,countries=3,support",
     ["examples.minimal_family:Capitals:countries=3", "support"]),
    (f"support,{TICKETS},multihop:depth=2", ["support", TICKETS, "multihop:depth=2"]),  # a task file among them
    (f"{TICKETS}:votes=5,rounds=2,fanout", [f"{TICKETS}:votes=5,rounds=2", "fanout"]),
])
def test_every_documented_form_splits_into_its_specs(text: str, specs: list[str]) -> None:
    assert split_task_list(text) == specs


@pytest.mark.parametrize(("text", "says"), [
    ("multihop:hops=1-6,3", "ambiguous"),  # is 3 a value or a task?
    ("support,depth", "ambiguous"),  # a parameter without '=' or an unknown task?
    ("hops=3,multihop", "before any task"),
    (",;,", "no task"),
])
def test_an_ambiguous_list_is_refused_with_a_reason(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        split_task_list(text)


def test_several_parameters_reach_the_family() -> None:
    family = load_task(split_task_list("multihop:hops=1-6,depth=3,support")[0])
    assert (str(family.hops), family.depth) == ("1-6", 3)
    assert task_label(family) == "multihop:depth=3"
    tickets = load_task(f"{TICKETS}:votes=5")
    assert (tickets.votes, tickets.rounds, task_label(tickets)) == (5, 3, "tickets:votes=5")


def test_bench_accepts_several_specs_with_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    status = main(["bench", "--tasks", f"multihop:hops=1-2,depth=2,support:distractors=0,{TICKETS}",
                   "--patterns", "single", "--instances", "1", "--trials", "1", "--out", str(out), "--quiet"])
    assert status == 0
    with (out / "runs.csv").open() as f:
        runs = list(csv.DictReader(f))
    assert {row["task"] for row in runs} == {"multihop:hops=1-2,depth=2", "support:distractors=0",
                                       "tickets"}
    capsys.readouterr()


@pytest.mark.parametrize("tasks", ["multihop:hops=1-6,3", "hops=2", "multihop:hops=1-6,depth=x"])
def test_bench_refuses_a_bad_list_in_one_line_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tasks: str) -> None:
    out = tmp_path / "out"
    status = main(["bench", "--tasks", tasks, "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not out.exists()


def test_a_missing_module_of_an_imported_package_leaves_the_package_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`benchmarks.tasks.no_such:X` from the repository's folder: one clear error, and `benchmarks` stays the package
    already imported (a fresh copy once replaced it, and `benchmarks.criterion` was then missing for later code)."""
    import sys

    import benchmarks.criterion.table

    monkeypatch.chdir(Path(benchmarks.__file__).parent.parent)
    package = sys.modules["benchmarks"]
    with pytest.raises(ValueError, match=r"cannot import task module 'benchmarks\.tasks\.no_such'"):
        load_task("benchmarks.tasks.no_such:X")
    assert sys.modules["benchmarks"] is package and package.criterion.table is benchmarks.criterion.table
