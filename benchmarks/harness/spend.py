"""The sweep's spending cap (`--max-cost USD`): no model call starts that could take the spend past it.

Every model call of the sweep passes through one `Spend` (a `CappedModel` around the shared model). Before
a call is sent, its cost is estimated and reserved: its prompt at about 4 characters a token
(`patterns.usage.estimate_usage`), priced at the dearer of the input and cache-write prices (the cache may
write all of it), and its output at the mean output of the calls that have returned (before any, its
`max_tokens` / 4: a reply rarely fills its budget, and a whole budget per call would stop a small cap
before its first reply). If what is spent already, plus the reservations of the calls in flight, plus this one
would pass the cap, the call is not sent: `CapReached` is raised instead, and the trial that asked is
abandoned. From then on no new trial starts; the trials in flight go on while their calls fit. When a call
returns, its reservation is replaced by its bill (the reply's usage at the price
table's prices), so the recorded spend passes the cap by at most what the calls in flight were billed above
their reservations.

An abandoned trial is not written to runs.csv: a trial cut in the middle would count as a failure of its
pattern and bias the figures. The calls it made are paid all the same: their cost is in the manifest
(`stopped.abandoned_usd`) and counts against the cap of a later `--resume`, which runs the trial again
from its start. The spend the cap starts from is the folder's: the recorded cost of its finished trials
(`cost_usd` and `grader_cost_usd`) plus the abandoned spend its manifest records.

The cap needs a price: a model the price table does not know is refused before anything runs, since an
unknown cost can never be shown to stay under a cap (it is never counted as $0).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness.errors import CapReached
from patterns.pricing import Price, price_for
from patterns.usage import Usage, estimate_usage, usage_missing

FIRST_OUTPUT = 4  # before any reply: a call's output is reserved as max_tokens / FIRST_OUTPUT

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
    _next: int = 0

    def reserve(self, params: dict[str, Any]) -> int:
        """A ticket for one call about to be sent; `CapReached` if it could take the spend past the cap."""
        prompt = estimate_usage(params, None).input_tokens
        output = self.output_tokens / self.calls if self.calls else params.get("max_tokens", 1024) / FIRST_OUTPUT
        guess = 1e-6 * (prompt * max(self.price.input, self.price.cache_write) + output * self.price.output)
        if self.spent_usd + sum(self.reserved.values()) + guess > self.cap_usd:
            self.reached = True
            raise CapReached(f"--max-cost ${self.cap_usd:g}: ${self.spent_usd:.4f} spent, "
                             f"${sum(self.reserved.values()):.4f} in flight")
        self._next += 1
        self.reserved[self._next] = guess
        return self._next

    def settle(self, ticket: int, message: Any, params: dict[str, Any]) -> float:
        """The call's bill, added to the spend in place of its reservation (None: a failed call, billed $0)."""
        self.reserved.pop(ticket, None)
        if message is None:
            return 0.0
        usage = estimate_usage(params, message.content) if usage_missing(message.usage) else \
            Usage.from_api(message.usage)
        bill = self.price.cost_usd(usage)
        self.spent_usd += bill
        self.calls += 1
        self.output_tokens += usage.output_tokens
        return bill

    def summary(self) -> dict[str, Any]:
        """What the manifest records of the cap (`stopped` when it was reached)."""
        return {"max_cost_usd": self.cap_usd, "spent_usd": round(self.spent_usd, 6),
                "abandoned_usd": round(self.abandoned_usd, 6), "abandoned_trials": self.abandoned}


class CappedModel:
    """A model whose every call goes through the sweep's `Spend` first; per trial, its own bill (`billed`)."""

    def __init__(self, inner: Any, spend: Spend) -> None:
        self.inner = inner
        self.spend = spend

    def __getattr__(self, name: str) -> Any:  # clock, price_id, takes_headers and the like
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Any:
        ticket = self.spend.reserve(params)
        message = None
        try:
            message = await self.inner.create(**params)
            return message
        finally:
            bill = self.spend.settle(ticket, message, params)
            trial = TRIAL_BILL.get()
            if trial is not None:
                trial[0] += bill


def start_spend(cap_usd: float, price_id: str, recorded: float, old: dict[str, Any] | None) -> Spend:
    """The sweep's `Spend`, starting from what the folder recorded (`old`: its manifest, on a resume; None for a
    fresh sweep); a ValueError (one line, nothing run) for a model without a price."""
    price = price_for(price_id)
    if price is None:
        raise ValueError(f"--max-cost needs the model's price, and {price_id!r} has none in the price table "
                         "(patterns/prices.json): an unknown cost is never counted as $0 (nothing was run)")
    earlier = (old or {}).get("spend") or {}
    abandoned = float(earlier.get("abandoned_usd") or 0.0) if old is not None else 0.0
    return Spend(cap_usd, price, spent_usd=(recorded + abandoned) if old is not None else 0.0,
                 abandoned_usd=abandoned)
