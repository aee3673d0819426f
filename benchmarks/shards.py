"""Scale-out for `wva bench`: the sweep's missing trials split into shards that run in other processes.

- **local** (`--workers N`): N processes ("forkserver", or "spawn" where there is none), shard k
  holding every N-th trial of the plan. Each runs its trials exactly as a single-process sweep
  does (`bench.run_specs`) and appends each finished one to its own journal,
  `.journal.<pid>-<k>.jsonl`, so a crash of any process loses nothing that finished. The parent
  follows those journals (the progress bar, the records); `--resume` reads every journal in the
  folder. A shard stops taking trials when its parent dies.
- **ray** (`--executor ray [--address ADDR]`): the trials are cut into chunks run as Ray tasks (one CPU
  each, at most `workers` at a time); each returns its records, which the parent appends to the
  sweep's own journal as they come back, so resume works the same way.

Results equal a single-process run's with the same seed (same rows in the same order; only `wall_s`
differs): a trial's randomness comes from its run id, never from which process ran it or when.
The bounds are the sweep's, divided between the shards: each runs `ceil(concurrency / N)` trials at
once and `max(1, max_in_flight // N)` model calls, so `--max-in-flight` stays the account-wide bound
against a real API (at least one call per shard).
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from patterns.model import aclose_model
from patterns.specs import load_model

from . import journal
from .bench import BenchConfig, plan, run_specs
from .trial import TrialSpec

MIN_TRIALS_PER_WORKER = 500  # the automatic worker count: a smaller shard costs more to start than it saves
CHUNKS_PER_WORKER = 4  # ray: chunks per worker, so a lost task costs little and progress moves
MAX_CHUNK = 200
POLL_S = 0.2

Record = Callable[..., None]  # bench's record(spec, row, events, *, logged=False)


def is_simulated(model_spec: str) -> bool:
    return model_spec == "sim" or model_spec.startswith("sim:")


def workers_for(config: BenchConfig, todo: int, *, model_given: bool) -> int:
    """How many processes run the `todo` trials (0 for ray: as many as the cluster has CPUs)."""
    if config.executor == "ray":
        if model_given:
            raise ValueError("a model object built in code cannot be sent to a Ray cluster: pass its spec")
        return config.workers or 0
    if model_given:  # a model object built in code stays in this process
        if config.workers not in (None, 1):
            raise ValueError("a model object built in code runs in this process only: use workers=1")
        return 1
    if config.workers is not None:
        return max(1, min(config.workers, todo))
    if not is_simulated(config.model):
        return 1
    return max(1, min(os.cpu_count() or 1, todo // MIN_TRIALS_PER_WORKER))


def bounds(config: BenchConfig, workers: int) -> tuple[int, int]:
    """(trials in flight, model calls in flight) for each of `workers` shards."""
    return max(1, math.ceil(config.concurrency / workers)), max(1, config.max_in_flight // workers)


async def run_sharded(config: BenchConfig, todo: list[TrialSpec], workers: int, record: Record) -> None:
    if config.executor == "ray":
        await _run_ray(config, todo, workers, record)
    else:
        await _run_local(config, todo, workers, record)


@lru_cache(maxsize=4)
def _planned(config: BenchConfig) -> tuple[dict[str, TrialSpec], dict[str, Any]]:
    specs, policies = plan(config)
    return {s.run_id: s for s in specs}, policies


def _run_here(config: BenchConfig, run_ids: list[str], concurrency: int, max_in_flight: int,
              on_record: Callable[[TrialSpec, dict[str, Any], list[dict[str, Any]]], None],
              keep_going: Callable[[], bool] = lambda: True) -> None:
    """Run some trials of the sweep in this (other) process, from the same plan as the parent's."""
    by_id, policies = _planned(config)
    specs = [by_id[rid] for rid in run_ids]
    model = load_model(config.model)

    async def main() -> None:
        try:
            await run_specs(specs, model, policies, config, concurrency, max_in_flight, on_record, keep_going)
        finally:
            await aclose_model(model)

    asyncio.run(main())


