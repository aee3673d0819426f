"""`wva bench`'s options for a sweep that costs money: how long a call may take, and what the sweep may spend.

docs/paid-sweeps.md says how they work together (the estimate, the cap, the deadlines)."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.cli._common import positive_int, seconds
from benchmarks.names import REQUEST_TIMEOUT_S


def dollars(text: str) -> float:
    """A positive, finite amount of US dollars."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an amount of US dollars, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected an amount of US dollars > 0, got {text!r}")
    return value


def add_paid_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-in-flight", type=positive_int, default=8, metavar="M",
                   help="the ceiling on model calls in flight, shared by all trials, for a real API (default: 8); "
                   "below it calls are paced by the account's rate-limit headers and the bound adapts: doubled "
                   "each round until the first 429 or 529, then one more per round, halved on a 429 or 529")
    p.add_argument("--request-timeout", type=seconds, default=REQUEST_TIMEOUT_S, metavar="S",
                   help=f"seconds one attempt of a model call may take, whole (connect, first byte, reply), on a "
                   f"provider model (default: {REQUEST_TIMEOUT_S:g}); past it the attempt is a timeout the retry "
                   "policy retries, within 600 s for a call's retries; the pre-flight waits at most 30 s an attempt")
    p.add_argument("--max-cost", type=dollars, default=None, metavar="USD",
                   help="stop the sweep before its recorded spend plus the calls in flight would pass USD (a paid "
                   "model with a known price; the folder's earlier trials count): no new call starts, the trials it "
                   "stops are run again by --resume, the manifest says why it stopped, and the exit status is 1")
    p.add_argument("--message-batches", action="store_true",
                   help="send the model calls through Anthropic's Message Batches API, at half price (anthropic: "
                   "models): the calls of the trials in flight go out together, one batch per round, so raise "
                   "--concurrency; latency becomes queue time; docs/paid-sweeps.md says when it fits")


def paid_settings(args: argparse.Namespace) -> dict[str, Any]:
    """BenchConfig's fields these options set."""
    return {"request_timeout_s": getattr(args, "request_timeout", REQUEST_TIMEOUT_S),
            "max_cost_usd": getattr(args, "max_cost", None),
            "message_batches": getattr(args, "message_batches", False)}
