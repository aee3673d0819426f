"""Scale-out for `wva bench`: the sweep's missing trials split into shards that run in other processes.

- **local** (`--workers N`): N processes ("forkserver", or "spawn" where there is none), shard k
  holding every N-th trial of the plan. Each runs its trials exactly as a single-process sweep
  does (`bench.run_specs`) and appends each finished one to its own journal,
  `.journal.<pid>-<k>.jsonl`, so a crash of any process loses nothing that finished. The parent
  follows those journals (the progress bar, the records); `--resume` reads every journal in the
  folder.
- **ray** (`--executor ray [--address ADDR]`): Ray tasks (`ray_executor.py`).

No shard outlives the `wva` process, however it ends. Its parent in the process tree is the forkserver,
which outlives a killed `wva` (every shard holds the server's "alive" pipe open), so a shard does not
watch its parent pid: it holds one end of a pipe (its *lifeline*) whose other end only the `wva`
process holds, and a thread that reads it exits the shard at once on EOF — a SIGKILL, SIGTERM or
crash of `wva` included. The last shard gone, the forkserver and the resource tracker exit too (each
lives while a process holds its pipe). Ctrl-C goes to `wva` alone: the shards are started with SIGINT
blocked (the forkserver inherits the mask and passes it on) and ignore it; `wva` stops them (SIGTERM,
then SIGKILL after `STOP_S`) as it stops, keeping every trial they finished. A shard that fails stops
the others, and its exception is the sweep's.

Results equal a single-process run's with the same seed (same rows in the same order; only `wall_s`
differs): a trial's randomness comes from its run id, never from which process ran it or when.
The bounds are the sweep's, divided between the shards: each runs `ceil(concurrency / N)` trials at
once and `max(1, max_in_flight // N)` model calls, so `--max-in-flight` stays the account-wide bound
against a real API (at least one call per shard).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import sys
import threading
import time
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from benchmarks.harness import journal
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.local import Record
from benchmarks.harness.plan import bounds, run_here
from benchmarks.harness.trial import TrialSpec
from patterns.specs import ModelSpec

MIN_TRIALS_PER_WORKER = 500  # the automatic worker count: a smaller shard costs more to start than it saves
POLL_S = 0.2
STOP_S = 3.0  # a stopped shard's grace after SIGTERM, before SIGKILL
ORPHANED = 70  # a shard's exit status when it stops because its parent is gone



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
    if not ModelSpec.parse(config.model).is_sim:
        return 1
    return max(1, min(os.cpu_count() or 1, todo // MIN_TRIALS_PER_WORKER))


def run_shard(config: BenchConfig, run_ids: list[str], journal_path: str, concurrency: int,
              max_in_flight: int, positions: list[int] | None = None) -> int:
    """A local shard (in a worker process): its trials, each appended to its own journal as it ends."""
    with journal.Journal(Path(journal_path)) as log:
        run_here(config, run_ids, concurrency, max_in_flight, lambda spec, row, events: log.append(row, events),
                 positions=positions)
    return len(run_ids)


def _shard_main(lifeline: Connection, *shard: Any) -> None:
    """A shard process: it dies with the parent, runs `run_shard(*shard)`, and says on `lifeline` how it ended."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the shards itself
    threading.Thread(target=_exit_when_orphaned, args=(lifeline,), name="wva-lifeline", daemon=True).start()
    try:
        run_shard(*shard)
    except BaseException as exc:  # a shard's exception (a cassette that does not match, …) is the sweep's
        try:
            lifeline.send(exc)
        except Exception:  # it does not pickle: its words do
            lifeline.send(RuntimeError(f"{type(exc).__name__}: {exc}"))
        sys.exit(1)
    lifeline.send(None)


def _exit_when_orphaned(lifeline: Connection) -> None:
    """The parent never writes to the lifeline: a read ends only at EOF, when the parent is gone (however it ended)."""
    try:
        lifeline.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(ORPHANED)  # now, mid-trial: every finished trial is in the journal already


class _Shard:
    def __init__(self, ctx: Any, shard: tuple[Any, ...]) -> None:
        self.lifeline, theirs = ctx.Pipe()  # the parent's end; the shard holds the only other one
        self.process = ctx.Process(target=_shard_main, args=(theirs, *shard), daemon=True)
        self.process.start()
        theirs.close()
        self.ended, self.outcome = False, None  # outcome: None (all done) or the exception it ended with

    def check(self) -> bool:
        """Whether it has ended (reading how, once it has)."""
        if not self.ended and self.lifeline.poll():  # its word, or EOF: it died without one
            try:
                self.outcome = self.lifeline.recv()
            except (EOFError, OSError):
                self.process.join(1)
                self.outcome = RuntimeError(f"a shard process died (exit code {self.process.exitcode}): the trials "
                                            "it finished are kept, run again with --resume")
            self.ended = True
        return self.ended


def _start_shards(config: BenchConfig, todo: list[TrialSpec], positions: list[int], paths: list[Path],
                  concurrency: int, max_in_flight: int) -> list[_Shard]:
    """Every shard, started with SIGINT blocked: the forkserver inherits the mask and passes it on to each shard
    it forks, so a Ctrl-C in the terminal reaches this process alone (never a server still starting up)."""
    ctx, workers, shards = _context(), len(paths), []
    # The resource tracker first: starting it unblocks SIGINT here (it blocks it only around its own start).
    resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    try:
        for k in range(workers):
            shards.append(_Shard(ctx, (config, [s.run_id for s in todo[k::workers]], str(paths[k]), concurrency,
                                       max_in_flight, positions[k::workers])))
    except BaseException:
        _stop(shards)
        raise
    finally:
        if blocked is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return shards


def _stop(shards: list[_Shard]) -> None:
    """Every shard still running stopped (SIGTERM, then SIGKILL), within a few seconds."""
    for shard in shards:
        if shard.process.is_alive():
            shard.process.terminate()
    deadline = time.monotonic() + STOP_S
    for shard in shards:
        shard.process.join(max(0.0, deadline - time.monotonic()))
        if shard.process.is_alive():
            shard.process.kill()
            shard.process.join(STOP_S)
        shard.lifeline.close()


async def run_local(config: BenchConfig, todo: list[TrialSpec], positions: list[int], workers: int,
                    record: Record) -> None:
    """Run `todo` (the trials at `positions` of the sweep's plan, ascending) in `workers` shard processes."""
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

    shards = _start_shards(config, todo, positions, paths, concurrency, max_in_flight)
    try:  # until every shard has ended, or one has failed (the others are then stopped: their work is lost anyway)
        while True:
            ended = [shard.check() for shard in shards]
            if all(ended) or any(shard.outcome is not None for shard in shards):
                break
            await asyncio.sleep(POLL_S)
            drain()
    finally:  # an interrupt (a cancelled sweep) or a failure included: no shard outlives this
        _stop(shards)
    drain()
    failed = [shard.outcome for shard in shards if shard.outcome is not None]
    if failed:
        raise failed[0]
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
