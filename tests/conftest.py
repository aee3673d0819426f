"""Make the repository root importable (the example task family lives in examples/), and keep every test
away from a real API key or base URL in the developer's shell."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key or base URL from the developer's shell reaches the SDK; tests set their own."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WVA_PRICES", "")  # the built-in price table; `--prices` in a test is undone after it


@contextlib.contextmanager
def one_ray_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Holds a lock shared by the run's processes while a test starts a local Ray instance: the CI command runs
    test files side by side (pytest-xdist), and two Ray instances starting at once on 2 cores timed out."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock (the processes may then start Ray side by side)
        yield
        return
    # the workers' base folders are popen-gw0, popen-gw1, ... in one folder: the lock file sits beside them
    with open(tmp_path_factory.getbasetemp().parent / "wva-ray.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# The quick subset, `pytest -m "not slow"` (README: "Tests"): every test except those of these modules, which
# run whole sweeps, servers, subprocesses, notebooks or calibration simulations. The full suite (plain
# `pytest`) stays the CI command; the subset is for the edit-test loop and must stay under 3 minutes
# (measured: docs/performance.md). A module is listed here by its measured time, never to hide a failure.
SLOW_MODULES = frozenset({
    "test_notebooks", "test_notebooks_03", "test_openai_bench", "test_sdk_agent", "test_sdk_caching",
    "test_sdk_compaction", "test_sdk_openai", "test_sdk_openai_agents", "test_sdk_workflows", "test_ray_paths",
    "test_perf_scripts",
    "test_shards", "test_shard_orphans", "test_verdict_calibration", "test_drawability_truth", "test_known_walks",
    "test_fault_sweeps", "test_secrets", "test_interrupts", "test_interrupts_one_process",
    "test_simserver", "test_simserver_faults",
    "test_simserver_hardening", "test_cli_sim_server", "test_readme_figures", "test_tool_hangs",
    "test_until_decided", "test_drawn_comparator", "test_drawn_graph", "test_audit", "test_bench", "test_cli",
    "test_cli_verdict_flags", "test_resume_rules", "test_folder_lock", "test_torn_files", "test_sweep_axes",
    "test_new_pattern", "test_planning", "test_criterion_io", "test_report", "test_otel", "test_preflight",
    "test_scorer_failures", "test_loop_properties", "test_graph_command", "test_map_labels",
    # the simulator's laws and the families' success laws: thousands of simulated trials each
    "test_sim_physics", "test_repair", "test_multihop", "test_fanout_laws", "test_sequential", "test_contract",
    "test_openai_quirks", "test_cost_interval", "test_design_bounds", "test_caching", "test_fast_paths",
    "test_dataset_runs", "test_pipeline", "test_support",
})


# The CI command runs each file on one worker (`--dist loadfile`), handing out files in the order collected. The
# files that took longest (CPU seconds per file, measured 2026-12-07) go first, so that none of them starts last and
# runs on alone while the other worker sits idle. Order only: every test still runs, and the files not named keep
# their collected order after these.
LONGEST_FIRST = ("test_notebooks", "test_drawability_truth", "test_interrupts", "test_interrupts_one_process",
                 "test_perf_scripts", "test_notebooks_03", "test_bench", "test_openai_bench", "test_known_walks",
                 "test_bugfix", "test_ray_paths", "test_resume_rules", "test_planning", "test_audit",
                 "test_folder_lock")


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist >= 3.7 reorders files by their number of tests (a few long tests, such as a notebook run, would
    # then go last): keep LONGEST_FIRST's order instead. Older versions hand out files in the collected order.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    rank = {stem: i for i, stem in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))  # stable: each file's tests stay together
