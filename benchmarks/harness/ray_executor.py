"""`wva bench --executor ray`: the sweep's trials as Ray tasks, their records appended by this process.

The trials are cut into chunks (one CPU each, at most `workers` at a time, by default as many as the
cluster has CPUs); each task returns its records, which the parent appends to the sweep's journal as
they come back, so `--resume` works as for a local run. Ray retries a task whose worker died.

Paths are read where the sweep starts: a task file or task module given by a relative path, and a
`replay:` cassette, are resolved here and sent as absolute paths, since a Ray worker runs in another
folder (the one its node was started from). So every node must see those files at the same absolute
path: one machine, or a shared filesystem mounted at the same place; a node that cannot read them
fails the sweep with one line saying so (exit 2).
"""

from __future__ import annotations

import asyncio
import math
import socket
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.harness.config import BenchConfig
from benchmarks.harness.local import Record
from benchmarks.harness.plan import bounds, run_here
from benchmarks.harness.ray_cluster import ClusterError, cluster_facts, connect, effective, import_ray, shown
from benchmarks.harness.trial import TrialSpec
from patterns.specs import provider_of

WAIT_S = 1.0  # the longest a Ctrl-C waits for the thread that waits on Ray
HEAD_EVERY_S = 2.0  # the head is checked this often while no task returns ...
HEAD_MISSES = 3  # ... and is lost once it has not answered this many times in a row

CHUNKS_PER_WORKER = 4  # chunks per worker, so a lost task costs little and progress moves
MAX_CHUNK = 200


class NodeSetupError(RuntimeError):
    """A Ray worker could not build the sweep (a task file or cassette it cannot read, …)."""


def absolute_path_spec(spec: str, suffixes: tuple[str, ...]) -> str:
    """`spec` with its leading file path (before the first `:`) made absolute, when it names a file here."""
    head = spec.split(":", 1)[0].strip()
    if head.lower().endswith(suffixes) and Path(head).is_file():
        return str(Path(head).resolve()) + spec[len(spec.split(":", 1)[0]):]
    return spec


def shipped(config: BenchConfig) -> tuple[BenchConfig, str]:
    """(the config a Ray worker gets, the model spec it loads): every path made absolute on this machine.

    `config.model` stays as it was: it labels the rows and is part of every run id."""
    def model(spec: str | None) -> str | None:
        if spec is None or provider_of(spec) != "replay":
            return spec
        path = spec.removeprefix("replay:").strip()
        return f"replay:{Path(path).resolve()}" if Path(path).is_file() else spec

    tasks = tuple(absolute_path_spec(t, (".toml", ".py")) for t in config.tasks)
    return replace(config, tasks=tasks, grader_model=model(config.grader_model)), model(config.model) or config.model


def run_chunk(config: BenchConfig, run_ids: list[str], concurrency: int, max_in_flight: int,
              model_spec: str | None = None) -> list[dict[str, Any]]:
    """A Ray task: its trials' records, returned to the parent (a remote node's disk is not the parent's)."""
    records: list[dict[str, Any]] = []
    try:
        run_here(config, run_ids, concurrency, max_in_flight,
                 lambda spec, row, events: records.append({"row": row, "events": events}), model_spec=model_spec)
    except (ValueError, OSError, KeyError) as exc:
        if records:  # not a setup problem: the trials had started
            raise
        what = (f"its plan has no trial {exc}: the task files there differ from the ones here"
                if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}")
        raise NodeSetupError(f"{what} (on Ray node {socket.gethostname()})") from None
    return records


async def run_ray(config: BenchConfig, todo: list[TrialSpec], workers: int, record: Record) -> dict[str, Any]:
    """Run `todo` on the cluster; returns what the manifest records of it."""
    ray = import_ray()
    started = connect(config.address)  # the command line has connected already: a clear line if it could not
    try:
        workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        facts = cluster_facts(ray, config.address, workers)
        await _run_chunks(ray, config, todo, workers, record)
        return facts
    finally:
        if started:
            ray.shutdown()


async def _run_chunks(ray: Any, config: BenchConfig, todo: list[TrialSpec], workers: int, record: Record) -> None:
    concurrency, max_in_flight = bounds(config, workers)
    size = max(1, min(MAX_CHUNK, math.ceil(len(todo) / (workers * CHUNKS_PER_WORKER))))
    chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
    task = ray.remote(num_cpus=1)(run_chunk)
    by_id = {s.run_id: s for s in todo}
    sent, model_spec = shipped(config)
    head = Head(ray, config.address)
    pending: list[Any] = []
    try:
        while chunks or pending:
            while chunks and len(pending) < workers:  # at most `workers` tasks at a time
                pending.append(task.remote(sent, [s.run_id for s in chunks.pop(0)], concurrency, max_in_flight,
                                           model_spec))
            ready, pending = await asyncio.to_thread(ray.wait, pending, num_returns=1, timeout=WAIT_S)
            for ref in ready:
                for rec in await asyncio.to_thread(ray.get, ref):
                    record(by_id[rec["row"]["run_id"]], rec["row"], rec["events"])
            if not ready:
                await asyncio.to_thread(head.check)
    except Exception as exc:
        pending = [] if isinstance(exc, ClusterError) else pending  # a lost cluster has nothing left to cancel
        raise explained(ray, exc, config) from None
    finally:
        for ref in pending:  # an interrupt or a failure: nothing keeps running, or spending, on the cluster
            ray.cancel(ref, force=True)


class Head:
    """The cluster's head, checked while the sweep waits: Ray's own driver retries a lost head for a minute,
    then ends the process without a word; this says so within seconds, with the resume command."""

    def __init__(self, ray: Any, address: str | None) -> None:
        target = effective(address)
        self.address = target.split("://", 1)[-1] if target and target.startswith("ray://") else (
            ray.get_runtime_context().gcs_address if target else None)  # a local instance is this process's own
        self.shown = shown(target)
        self.misses = 0
        self.last = time.monotonic()

    def check(self) -> None:
        if self.address is None or time.monotonic() - self.last < HEAD_EVERY_S:
            return
        self.last = time.monotonic()
        host, _, port = self.address.rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=HEAD_EVERY_S).close()
            self.misses = 0
        except OSError as exc:
            self.misses += 1
            if self.misses >= HEAD_MISSES:
                raise ClusterError(f"lost the Ray cluster at {self.shown} mid-run (its head at {self.address} does "
                                   f"not answer: {exc.strerror or type(exc).__name__}); the finished trials are kept",
                                   exit_status=1, resumable=True) from None


def explained(ray: Any, exc: Exception, config: BenchConfig) -> Exception:
    """A task's own exception as it was raised (a cassette that does not match, …); a node that cannot read
    the sweep's files, or a lost cluster, as a `ClusterError`."""
    cause = getattr(exc, "cause", None) if isinstance(exc, ray.exceptions.RayTaskError) else None
    if isinstance(cause, NodeSetupError):
        return ClusterError(f"a Ray worker cannot set the sweep up: {cause}; every node needs the task files and "
                            "cassettes at the same absolute path as here, and this package installed")
    if isinstance(cause, Exception):
        return cause
    if isinstance(exc, ClusterError):
        return exc
    if isinstance(exc, ray.exceptions.RayError | OSError | ConnectionError):
        text = " ".join(str(exc).split())[:200]
        return ClusterError(f"lost the Ray cluster at {shown(config.address)} mid-run ({type(exc).__name__}: "
                            f"{text}); the finished trials are kept", exit_status=1, resumable=True)
    return exc
