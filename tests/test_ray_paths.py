"""`--executor ray` against a Ray cluster whose workers run in another folder: relative paths work, and an
address that cannot be used is one line and exit 2 within seconds, with nothing written."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.harness.ray_cluster import ClusterError, connect, reason, shown

from .conftest import ROOT, one_ray_at_a_time
from .test_shard_orphans import gone, live_members

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'workflow-vs-agent[ray]')")
TOKENS = tuple(int(x) for x in ray.__version__.split(".")[:2]) >= (2, 52)  # Ray's token authentication
HEAD = """import sys, ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()  # until the test is done
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")  # the cluster's token goes to <home>/.ray/auth_token, not the user's


def env(home: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    return {**base, "HOME": str(home), "PYTHONPATH": str(ROOT), **extra}


@pytest.fixture(scope="module", autouse=True)
def _the_only_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with one_ray_at_a_time(tmp_path_factory):
        yield


@pytest.fixture(scope="module")
def cluster(_the_only_ray: None, home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A one-node Ray cluster started in a folder of its own, as `ray start` on another node would be."""
    elsewhere = tmp_path_factory.mktemp("node")
    head = subprocess.Popen([sys.executable, "-c", HEAD], cwd=elsewhere, env=env(home, RAY_AUTH_MODE="token"),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    assert head.stdout is not None and head.stdin is not None
    address = head.stdout.readline().strip()
    try:
        assert address, "the Ray head did not start"
        yield address
    finally:
        head.stdin.close()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
        if not gone(head.pid, within=20):
            for pid in live_members(head.pid):
                os.kill(pid, signal.SIGKILL)


def wva(args: list[str], environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # How soon it gives up is checked on a fake clock (tests/test_ray_deadlines.py), never here: a loaded machine
    # takes longer to start Python and Ray. The timeout only keeps a hang from stalling the suite.
    return subprocess.run([sys.executable, "-m", "benchmarks", *args], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=240)


def bench(out: Path, address: str) -> list[str]:
    return ["bench", "--executor", "ray", "--address", address, "--tasks", "examples/tickets/tickets.toml",
            "--instances", "2", "--trials", "1", "--quiet", "--out", str(out)]


def test_a_relative_task_file_path_works_on_workers_that_run_elsewhere(cluster: str, home: Path,
                                                                     tmp_path: Path) -> None:
    done = wva(bench(tmp_path / "out", cluster), env(home, RAY_AUTH_MODE="token"))
    assert done.returncode == 0, done.stderr
    assert "14 trials (14 run now)" in done.stdout
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["executor"] == "ray" and manifest["workers"] == 2
    assert manifest["ray"] == {"address": cluster, "nodes": 1, "cpus": 2}


@pytest.mark.skipif(not TOKENS, reason="Ray < 2.52 has no token authentication")
def test_a_missing_token_is_one_line_and_exit_2(cluster: str, home: Path, tmp_path: Path) -> None:
    done = wva(bench(tmp_path / "out", cluster), env(home))  # RAY_AUTH_MODE unset: no token sent
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1].startswith(f"wva: error: the Ray cluster at {cluster} refused this "
                                                   "connection's token: ")
    assert not (tmp_path / "out").exists()


def test_an_unreachable_address_is_one_line_exit_2_and_writes_nothing(home: Path, tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = wva(bench(tmp_path / "out", f"127.0.0.1:{port}"), env(home))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"wva: error: cannot reach the Ray cluster at 127.0.0.1:{port} (connection "
                                        "refused): is it running? (start one with `ray start --head` and pass the "
                                        "address it prints (HOST:6379))"]
    assert not (tmp_path / "out").exists()  # no folder, no empty journal


@pytest.mark.skipif(importlib.util.find_spec("grpc") is not None, reason="Ray Client is installed here")
def test_a_ray_client_address_without_ray_client_says_how_to_install_it() -> None:
    with pytest.raises(ClusterError, match=r"install 'workflow-vs-agent\[ray\]' \(it brings ray\[client\]\)") as err:
        connect("ray://127.0.0.1:10001")
    assert err.value.exit_status == 2 and not ray.is_initialized()


def test_what_ray_says_becomes_one_line_and_no_address_shows_a_secret() -> None:
    assert shown("ray://alice:s3cret@head.example:10001/?token=abc") == "ray://head.example:10001"
    assert shown(None) == "local" and shown("10.0.0.5:6379") == "10.0.0.5:6379"
    auto = reason("auto", "ConnectionError: Could not find any running Ray instance. Please ...", timed_out=False)
    assert auto.startswith("no Ray cluster is running on this machine for --address auto: start one with")
    stuck = reason("10.0.0.5:6379", "[...] Failed to get cluster ID from GCS server: TimedOut", timed_out=True)
    assert stuck.startswith("no Ray cluster answered at 10.0.0.5:6379 within 15 s")
    assert "\n" not in auto + stuck


def test_a_node_that_cannot_read_the_task_file_stops_the_sweep_with_one_line_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.harness.bench import BenchConfig
    from benchmarks.harness.ray_executor import NodeSetupError, explained, run_chunk, shipped

    monkeypatch.chdir(ROOT)
    config = BenchConfig(tasks=("examples/tickets/tickets.toml:votes=5",), out=tmp_path, executor="ray",
                         model="replay:examples/tickets/cassette.jsonl")
    sent, model_spec = shipped(config)  # what the workers get: absolute paths; the labels stay as they were
    assert sent.tasks == (f"{ROOT / 'examples/tickets/tickets.toml'}:votes=5",) and sent.model == config.model
    assert model_spec == f"replay:{ROOT / 'examples/tickets/cassette.jsonl'}"
    elsewhere = BenchConfig(tasks=(str(tmp_path / "gone" / "tickets.toml"),), out=tmp_path, executor="ray")
    with pytest.raises(NodeSetupError, match=r"tickets.toml' does not exist \(on Ray node ") as raised:
        run_chunk(elsewhere, ["x"], 1, 1)  # what a worker on a node without the file does
    error = explained(ray, ray.exceptions.RayTaskError("run_chunk", "", raised.value), config)
    assert isinstance(error, ClusterError) and error.exit_status == 2
    assert str(error).startswith("a Ray worker cannot set the sweep up: ValueError: task file ")
