"""What a model call costs, from the price table in `prices.json` (USD per million tokens).

A model id resolves to the longest known entry it starts with, provided what is left is only
a snapshot date (`claude-sonnet-4-5-20250929`, `claude-sonnet-4-5@20250929`, OpenAI's
`gpt-4o-2024-08-06`) or `-latest`.
The rest must be that narrow so that a newer model we have no price for
(`claude-opus-4-9`) is unpriced (`None`), rather than silently billed as `claude-opus-4`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from .usage import Usage

_SUFFIX = re.compile(r"(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)?")
_PER_TOKEN = 1e-6  # the table is per million tokens


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens; `cache_write` is the 5-minute cache's write price."""

    model: str  # the table entry this price came from
    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost_usd(self, usage: Usage) -> float:
        return _PER_TOKEN * (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_write_tokens * self.cache_write
            + usage.cache_read_tokens * self.cache_read
        )


@dataclass(frozen=True, slots=True)
class _Table:
    read_on: str
    source: str
    prices: dict[str, Price]
    aliases: dict[str, str]


@cache
def _table() -> _Table:
    raw: dict[str, Any] = json.loads(resources.files(__package__).joinpath("prices.json").read_text("utf-8"))
    fields = ("input", "output", "cache_write", "cache_read")
    prices = {model: Price(model, *(float(p[f]) for f in fields)) for model, p in raw["models"].items()}
    aliases = dict(raw.get("aliases", {}))
    unknown = sorted(target for target in aliases.values() if target not in prices)
    if unknown:
        raise ValueError(f"prices.json: aliases point to unknown models: {', '.join(unknown)}")
    return _Table(str(raw["read_on"]), str(raw["source"]), prices, aliases)


PRICES_READ_ON: str = _table().read_on
PRICES_SOURCE: str = _table().source


def known_models() -> list[str]:
    return sorted(_table().prices)


@lru_cache(maxsize=1024)  # the hot path: every model call prices its usage; the table never changes
def price_for(model_id: str | None) -> Price | None:
    """The price of `model_id` (a base id, a dated snapshot id or an alias), or None if unknown."""
    if not model_id:
        return None
    table = _table()
    wanted = model_id.strip().lower()
    names = [*table.prices, *table.aliases]
    for name in sorted(names, key=len, reverse=True):
        if wanted.startswith(name) and _SUFFIX.fullmatch(wanted, len(name)):
            return table.prices[table.aliases.get(name, name)]
    return None


def cost_usd(model_id: str | None, usage: Usage) -> float | None:
    """USD for `usage` on `model_id`; None (never 0) when the model has no price."""
    price = price_for(model_id)
    return None if price is None else price.cost_usd(usage)
