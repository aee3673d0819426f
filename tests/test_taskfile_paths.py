"""A task file is code: what it reads and runs stays in its folder unless it says `allow_outside_paths = true`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli.main import main
from benchmarks.tasks.dataset import DatasetTask

ROWS = [{"id": "a", "input": "What is 2 + 2?", "target": "4"}, {"id": "b", "input": "What is 3 + 3?", "target": "6"}]
TOOLS = 'def add(a: int, b: int) -> int:\n    """Add two integers."""\n    return a + b\n'
SCORER = "def score(instance, output):\n    return 1.0\n"


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """`outside/` beside the task's own folder `task/`, each holding a dataset, a tools module and a scorer."""
    for folder in ("task", "outside"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
        (tmp_path / folder / "tools.py").write_text(TOOLS)
        (tmp_path / folder / "score.py").write_text(SCORER)
    return tmp_path


def task_file(place: Path, **keys: str | bool) -> Path:
    lines = {"dataset": "rows.jsonl", **keys}
    path = place / "task" / "sums.toml"
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in lines.items()))
    return path


@pytest.mark.parametrize("key, value", [
    ("dataset", "../outside/rows.jsonl"), ("tools", "../outside/tools.py"), ("design", "../outside/tools.py"),
    ("scorer", "../outside/score.py:score"), ("dataset", "ABSOLUTE"),
])
def test_a_path_out_of_the_folder_is_one_line_exit_2(place: Path, key: str, value: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    value = str(place / "outside" / "rows.jsonl") if value == "ABSOLUTE" else value
    path = task_file(place, **{key: value})
    out = tmp_path / "out"
    for argv in (["bench", "--tasks", str(path), "--out", str(out), "--quiet"], ["run", "single", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is outside the task file's folder" in err and "allow_outside_paths" in err
    assert not out.exists()


def test_a_link_out_of_the_folder_is_outside_too(place: Path) -> None:
    (place / "task" / "linked.jsonl").symlink_to(place / "outside" / "rows.jsonl")
    with pytest.raises(ValueError, match="outside the task file's folder"):
        DatasetTask.from_file(task_file(place, dataset="linked.jsonl"))


def test_the_file_may_allow_outside_paths_in_plain_sight(place: Path, tmp_path: Path) -> None:
    path = task_file(place, dataset="../outside/rows.jsonl", tools="../outside/tools.py",
                     scorer="../outside/score.py:score", allow_outside_paths=True)
    task = DatasetTask.from_file(path)
    assert [i.id for i in task.instances(5, 0)] == ["a", "b"] and task.tools is not None
    assert main(["bench", "--tasks", str(path), "--patterns", "single", "--trials", "1", "--quiet",
                 "--out", str(tmp_path / "out")]) == 0
    with pytest.raises(ValueError, match="must be true or false"):
        DatasetTask.from_file(task_file(place, allow_outside_paths="yes"))


def test_paths_inside_the_folder_and_non_path_scorers_are_untouched(place: Path) -> None:
    (place / "task" / "sub").mkdir()
    (place / "task" / "sub" / "rows.jsonl").write_text((place / "task" / "rows.jsonl").read_text())
    assert DatasetTask.from_file(task_file(place, dataset="sub/../sub/rows.jsonl", tools="tools.py")).tools
    assert DatasetTask.from_file(task_file(place, scorer="regex:../x.py:{target}")).scorer.spec.startswith("regex")
