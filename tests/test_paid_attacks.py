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
    """Seconds of idle waiting the sweep's loop skipped (its waits, apart from the machine's time); a sweep still
    waiting after 600 s on the loop's clock is failed."""
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
    assert 50 <= took < 120  # the 429'd call waited the policy's 60 s, and so did the calls paused behind it


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


def tear(server: SimServer, *, times: int) -> list[int]:
    """The first batch's results file with its second line cut in half, the first `times` times it is read."""
    handle, torn, first = server.batches.handle, [0], []

    def torn_results(method: str, path: str, headers: Any, raw: bytes) -> Any:
        reply = handle(method, path, headers, raw)
        if not (path.split("?")[0].endswith("/results") and isinstance(reply, tuple)):
            return reply
        first[:] = first or [path]
        if path != first[0] or torn[0] >= times:
            return reply
        torn[0] += 1
        lines = reply[1].splitlines(keepends=True)
        lines[1] = lines[1][:len(lines[1]) // 2] + b"\n"
        return reply[0], b"".join(lines), reply[2]

    server.batches.handle = torn_results  # type: ignore[method-assign]
    return torn


@pytest.mark.parametrize("times", [1, 99])
def test_a_torn_line_in_a_batch_s_results_costs_only_its_own_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     times: int) -> None:
    """Attack 5: one torn line made the whole results file a `JSONDecodeError`, every trial of the batch a
    CodeError and its paid results lost. Now the file is read line by line: torn once (on the way), the second
    reading has it; torn for good, only that request is sent again (a garbled reply, retried)."""
    with SimServer(policies=[load_task("pipeline").policy()], batch_processing_s=0.02) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-torn")
        torn = tear(server, times=times)
        config = replace(SWEEP, patterns=("single", "agent"), instances=2, concurrency=8, out=tmp_path / "b",
                         message_batches=True)
        asyncio.run(run_bench(config))
        sent = sorted(server.batches.received.values())
    runs = load_results(config.out)["runs"]
    assert torn[0] >= 1 and len(runs) == 4
    assert (runs["terminal"] == "completed").all(), runs["error_kinds"].tolist()
    assert not runs["error_kinds"].fillna("").str.contains("CodeError|JSONDecodeError").any()
    assert sent == ([1] * len(sent) if times == 1 else [1] * (len(sent) - 1) + [2])  # only the torn one twice


def test_a_batched_sweep_gets_its_estimate_and_rounds_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Attack 6: the pilot that makes the estimate ran on the simulator with --message-batches still set, which
    the simulator refuses: no estimate, no rounds line (docs/paid-sweeps.md promises both)."""
    from benchmarks.cli.main import main

    with SimServer(policies=[load_task("pipeline").policy()], batch_processing_s=0.02) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-estimate")
        status = main(["bench", "--tasks", "pipeline", "--patterns", "single,agent", "--instances", "2",
                       "--model", "anthropic:claude-sonnet-4-5", "--message-batches", "--out", str(tmp_path / "e")])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "no estimate" not in err and "a batched sweep needs" in err


@pytest.mark.parametrize("content", [bytes(range(256)) * 8, b"task,pattern,n\npipeline,agent,3\n"])
def test_resume_refuses_a_runs_csv_it_cannot_read_and_changes_nothing(tmp_path: Path, content: bytes,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Attack 11: runs.csv replaced by random bytes or another table was read as no trials: exit 0, every trial
    run (and paid for) again, the file overwritten. Now it is one line naming the file, exit 2."""
    from benchmarks.cli.main import main

    out = tmp_path / "r"
    args = ["bench", "--tasks", "pipeline", "--patterns", "single", "--instances", "2", "--out", str(out)]
    assert main(args) == 0
    (out / "runs.csv").write_bytes(content)
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    for extra in (["--resume"], []):
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(out / "runs.csv") in err and "--overwrite" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_resume_reruns_a_trial_whose_batch_result_was_unreadable_from_the_recorded_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 5, the rest: a trial that ended on an unreadable result (no retry left) is not a finished trial to
    --resume: it runs again, its calls answered from the batches the folder recorded, so only the request whose
    line was unreadable is sent again."""
    with SimServer(policies=[load_task("pipeline").policy()], batch_processing_s=0.02) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-torn")
        tear(server, times=99)
        config = replace(SWEEP, patterns=("single", "agent"), instances=2, concurrency=8, out=tmp_path / "b",
                         message_batches=True, retry=RetryPolicy(max_retries=0))
        asyncio.run(run_bench(config))
        first = load_results(config.out)["runs"]
        asyncio.run(run_bench(replace(config, resume=True)))
        sent = sorted(server.batches.received.values())
    assert first["error_kinds"].fillna("").str.contains("BatchResultUnreadable").sum() == 1
    runs = load_results(config.out)["runs"]
    assert len(runs) == 4 and (runs["terminal"] == "completed").all(), runs["error_kinds"].tolist()
    assert sent == [1] * (len(sent) - 1) + [2]  # the unreadable request alone was sent twice


@pytest.mark.parametrize(("header", "waited"), [("1e12", 60.0), ("1e400", 60.0), ("nan", 0.0),
                                                ("Fri, 31 Dec 9999 23:59:59 GMT", 60.0)])
def test_every_wait_a_retry_after_asks_for_is_capped_at_60_s(header: str, waited: float) -> None:
    """By hand: the retry policy and the bound's pause both take min(asked, 60 s); a NaN asks for nothing."""
    import random

    from benchmarks.harness.adaptive import AdaptiveBound
    from patterns.sim.faults import status_error

    error = status_error(429, "rate_limit_error", "rate limited", headers={"retry-after": header})
    assert RetryPolicy(base_delay_s=0.0).delay_s(0, error, random.Random(0)) == waited

    async def paused() -> float:
        bound = AdaptiveBound(ceiling=2)
        await bound.release(await bound.acquire(), error)
        return bound.paused_until - asyncio.get_running_loop().time()

    assert asyncio.run(paused()) <= waited


def test_a_retry_after_pauses_every_new_call() -> None:
    """On a loop whose clock skips idle waits (never the wall's): the next call waits out the 30 s asked."""
    from benchmarks.harness import adaptive
    from patterns.sim.faults import rate_limited

    async def run() -> float:
        bound = adaptive.AdaptiveBound(ceiling=4)
        loop = asyncio.get_running_loop()
        await bound.release(await bound.acquire(), rate_limited(30.0))
        began = loop.time()
        await bound.release(await bound.acquire())
        return loop.time() - began

    waited, skipped = run_virtual(run())
    assert waited >= 30.0 and 29.0 < skipped <= 30.0
