"""A task file's `[workflow]` beyond a straight list: a bounded loop, a code dispatch on a field of a tool's JSON
result, and a failed tool step passed on to the next step instead of ending the run."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from benchmarks.cli.main import main
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.tasks.dataset import DatasetTask

from .toml_loops import loop_step

TOOLS = '''"""Four places along a hidden trail: each result names the next place and key in JSON, the last says
`next: null` and holds the answer."""
import json

TRAIL = {"K-1": ("registry", "K-2"), "K-2": ("ledger", "K-3"), "K-3": ("index", "K-4"), "K-4": None,
         "K-7": ("archive", "K-8"), "K-8": None}
ANSWERS = {"K-4": "gold", "K-8": "silver"}


def _visit(place: str, key: str) -> str:
    if key not in TRAIL:
        raise KeyError(f"{place}: no entry {key!r}")
    nxt = TRAIL[key]
    if nxt is None:
        return json.dumps({"answer": ANSWERS[key], "next": None})
    return json.dumps({"note": f"{place} read {key}", "next": {"tool": nxt[0], "key": nxt[1]}})


def archive(key: str) -> str:
    """The archive. Args: key: an entry key like K-1"""
    return _visit("archive", key)


def registry(key: str) -> str:
    """The registry. Args: key: an entry key like K-1"""
    return _visit("registry", key)


def ledger(key: str) -> str:
    """The ledger. Args: key: an entry key like K-1"""
    return _visit("ledger", key)


def index(key: str) -> str:
    """The index. Args: key: an entry key like K-1"""
    return _visit("index", key)
'''
ROWS = [{"id": "T-1", "input": '```json\n{"next": {"tool": "registry", "key": "K-1"}}\n```', "target": "gold"},
        {"id": "T-2", "input": '```json\n{"next": {"tool": "archive", "key": "K-7"}}\n```', "target": "silver"},
        {"id": "T-3", "input": '```json\n{"next": {"tool": "ledger", "key": "K-9"}}\n```', "target": "none"}]
HEAD = '''name = "trail"
dataset = "trail.jsonl"
tools = "tools.py"
scorer = "includes"
'''
LOOP = loop_step(6, "next", "null",
                 'name = "follow"\ndispatch = "{input.next.tool}"\nargs = { key = "{input.next.key}" }\n')


def _task_file(tmp_path: Path, workflow: str) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "trail.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    path = tmp_path / "trail.toml"
    path.write_text(HEAD + "\n" + workflow)
    return path


def _runs(path: Path, out: Path) -> list[dict[str, object]]:
    config = BenchConfig(tasks=(str(path),), patterns=("chain",), instances=3, trials=1, model="sim",
                         out=out, workers=1)
    runs = asyncio.run(run_bench(config)).runs
    return runs.sort_values("instance").to_dict("records")


def test_a_loop_of_code_dispatches_follows_the_trail_without_a_model_call(tmp_path: Path) -> None:
    """The loop calls whichever tool the last result names, with its key, until `next` is null; the walk's
    length differs per row (3 and 1 hops past the input's), and no model is asked anything."""
    runs = _runs(_task_file(tmp_path, LOOP), tmp_path / "out")
    assert [r["instance"] for r in runs] == ["T-1", "T-2", "T-3"]
    assert runs[0]["success"] and runs[1]["success"]
    assert [r["tool_calls"] for r in runs[:2]] == [4, 2]
    assert all(r["steps"] == 0 for r in runs)  # model calls: code dispatched every step


def test_a_failed_tool_call_is_passed_on_and_the_loop_stops_on_its_status(tmp_path: Path) -> None:
    """Row T-3's key is unknown: the tool fails, its `ERROR: ...` output goes on (status ERROR) and a loop told to
    stop on it stops, instead of the run ending with a ToolError."""
    loop = LOOP.replace('until = { field = "next", equals = "null" }', 'until = { field = "status", equals = "ERROR" }')
    loop += '''[[workflow.steps]]
name = "report"
tool = "archive"
args = { key = "K-8" }
'''
    runs = _runs(_task_file(tmp_path, loop.replace("max_rounds = 6", "max_rounds = 2")), tmp_path / "out")
    third = runs[2]
    assert third["terminal"] != "error" and third["tool_calls"] == 2  # the failed call, then the report step
    assert third["terminal"] == "completed"
    assert [r["tool_calls"] for r in runs[:2]] == [3, 3]  # the others: two rounds of the trail, then the report


def test_a_dispatch_outside_its_tools_and_a_missing_field_are_typed_failures(tmp_path: Path) -> None:
    only = LOOP.replace('dispatch = "{input.next.tool}"',
                        'dispatch = "{input.next.tool}"\ntools = ["registry", "ledger"]')
    runs = _runs(_task_file(tmp_path, only), tmp_path / "out")
    assert runs[1]["error_kinds"] == "UnknownTool"  # archive is not among the dispatch's tools
    missing = LOOP.replace("{input.next.key}", "{input.next.id}")
    runs = _runs(_task_file(tmp_path, missing), tmp_path / "out2")
    assert {r["error_kinds"] for r in runs} == {"MissingField"}


def test_the_loop_draws_as_a_bounded_loop_around_a_code_dispatch(tmp_path: Path) -> None:
    task = DatasetTask.from_file(_task_file(tmp_path, LOOP))
    graph = task.design("chain", task.environment(task.instances(1, 0)[0], tmp_path)).graph
    kinds = {graph.nodes[n]["kind"] for n in graph}
    assert {"code", "tool"} <= kinds
    assert any(d.get("loop") for _, _, d in graph.edges(data=True))
    assert any(graph.nodes[n].get("dispatch") for n in graph)


@pytest.mark.parametrize(("workflow", "message"), [
    (LOOP.replace("max_rounds = 6\n", ""), "a loop needs 'max_rounds'"),
    (LOOP.replace("max_rounds = 6", "max_rounds = 1000"), "a whole number from 1 to 100"),
    (LOOP.replace('equals = "null"', "missing = false"), "'until' must be"),
    (LOOP.replace("{input.next.key}", "{later.key}"), "{later} is neither task, input nor an earlier step"),
    (LOOP.replace('args = { key = "{input.next.key}" }', 'args = { id = "{task}" }'),
     "the arguments of the tools it may call are key"),
    (LOOP + '[[workflow.steps.steps]]\nname = "inner"\nmax_rounds = 2\nuntil = { field = "x", missing = true }\n'
     '[[workflow.steps.steps.steps]]\nname = "deep"\nprompt = "x"\n', "a loop's steps cannot hold another loop"),
    (LOOP + '[[workflow.steps.steps]]\nname = "pick"\nprompt = "Pick the next place: {input}"\n'
     'tools = ["archive", "registry", "ledger", "index"]\n', "agent-like"),
])
def test_a_bad_loop_is_one_line(tmp_path: Path, workflow: str, message: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    path = _task_file(tmp_path, workflow)
    with pytest.raises(ValueError, match=re.escape(message)):
        DatasetTask.from_file(path)
    assert main(["bench", "--tasks", str(path), "--instances", "1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "trail.toml" in err[0] and not (tmp_path / "o").exists()
