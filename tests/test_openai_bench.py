"""`wva bench --model openai:sim` against `wva sim-server`'s chat-completions endpoint agrees with `--model sim`.

The same task families, knobs and seed; the suite is small (two families, every pattern), one
trial per instance (each trial gets its own random stream through the wire as in process: the
`x-wva-stream` header; docs/sim-server.md has the full-size measurement).
For every pattern x task the two success rates' Wilson 95% intervals (summary.csv) must overlap.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import load_results
from benchmarks.tasks.registry import load_task
from patterns.sim.server import SimServer

pytest.importorskip("openai")
pytestmark = pytest.mark.timeout(300)
TASKS = ("pipeline", "support")
KNOBS = {"error_rate": 0.2}


def test_openai_sim_through_the_server_gives_the_in_process_success_figures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    common = {"tasks": TASKS, "instances": 30, "trials": 1, "seed": 4}
    asyncio.run(run_bench(BenchConfig(model="sim:error_rate=0.2", out=tmp_path / "sim", workers=1, **common)))
    policies = [load_task(name).policy() for name in TASKS]
    with SimServer(policies=policies, **KNOBS) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-openai-bench")
        asyncio.run(run_bench(BenchConfig(model="openai:sim", out=tmp_path / "openai", **common)))
        calls = server.model.calls
    sim, wire = (load_results(tmp_path / name) for name in ("sim", "openai"))
    assert len(wire["runs"]) == len(sim["runs"]) == 2 * 7 * 30
    assert calls == wire["runs"]["steps"].sum() + wire["manifest"]["preflight"]["attempts"]  # + the pre-flight
    assert set(wire["runs"]["terminal"]) <= {"completed", "error", "max_steps"}
    both = pd.merge(sim["summary"], wire["summary"], on=["task", "pattern"], suffixes=("_sim", "_wire"))
    assert len(both) == 14
    apart = both[(both["ci_high_sim"] < both["ci_low_wire"]) | (both["ci_high_wire"] < both["ci_low_sim"])]
    assert apart.empty, apart[["task", "pattern", "success_rate_sim", "success_rate_wire"]]
    assert 0.5 < both["success_rate_wire"].mean() < 1.0  # the errors are there, through the wire too
    assert (both["steps_mean_sim"] - both["steps_mean_wire"]).abs().max() < 1.0
