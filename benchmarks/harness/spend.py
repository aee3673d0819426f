"""The sweep's spending cap (`--max-cost USD`): no model call starts that could take the spend past it.

Every model call of the sweep passes through one `Spend` (a `CappedModel` around the shared model). Before
a call is sent, what it MAY cost is reserved: its prompt at about 4 characters a token
(`patterns.usage.estimate_usage`) times the largest ratio of billed to estimated prompt tokens of the last 32
replies plus 10% (`MARGIN`), priced at the dearer of the input and cache-write prices (the cache may write all
of it), and its whole `max_tokens` at the output price. Not the mean output so far: with 64 calls in flight, a
model that starts filling its budget would pass the cap by 64 budgets' difference before the mean caught up
(measured: twice a $0.50 cap). If what is spent already, plus the reservations of the calls in flight, plus this
one would pass the cap, the call waits for the calls in flight to settle (most bill far less than they
reserved); once it does not fit with no call in flight, it is not sent: `CapReached` is raised instead, and
the trial that asked is abandoned. From then on no new trial starts; the trials in flight go on while their
calls fit. When a call returns, its reservation is replaced by its bill (the reply's usage at the price
table's prices); a call the API refused with a status (a 429, a 400) bills nothing; a call whose fate is
unknown (a timeout, a dropped connection, a reply that did not parse) keeps its reservation as its bill,
since the API may have billed it.

The account is durable: every reservation and every bill is appended to the folder's `.spend.jsonl` (flushed
before the call is sent and as it returns), so a sweep killed with calls in flight (kill -9, a crash) leaves
a record of what they may have cost. A later `--resume` starts from the bills recorded there plus, for each
reservation without its bill, the reservation (the most that call could have cost). Only `--overwrite`
forgets it. Without that file (a folder of an older version, or of a sweep run without a cap), the spend
starts from the recorded cost of the folder's finished trials (`cost_usd` and `grader_cost_usd`) plus the
abandoned spend its manifest records; with it, from the larger of the two.

An abandoned trial is not written to runs.csv: a trial cut in the middle would count as a failure of its
pattern and bias the figures. The calls it made are paid all the same: their cost is in the manifest
(`stopped.abandoned_usd`) and in `.spend.jsonl`, and counts against the cap of a later `--resume`, which runs
the trial again from its start.

The cap needs a price: a model the price table does not know is refused before anything runs, since an
unknown cost can never be shown to stay under a cap (it is never counted as $0).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import deque
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anthropic

from benchmarks.harness.errors import CapReached
from patterns.pricing import Price, price_for
from patterns.usage import Usage, estimate_usage, usage_missing

LOG = ".spend.jsonl"  # the folder's durable account: every reservation and every bill, a JSON line each
RATIOS = 32  # replies whose billed/estimated prompt ratio sizes the next reservation's prompt
MARGIN = 1.1  # on that ratio: the estimate of a prompt not yet seen may be a little low

# The bill of the trial whose task is running (a one-item list, shared by its parallel branches): what an
# abandoned trial paid, for the manifest. The harness sets it in each trial's task.
TRIAL_BILL: ContextVar[list[float] | None] = ContextVar("wva_trial_bill", default=None)


@dataclass
class Spend:
    """What the sweep has spent and reserved, against its cap (module docstring)."""

    cap_usd: float
    price: Price
    spent_usd: float = 0.0  # billed: every call that returned, this session and earlier ones
    abandoned_usd: float = 0.0  # the part of spent_usd paid by trials abandoned at the cap
    abandoned: int = 0  # trials abandoned (this session)
    reached: bool = False
    calls: int = 0
    output_tokens: int = 0
    reserved: dict[int, float] = field(default_factory=dict)
    log: Path | None = None  # the folder's .spend.jsonl (None: in memory only)
    forget: bool = False  # --overwrite: the log is started afresh on the first write
    ratios: deque[float] = field(default_factory=lambda: deque(maxlen=RATIOS))
    _next: int = 0
    _file: IO[str] | None = None
    _freed: asyncio.Event | None = None  # set when a call settles (`admit` waits on it)
    _session: str = field(default_factory=lambda: os.urandom(4).hex())

    def most(self, params: dict[str, Any]) -> tuple[float, float]:
        """(what a call may cost at most, its prompt's plain estimate in tokens)."""
        estimate = float(estimate_usage(params, None).input_tokens)
        prompt = estimate * max(self.ratios, default=1.0) * MARGIN
        output = float(params.get("max_tokens") or 0)
        return 1e-6 * (prompt * max(self.price.input, self.price.cache_write) + output * self.price.output), estimate

    def reserve(self, params: dict[str, Any], *, waiting: bool = False) -> int:
        """A ticket for one call about to be sent; `CapReached` if it could take the spend past the cap (with
        `waiting`, a `_Wait` instead while calls in flight may still free room: `admit` waits for them)."""
        guess, _ = self.most(params)
        if self.spent_usd + sum(self.reserved.values()) + guess > self.cap_usd:
            if waiting and self.reserved and not self.reached:
                raise _Wait
            self.reached = True
            raise CapReached(f"--max-cost ${self.cap_usd:g}: ${self.spent_usd:.4f} spent, "
                             f"${sum(self.reserved.values()):.4f} in flight")
        self._next += 1
        self.reserved[self._next] = guess
        self._write({"call": f"{self._session}-{self._next}", "reserved_usd": guess})
        return self._next

    async def admit(self, params: dict[str, Any]) -> int:
        """`reserve`, waiting while the call does not fit but calls in flight may settle below their reservations
        (each reserves its whole `max_tokens`, which few replies fill): the cap is reached only when a call does
        not fit with none in flight, so a high `--concurrency` does not stop a sweep far below its cap."""
        while True:
            try:
                return self.reserve(params, waiting=True)
            except _Wait:
                if self._freed is None:
                    self._freed = asyncio.Event()
                await self._freed.wait()

    def settle(self, ticket: int, message: Any, params: dict[str, Any], failure: BaseException | None = None) -> float:
        """The call's bill, added to the spend in place of its reservation: its usage priced; $0 for a call the
        API refused with a status; its reservation for a call whose fate is unknown (it may have been billed)."""
        guess = self.reserved.pop(ticket, 0.0)
        if message is None:
            bill = 0.0 if isinstance(failure, anthropic.APIStatusError) else guess
        else:
            usage = estimate_usage(params, message.content) if usage_missing(message.usage) else \
                Usage.from_api(message.usage)
            bill = self.price.cost_usd(usage)
            self.calls += 1
            self.output_tokens += usage.output_tokens
            estimate = self.most(params)[1]
            prompt = usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens
            if estimate > 0 and prompt > 0:
                self.ratios.append(prompt / estimate)
        self.spent_usd += bill
        if self._freed is not None:  # the calls waiting for room look again
            self._freed.set()
            self._freed = None
        if isinstance(failure, Exception) or failure is None:  # a cancelled call's fate is left to the log
            self._write({"call": f"{self._session}-{ticket}", "billed_usd": bill})
        return bill

    def _write(self, entry: dict[str, Any]) -> None:
        if self.log is None:
            return
        if self._file is None:
            self._file = self.log.open("w" if self.forget else "a", encoding="utf-8")
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()  # to the OS before the call is sent: survives a kill -9 of this process

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def summary(self) -> dict[str, Any]:
        """What the manifest records of the cap (`stopped` when it was reached)."""
        return {"max_cost_usd": self.cap_usd, "spent_usd": round(self.spent_usd, 6),
                "abandoned_usd": round(self.abandoned_usd, 6), "abandoned_trials": self.abandoned}


def logged_usd(path: Path) -> float | None:
    """What a folder's `.spend.jsonl` says was spent: every bill, plus every reservation without its bill (a call
    in flight when the sweep was killed); None without the file. A line torn by the kill is left out: a torn
    reservation was never followed by its call, and a torn bill leaves its reservation, the larger, counted."""
    if not path.exists():
        return None
    reserved: dict[str, float] = {}
    billed: dict[str, float] = {}
    with path.open("rb") as f:
        for raw in f:
            try:
                entry = json.loads(raw) if raw.endswith(b"\n") else None
                call = str(entry["call"])
                if "billed_usd" in entry:
                    billed[call] = float(entry["billed_usd"])
                else:
                    reserved[call] = float(entry["reserved_usd"])
            except (ValueError, KeyError, TypeError):
                continue
    return sum(billed.values()) + sum(v for k, v in reserved.items() if k not in billed)


class _Wait(Exception):
    """The call does not fit yet, and calls in flight may free room (`Spend.admit`)."""


class CappedModel:
    """A model whose every call goes through the sweep's `Spend` first; per trial, its own bill (`billed`)."""

    def __init__(self, inner: Any, spend: Spend) -> None:
        self.inner = inner
        self.spend = spend

    def __getattr__(self, name: str) -> Any:  # clock, price_id, takes_headers and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Any:
        ticket = await self.spend.admit(params)
        message, failure = None, None
        try:
            message = await self.inner.create(**params)
            return message
        except BaseException as exc:
            failure = exc
            raise
        finally:
            bill = self.spend.settle(ticket, message, params, failure)
            trial = TRIAL_BILL.get()
            if trial is not None:
                trial[0] += bill


def start_spend(cap_usd: float, price_id: str, recorded: float, old: dict[str, Any] | None, *,
                out: Path | None = None, overwrite: bool = False) -> Spend:
    """The sweep's `Spend`, starting from what the folder recorded (`old`: its manifest, on a resume; None for a
    fresh sweep; `out`'s `.spend.jsonl`, unless `overwrite`); a ValueError (one line, nothing run) for a model
    without a price."""
    price = price_for(price_id)
    if price is None:
        raise ValueError(f"--max-cost needs the model's price, and {price_id!r} has none in the price table "
                         "(patterns/prices.json): an unknown cost is never counted as $0 (nothing was run)")
    earlier = (old or {}).get("spend") or {}
    abandoned = float(earlier.get("abandoned_usd") or 0.0) if old is not None else 0.0
    spent = (recorded + abandoned) if old is not None else 0.0
    logged = logged_usd(out / LOG) if out is not None and not overwrite else None
    return Spend(cap_usd, price, spent_usd=max(spent, logged or 0.0), abandoned_usd=abandoned,
                 log=None if out is None else out / LOG, forget=overwrite)
