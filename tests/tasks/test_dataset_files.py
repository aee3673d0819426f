"""Bad task files: each problem is one line on stderr, exit 2, and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli.main import main

GOOD_ROWS = [{"id": "a", "input": "What is 2+2?", "target": "4", "category": "math"},
             {"id": "b", "input": "Spell cat backwards.", "target": "tac", "category": "words"}]
TOOL_OK = ('def add(a: int, b: int) -> int:\n    """Add two integers.\n\n    Args:\n        a: one\n'
           '        b: two\n    """\n    return a + b\n')


def write_task(folder: Path, toml: str | None = None, rows: list[dict] | str | None = None,
               files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = GOOD_ROWS if rows is None else rows
    text = rows if isinstance(rows, str) else "".join(json.dumps(r) + "\n" for r in rows)
    (folder / "data.jsonl").write_text(text)
    for name, body in (files or {}).items():
        (folder / name).write_text(body)
    path = folder / "task.toml"
    path.write_text(toml if toml is not None else 'name = "t"\ndataset = "data.jsonl"\nscorer = "exact"\n')
    return path


BASE = 'name = "t"\ndataset = "data.jsonl"\n'
CASES: dict[str, tuple[dict, str]] = {
    "missing task file": ({"toml": None, "delete": True}, "does not exist"),
    "not TOML": ({"toml": "name = = 3\n"}, "not valid TOML"),
    "unknown key": ({"toml": BASE + 'scorers = "exact"\n'}, "valid keys are name, description, dataset"),
    "no dataset key": ({"toml": 'name = "t"\n'}, "'dataset' is required"),
    "missing dataset": ({"toml": 'dataset = "nope.jsonl"\n'}, "dataset file 'nope.jsonl' does not exist"),
    "dataset not jsonl/csv": ({"toml": 'dataset = "task.toml"\n'}, "must be a .jsonl or .csv file"),
    "row without input": ({"rows": [{"id": "a", "target": "1"}]}, "line 1 (id 'a') has no 'input'"),
    "duplicate ids": ({"rows": [GOOD_ROWS[0], GOOD_ROWS[0]]}, "duplicate id, first used on line 1"),
    "row without target": ({"rows": [{"id": "a", "input": "x"}]}, "has no 'target'"),
    "row not JSON": ({"rows": '{"id": "a", "input": "x", "target": "y"}\n{oops\n'}, "line 2 is not JSON"),
    "empty dataset": ({"rows": ""}, "the dataset has no rows"),
    "unknown scorer": ({"toml": BASE + 'scorer = "fuzzy"\n'}, "unknown scorer 'fuzzy'"),
    "number scorer, text target": ({"toml": BASE + 'scorer = "number"\n'}, "is not one number"),
    "tools module fails to import": ({"toml": BASE + 'tools = "tools.py"\n',
                                      "files": {"tools.py": "import json\nraise RuntimeError('no database')\n"}},
                                     "tools module 'tools.py' failed to import (line 2): RuntimeError: no database"),
    "tool without a docstring": ({"toml": BASE + 'tools = "tools.py"\n',
                                  "files": {"tools.py": TOOL_OK + "def lookup(key: str) -> str:\n    return key\n"}},
                                 "tool 'lookup' cannot be offered: tool 'lookup' needs a docstring"),
    "tool parameter without a type": ({"toml": BASE + 'tools = "tools.py"\n',
                                       "files": {"tools.py": 'def find(key):\n    """Find a key."""\n'}},
                                      "parameter 'key' needs a type hint"),
    "@tool failing at import": ({"toml": BASE + 'tools = "tools.py"\n',
                                 "files": {"tools.py": "from patterns import tool\n@tool\ndef f(x):\n    return x\n"}},
                                "failed to import (line 2): TypeError: tool 'f' needs a docstring"),
    "category outside routes": ({"toml": BASE + '[routes]\nmath = "m"\nspelling = "s"\n'},
                                "category 'words' is not one of the [routes]: math, spelling"),
    "a single route": ({"toml": BASE + '[routes]\nmath = "m"\n'}, "at least two categories"),
    "votes out of range": ({"toml": BASE + "votes = 0\n"}, "'votes' must be an integer from 1 to 15"),
    "design module without design()": ({"toml": BASE + 'design = "d.py"\n', "files": {"d.py": "x = 1\n"}},
                                       "has no design(pattern, env)"),
    "bad name": ({"toml": 'name = "a b"\ndataset = "data.jsonl"\n'}, "must be one word"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_task_file_is_one_line_exit_2_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    options, says = CASES[case]
    path = write_task(tmp_path / "task", options.get("toml"), options.get("rows"), options.get("files"))
    if options.get("delete"):
        path.unlink()
    out = tmp_path / "out"
    status = main(["bench", "--tasks", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("wva: error:") and "Traceback" not in err, err
    assert says in err, err
    assert not out.exists()


def test_the_table_covers_at_least_ten_cases() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("command", [["run", "agent"], ["graph", "single"]])
def test_other_commands_refuse_a_bad_task_file_the_same_way(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    path = write_task(tmp_path / "task", BASE + 'scorer = "fuzzy"\n')
    status = main([*command, str(path)])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "unknown scorer" in err, err


def test_a_csv_dataset_with_optional_fields_and_missing_ids(tmp_path: Path) -> None:
    from benchmarks.tasks.dataset import DatasetTask

    folder = tmp_path / "csvtask"
    folder.mkdir()
    (folder / "rows.csv").write_text("input,target,category\nWhat is 2+2?,4,math\n\"Say \"\"hi\"\", please\",hi,\n")
    (folder / "t.toml").write_text('dataset = "rows.csv"\nscorer = "exact"\n')
    task = DatasetTask.from_file(folder / "t.toml")
    rows = task.instances(10, 0)
    assert [r.id for r in rows] == ["t-0000", "t-0001"] and task.name == "t"
    assert rows[1].prompt == 'Say "hi", please' and rows[0].data["fields"] == {"category": "math"}
    assert "route" in task.not_offered()
