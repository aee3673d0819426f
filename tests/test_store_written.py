"""The index of the tidy files a process wrote: a later scan in the same process finds each trial's lines where a
full scan does, and only while the files are the very ones written."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from benchmarks.harness import store
from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.plan import Plan


def _scan(config: BenchConfig) -> store.Sources:
    plan = Plan(config)
    sources = store.Sources(len(plan))
    store.scan_outputs(config.out, plan, sources)
    return sources


def _arrays(s: store.Sources) -> tuple[list[int], ...]:
    return tuple(list(a or []) for a in (s.row, s.row_len, s.events, s.events_len))


def test_the_next_scan_finds_what_a_full_scan_finds(tmp_path: Path) -> None:
    config = BenchConfig(patterns=("chain", "agent"), tasks=("pipeline", "repair"), instances=3, trials=1,
                         model="sim", seed=1, out=tmp_path / "r", workers=1)
    asyncio.run(run_bench(config))
    longer = replace(config, instances=5, resume=True)
    asyncio.run(run_bench(longer))  # a look: the first 3 instances copied, 2 more from the journal
    assert tmp_path / "r" in store._WRITTEN
    remembered = _scan(longer)
    assert tmp_path / "r" not in store._WRITTEN  # used once: a sweep that follows wrote it again, or scans
    full = _scan(longer)
    assert _arrays(remembered) == _arrays(full) and remembered.count() == len(Plan(longer))
    assert remembered.events is not None and all(e != store.NONE for e in remembered.events)


def test_files_changed_after_they_were_written_are_scanned_again(tmp_path: Path) -> None:
    config = BenchConfig(patterns=("chain", "agent"), tasks=("pipeline",), instances=3, trials=1, model="sim",
                         seed=2, out=tmp_path / "r", workers=1)
    asyncio.run(run_bench(config))
    events = tmp_path / "r" / store.EVENTS
    lines = events.read_bytes().splitlines(keepends=True)
    events.write_bytes(b"".join(lines[:-1]))  # a line removed by hand: its trial's counts no longer agree
    sources = _scan(config)
    assert sources.count() == len(Plan(config)) - 1 and any("do not agree" in w for w in sources.warnings)
