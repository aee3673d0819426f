"""A sync tool that hangs costs only its own thread: healthy tools keep working, and the process still exits."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from patterns import threads
from patterns.tools import ToolOutcome, ToolSet, tool

from .conftest import ROOT

DEFAULT_THREADS = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor: 6 on 2 cores


def hanging_and_healthy(release: threading.Event, hang_s: float = 0.2) -> ToolSet:
    @tool(timeout_s=hang_s)
    def hang(x: int) -> str:
        """Wait until released.

        Args:
            x: anything
        """
        release.wait()
        return "late"

    @tool(timeout_s=5.0)
    def ok(x: int) -> str:
        """Answer at once.

        Args:
            x: a number to echo
        """
        return f"ok {x}"

    return ToolSet([hang, ok])


def test_hung_calls_take_no_thread_from_healthy_ones() -> None:
    release = threading.Event()
    tools = hanging_and_healthy(release, hang_s=1.0)
    many = DEFAULT_THREADS + 4  # more hung calls at once than asyncio's default executor has threads

    async def main() -> tuple[list[ToolOutcome], list[ToolOutcome], bool, list[ToolOutcome]]:
        hanging = [asyncio.create_task(tools.execute("hang", {"x": i})) for i in range(many)]
        await asyncio.sleep(0.05)  # every one of them is running, and hanging
        during = await asyncio.gather(*(tools.execute("ok", {"x": i}) for i in range(10)))
        meanwhile = not any(task.done() for task in hanging)  # the healthy calls did not wait for their threads
        hung = await asyncio.gather(*hanging) + [await tools.execute("hang", {"x": i}) for i in range(3)]
        after = await asyncio.gather(*(tools.execute("ok", {"x": i}) for i in range(10)))
        return hung, during, meanwhile, after

    try:
        hung, during, meanwhile, after = asyncio.run(main())
    finally:
        release.set()
    assert [o.error_type for o in hung] == ["ToolTimeout"] * (many + 3)
    assert hung[0].content == "Error: tool 'hang' timed out after 1 s."
    assert meanwhile
    assert [(o.is_error, o.content) for o in during + after] == [(False, f"ok {i}") for i in range(10)] * 2


def test_a_tool_with_too_many_stuck_calls_fails_at_once_until_one_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "MAX_STUCK", 2)
    release = threading.Event()
    tools = hanging_and_healthy(release)
    for _ in range(500):  # the calls an earlier test left hanging (the same tool's code) have returned
        if not threads.pool().stuck[refused_key(tools)]:
            break
        time.sleep(0.01)

    # The same tool's code with an hour's timeout: a call that waited for its timeout, or started a thread (which
    # blocks until released), would stall the test; no clock is read (tests never assert wall time).
    patient = hanging_and_healthy(release, hang_s=3600.0)

    async def main() -> tuple[list[ToolOutcome], ToolOutcome, ToolOutcome]:
        stuck = [await tools.execute("hang", {"x": i}) for i in range(2)]
        refused = await patient.execute("hang", {"x": 9})
        healthy = await tools.execute("ok", {"x": 1})
        release.set()  # the stuck calls return: their key counts nothing any more
        for _ in range(100):
            if not threads.pool().stuck[refused_key(tools)]:
                break
            await asyncio.sleep(0.01)
        return [*stuck, refused], healthy, await tools.execute("hang", {"x": 3})

    try:
        outcomes, healthy, again = asyncio.run(main())
    finally:
        release.set()
    assert [o.error_type for o in outcomes] == ["ToolTimeout"] * 3
    assert outcomes[-1].content == "Error: tool 'hang' timed out: 2 earlier calls are still running."
    assert healthy.content == "ok 1"
    assert (again.is_error, again.content) == (False, "late")


def refused_key(tools: ToolSet) -> object:
    fn = tools.tools["hang"].fn
    return (fn.__module__, fn.__qualname__)


def test_the_process_exits_while_a_hung_call_runs_on() -> None:
    script = textwrap.dedent('''
        import asyncio, time
        from patterns.tools import ToolSet, tool

        @tool(timeout_s=0.2)
        def hang() -> str:
            """Never returns."""
            time.sleep(3600)
            return ""

        print(asyncio.run(ToolSet([hang]).execute("hang", {})).error_type)
    ''')
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "ToolTimeout", "")


TOOLS = '''
import threading
from patterns.tools import tool

@tool(timeout_s=0.2)
def lookup(query: str) -> str:
    """Look a query up.

    Args:
        query: what to look up
    """
    threading.Event().wait()  # never returns
    return query
'''
HEALTHY = '''
from patterns.tools import tool

@tool(timeout_s=5)
def fetch(query: str) -> str:
    """Fetch a query.

    Args:
        query: what to fetch
    """
    return "found " + query
'''


def test_a_sweep_whose_tool_hangs_on_every_call_finishes(tmp_path: Path) -> None:
    rows = [{"id": f"r{i}", "input": f"look up item {i}", "target": f"item {i}"} for i in range(3)]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "hangs.py").write_text(TOOLS)
    (tmp_path / "healthy.py").write_text(HEALTHY)
    for name, module in (("hang", "hangs.py"), ("ok", "healthy.py")):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\ndataset = "data.jsonl"\ntools = "{module}"\n')
    out = tmp_path / "out"
    args = [sys.executable, "-m", "benchmarks", "bench", "--tasks", f"{tmp_path / 'hang.toml'},{tmp_path / 'ok.toml'}",
            "--instances", "3", "--trials", "2", "--workers", "1", "--quiet", "--out", str(out)]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (out / "criterion.csv").exists()  # the process went on after runs.csv, to the end
    runs = pd.read_csv(out / "runs.csv")[["run_id", "task"]]
    calls = pd.read_json(out / "events.jsonl", lines=True).merge(runs, on="run_id")
    calls = calls[calls["kind"] == "tool_call"]
    hung, healthy = calls[calls["task"] == "hang"], calls[calls["task"] == "ok"]
    assert len(hung) > DEFAULT_THREADS and (hung["error.type"] == "ToolTimeout").all()
    assert len(healthy) > DEFAULT_THREADS and not healthy["is_error"].eq(True).any()
