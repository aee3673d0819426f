"""Paid sweeps attacked from outside (issue 44's table): a sweep through the real `anthropic` SDK against a
`SimServer` whose replies carry faulty headers finishes, and its waits are bounded on the loop's clock
(`tests.virtual_loop`: idle waits are skipped, never measured on the wall)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.outputs import load_results
from benchmarks.tasks.registry import load_task
from patterns.retry import RetryPolicy
from patterns.sim.server import SimServer

from .virtual_loop import run_virtual

pytestmark = pytest.mark.timeout(120)
SWEEP = BenchConfig(tasks=("pipeline",), patterns=("single", "chain", "agent"), instances=3, trials=1,
                    model="anthropic:claude-sonnet-4-5", concurrency=4, max_in_flight=4,
                    retry=RetryPolicy(base_delay_s=0.001))
Reply = tuple[int, dict[str, Any], dict[str, str]]


class Faulty(SimServer):
    """A sim server whose `fault(n, reply)` rewrites the reply to its n-th request (as a proxy would)."""

    def __init__(self, fault: Callable[[int, Reply], Reply], **options: Any) -> None:
        super().__init__(policies=[load_task("pipeline").policy()], **options)
        self.fault, self.posts, self._count = fault, 0, threading.Lock()

    def respond(self, params: dict[str, Any], stream: str | None = None, *, openai: bool = False) -> Reply:
        with self._count:
            self.posts += 1
            n = self.posts
        return self.fault(n, super().respond(params, stream, openai=openai))


def swept(server: SimServer, out: Path, monkeypatch: pytest.MonkeyPatch, **changes: Any) -> float:
    """Seconds the sweep took on the loop's clock (its idle waits skipped); at most 600 before it is failed."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-attacks")

    async def bounded() -> None:
        async with asyncio.timeout(600):
            await run_bench(replace(SWEEP, out=out, **changes))

    return run_virtual(bounded())[1]


def limited(seconds: str) -> Callable[[int, Reply], Reply]:
    """The third request answers 429 with `retry-after: seconds`; the rest as the server would."""
    def fault(n: int, reply: Reply) -> Reply:
        if n != 3:
            return reply
        body = {"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}}
        return 429, body, {"retry-after": seconds}
    return fault


@pytest.mark.parametrize("seconds", ["1e12", "1e400"])
def test_a_retry_after_of_a_lifetime_waits_the_policy_s_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           seconds: str) -> None:
    """Attack 1: the bound paused every call for the asked 1e12 s (the retry policy caps it at 60 s)."""
    with Faulty(limited(seconds)) as server:
        took = swept(server, tmp_path / "r", monkeypatch)
    assert len(load_results(tmp_path / "r")["runs"]) == 9
    assert 60 <= took < 120  # the 429'd call waited the policy's 60 s, and so did the calls paused behind it


def never_refilled(n: int, reply: Reply) -> Reply:
    """Every reply says the buckets are empty until the year 9999."""
    status, body, headers = reply
    never = "9999-12-31T23:59:59Z"
    empty = {f"anthropic-ratelimit-{family}-{k}": v for family, limit in (("requests", "50"), ("input-tokens", "30000"))
             for k, v in (("limit", limit), ("remaining", "0"), ("reset", never))}
    return status, body, {**headers, **empty}


def test_buckets_that_never_refill_slow_the_sweep_to_the_limit_never_stop_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 2: the ledger took the reset at its word and waited for a refill that never comes. A limit is per
    minute: 50 requests a minute is a call each 1.2 s, whatever the reset says."""
    with Faulty(never_refilled) as server:
        took = swept(server, tmp_path / "n", monkeypatch)
        calls = server.posts
    assert len(load_results(tmp_path / "n")["runs"]) == 9
    assert took < 2 * 1.2 * calls  # paced at about the limit's rate, not stopped