def run_shard(config: BenchConfig, run_ids: list[str], journal_path: str, concurrency: int,
              max_in_flight: int) -> int:
    """A local shard (in a worker process): its trials, each appended to its own journal as it ends."""
    parent = os.getppid()
    with journal.Journal(Path(journal_path)) as log:
        _run_here(config, run_ids, concurrency, max_in_flight, lambda spec, row, events: log.append(row, events),
                  keep_going=lambda: os.getppid() == parent)  # orphaned (the parent was killed): stop
    return len(run_ids)


def run_chunk(config: BenchConfig, run_ids: list[str], concurrency: int, max_in_flight: int
              ) -> list[dict[str, Any]]:
    """A Ray task: its trials' records, returned to the parent (a remote node's disk is not the parent's)."""
    records: list[dict[str, Any]] = []
    _run_here(config, run_ids, concurrency, max_in_flight,
              lambda spec, row, events: records.append({"row": row, "events": events}))
    return records


async def _run_local(config: BenchConfig, todo: list[TrialSpec], workers: int, record: Record) -> None:
    concurrency, max_in_flight = bounds(config, workers)
    by_id = {s.run_id: s for s in todo}
    paths = [journal.shard_path(config.out, f"{os.getpid()}-{k}") for k in range(workers)]
    tails = [journal.Tail(p) for p in paths]
    seen: set[str] = set()

    def drain() -> None:
        for tail in tails:
            for rec in tail.read():
                rid = rec["row"]["run_id"]
                if rid in by_id and rid not in seen:
                    seen.add(rid)
                    record(by_id[rid], rec["row"], rec["events"], logged=True)

    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        futures = [pool.submit(run_shard, config, [s.run_id for s in todo[k::workers]], str(paths[k]), concurrency,
                               max_in_flight) for k in range(workers)]
        wrapped = [asyncio.wrap_future(f) for f in futures]
        waiting = set(wrapped)
        while waiting:
            _, waiting = await asyncio.wait(waiting, timeout=POLL_S)
            drain()
        drain()
    failed = [exc for exc in (w.exception() for w in wrapped) if exc is not None]
    if failed:
        raise failed[0]  # a shard's exception (a cassette that does not match, …) is the sweep's
    missing = len(by_id) - len(seen)
    if missing:
        raise RuntimeError(f"{missing} trials were not recorded by the shards: run again with --resume")


def _context() -> multiprocessing.context.BaseContext:
    """"forkserver" where there is one: a clean server process imports this code once and forks the shards
    from it (a spawned process would spend seconds importing the SDK and pandas, each); else "spawn"."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RuntimeError("--executor ray needs Ray: pip install 'workflow-vs-agent[ray]'") from None
    return ray


async def _run_ray(config: BenchConfig, todo: list[TrialSpec], workers: int, record: Record) -> None:
    ray = import_ray()
    started = not ray.is_initialized()
    if started:
        ray.init(address=config.address, log_to_driver=False)
    try:
        workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        concurrency, max_in_flight = bounds(config, workers)
        size = max(1, min(MAX_CHUNK, math.ceil(len(todo) / (workers * CHUNKS_PER_WORKER))))
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
        task = ray.remote(num_cpus=1)(run_chunk)
        by_id = {s.run_id: s for s in todo}
        pending: list[Any] = []
        while chunks or pending:
            while chunks and len(pending) < workers:  # at most `workers` tasks at a time
                pending.append(task.remote(config, [s.run_id for s in chunks.pop(0)], concurrency, max_in_flight))
            ready, pending = await asyncio.to_thread(ray.wait, pending, num_returns=1)
            for rec in await asyncio.to_thread(ray.get, ready[0]):
                record(by_id[rec["row"]["run_id"]], rec["row"], rec["events"])
    finally:
        if started:
            ray.shutdown()
