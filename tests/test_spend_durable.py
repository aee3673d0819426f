"""The spending cap against the account's own bill (issue 44, attacks 3 and 4): what a call may spend is
reserved before it is sent (its whole `max_tokens`), and every reservation and bill is in the folder's
`.spend.jsonl`, so neither 64 calls in flight that fill their budget nor a kill -9 and a `--resume` take the
bill the server computes on its own past the cap by more than 5%."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anthropic
import pytest

from benchmarks.harness.bench import BenchConfig, run_bench
from benchmarks.harness.errors import CapReached, SweepCapped
from benchmarks.harness.spend import LOG, CappedModel, Spend, logged_usd, start_spend
from benchmarks.tasks.registry import load_task
from patterns.model import AnthropicModel
from patterns.pricing import price_for
from patterns.sim.server import SimServer
from patterns.usage import Usage

from .conftest import ROOT
from .sdk_harness import Tapped

pytestmark = pytest.mark.timeout(180)
SONNET = price_for("claude-sonnet-4-5")
assert SONNET is not None


class Billing(SimServer):
    """A sim server that bills on its own: every message it sends, at the price table's Sonnet 4.5 prices."""

    def __init__(self, **options: Any) -> None:
        super().__init__(policies=[load_task("pipeline").policy()], **options)
        self.billed, self._lock = 0.0, threading.Lock()

    def respond(self, params: dict[str, Any], stream: str | None = None, *,
                openai: bool = False) -> tuple[int, dict[str, Any], dict[str, str]]:
        status, body, headers = super().respond(params, stream, openai=openai)
        if status == 200:
            usage = Usage.from_api(anthropic.types.Usage.model_validate(body["usage"]))
            with self._lock:
                self.billed += SONNET.cost_usd(usage)
        return status, body, headers


def test_64_calls_in_flight_that_fill_max_tokens_stay_under_the_cap() -> None:
    """The first 29 replies are short, the rest fill `max_tokens`: reserving the mean output so far let 64 calls
    in flight bill twice the cap; reserving `max_tokens` keeps the server's own bill under it."""
    cap, budget = 0.50, 2048
    with Tapped(*(["short"] * 29 + ["word " * 5000] * 371)) as server:
        async def sweep() -> int:
            model = CappedModel(AnthropicModel("claude-sonnet-4-5", base_url=server.url, api_key="sk-ant-x"),
                                Spend(cap, SONNET))
            refused = 0

            async def caller(n: int) -> None:  # one of 64 in flight, calling until the cap refuses it
                nonlocal refused
                try:
                    while True:
                        await model.create(max_tokens=budget, messages=[{"role": "user", "content": f"call {n}"}])
                except CapReached:
                    refused += 1

            try:
                await asyncio.gather(*(caller(n) for n in range(64)))
            finally:
                await model.inner.aclose()
            return refused

        refused = asyncio.run(sweep())
        billed = SONNET.cost_usd(server.usage)
    assert refused > 0 and len(server.replies) > 29  # the cap was reached, after the replies grew
    assert billed <= cap * 1.05, f"the server billed ${billed:.4f} against a ${cap} cap"


def test_a_killed_sweep_s_calls_in_flight_count_on_resume(tmp_path: Path) -> None:
    """By hand: three calls reserved, one billed, then the process dies. The log says: the bill, plus the two
    reservations never settled (the most those calls could have cost); a torn last line is left out."""
    spend = Spend(10.0, SONNET, log=tmp_path / LOG)
    params = {"max_tokens": 100, "messages": [{"role": "user", "content": "x" * 372}]}
    tickets = [spend.reserve(params) for _ in range(3)]
    reply = anthropic.types.Message.model_validate(
        {"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
         "stop_reason": "end_turn", "usage": {"input_tokens": 100, "output_tokens": 10}})
    bill = spend.settle(tickets[0], reply, params)
    assert bill == pytest.approx(1e-6 * (100 * 3 + 10 * 15))
    with (tmp_path / LOG).open("a") as f:
        f.write('{"call": "torn", "reserved_u')  # killed mid-write
    reserved = spend.reserved[tickets[1]]
    assert logged_usd(tmp_path / LOG) == pytest.approx(bill + 2 * reserved)
    resumed = start_spend(10.0, "claude-sonnet-4-5", 0.0, {"spend": {}}, out=tmp_path)
    assert resumed.spent_usd == pytest.approx(bill + 2 * reserved)
    assert start_spend(10.0, "claude-sonnet-4-5", 0.0, None, out=tmp_path, overwrite=True).spent_usd == 0.0


def test_kill_9_then_resume_keeps_the_server_s_bill_under_the_cap(tmp_path: Path) -> None:
    """A `--max-cost` sweep killed with calls in flight (SIGKILL: nothing of the process runs after it), then
    resumed with the same cap: the bill the server computed over both sessions stays within 5% of the cap."""
    cap, out = 0.05, tmp_path / "killed"  # the whole sweep bills about $0.064
    sweep = {"tasks": ("pipeline",), "patterns": ("single", "chain", "agent"), "instances": 8, "trials": 1,
             "model": "anthropic:claude-sonnet-4-5", "concurrency": 4, "max_in_flight": 4}
    with Billing() as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ANTHROPIC_BASE_URL": server.url,
               "ANTHROPIC_API_KEY": "sk-ant-dummy-kill"}
        args = ["bench", "--tasks", "pipeline", "--patterns", "single,chain,agent", "--instances", "8", "--trials", "1",
                "--model", sweep["model"], "--concurrency", "4", "--max-in-flight", "4", "--out", str(out),
                "--max-cost", str(cap), "--quiet"]
        proc = subprocess.Popen([sys.executable, "-m", "benchmarks", *args], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while server.billed < 0.4 * cap:  # killed part of the way, calls in flight
                assert proc.poll() is None, "the sweep ended before it could be killed"
                time.sleep(0.005)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        killed_at = server.billed
        with pytest.raises(SweepCapped):
            os.environ["ANTHROPIC_BASE_URL"], os.environ["ANTHROPIC_API_KEY"] = server.url, "sk-ant-dummy-kill"
            try:
                asyncio.run(run_bench(BenchConfig(out=out, resume=True, max_cost_usd=cap, **sweep)))
            finally:
                del os.environ["ANTHROPIC_BASE_URL"], os.environ["ANTHROPIC_API_KEY"]
        billed = server.billed
    assert 0 < killed_at < billed
    assert billed <= cap * 1.05, f"the server billed ${billed:.4f} against a ${cap} cap"
