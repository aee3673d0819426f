"""What a model call costs, from the price table in `prices.json` (USD per million tokens).

A model id resolves to the longest known entry it starts with, provided what is left is only
a snapshot date (`claude-sonnet-4-5-20250929`, `claude-sonnet-4-5@20250929`, OpenAI's
`gpt-4o-2024-08-06`) or `-latest`.
The rest must be that narrow so that a newer model we have no price for
(`claude-opus-4-9`) is unpriced (`None`), rather than silently billed as `claude-opus-4`.

A file of the same shape (`{"models": {id: {input, output, cache_write, cache_read}}, "aliases": {...}}`)
named by the environment variable `WVA_PRICES` (what `wva ... --prices FILE` sets, `use_prices`) adds to
the table or replaces its entries, for any provider's model ids alike (a local `openai:` model too). An
entry of zeros prices a model at $0 explicitly, which is not the same as unknown (`None`). The variable,
not a module global, carries it so that the sweep's worker processes, started after it is set, see it too.

A price id ending in `+batch` (`batch_price_id`) prices the Message Batches API: every price of the model's,
input, output and cache alike, times `BATCH_DISCOUNT` (0.5). Anthropic bills a batched request at half the
standard price, and the prompt-caching multipliers stack with that discount (its pricing page).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .usage import Usage

_SUFFIX = re.compile(r"(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)?")
_PER_TOKEN = 1e-6  # the table is per million tokens
PRICES_ENV = "WVA_PRICES"  # a prices file whose entries add to or replace the built-in ones
_FIELDS = ("input", "output", "cache_write", "cache_read")
BATCH = "+batch"  # a price id's suffix: the Message Batches API's price (`batch_price_id`)
BATCH_DISCOUNT = 0.5  # a batched request costs half the standard price, every token kind alike
# No model costs a dollar a token: a price above this is a mistake in the file, and near 1e308 it would make a
# sweep's costs infinite (found only after every trial was paid for, when the results are written)
MAX_PRICE = 1_000_000.0


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


def _entries(raw: Any, where: str) -> tuple[dict[str, Price], dict[str, str]]:
    """(prices, aliases) of a prices document, each entry checked (a ValueError naming `where` otherwise)."""
    models = raw.get("models") if isinstance(raw, dict) else None
    aliases = raw.get("aliases", {}) if isinstance(raw, dict) else None
    if not isinstance(models, dict) or not isinstance(aliases, dict):
        raise ValueError(f"{where}: expected a JSON object with \"models\": {{model id: {{{', '.join(_FIELDS)}}}}}"
                         " (and optional \"aliases\"), the shape of patterns/prices.json")
    prices = {}
    for model, entry in models.items():
        values = [entry.get(f) if isinstance(entry, dict) else None for f in _FIELDS]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= MAX_PRICE
                   for v in values):
            raise ValueError(f"{where}: model {model!r} needs {', '.join(_FIELDS)}, each a number >= 0 and at most "
                             f"{MAX_PRICE:,.0f} (USD per million tokens; 0 prices it at $0)")
        prices[str(model).strip().lower()] = Price(str(model).strip().lower(), *(float(v) for v in values))
    return prices, {str(k).strip().lower(): str(v).strip().lower() for k, v in aliases.items()}


def read_prices_file(path: str | Path, label: str = "--prices") -> tuple[dict[str, Price], dict[str, str]]:
    """(prices, aliases) of a user's prices file; a missing or malformed one is a one-line ValueError naming it
    (`label`: how the user named it, `--prices` or the `WVA_PRICES` variable)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{label} {path}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{label} {path}: not JSON: not UTF-8 text") from None
    except ValueError as exc:
        raise ValueError(f"{label} {path}: not JSON: {' '.join(str(exc).split())[:200]}") from None
    except RecursionError:  # arrays nested thousands deep
        raise ValueError(f"{label} {path}: not a prices file: nested too deep to read") from None
    return _entries(raw, f"{label} {path}")


@cache
def _table(extra: str | None = None, label: str = PRICES_ENV) -> _Table:
    raw: dict[str, Any] = json.loads(resources.files(__package__).joinpath("prices.json").read_text("utf-8"))
    prices, aliases = _entries(raw, "prices.json")
    if extra:  # the user's entries win over the built-in ones
        more, more_aliases = read_prices_file(extra, label)
        prices, aliases = {**prices, **more}, {**{k: v for k, v in aliases.items() if k not in more}, **more_aliases}
    unknown = sorted(target for target in aliases.values() if target not in prices)
    if unknown:
        raise ValueError(f"{extra or 'prices.json'}: aliases point to unknown models: {', '.join(unknown)}")
    return _Table(str(raw["read_on"]), str(raw["source"]), prices, aliases)


def _current() -> _Table:
    return _table(os.environ.get(PRICES_ENV) or None)


def use_prices(path: str | Path) -> list[str]:
    """Price with the entries of `path` on top of the built-in table, in this process and in the processes it
    starts from now on; returns the model ids the file prices. A bad file is a ValueError, nothing changed."""
    resolved = str(Path(path).resolve())
    _table(resolved, "--prices")  # checked before it is in force
    os.environ[PRICES_ENV] = resolved
    return sorted(read_prices_file(resolved)[0])


def check_env_prices() -> None:
    """A ValueError naming the file if `WVA_PRICES` names one that cannot be read as prices (checked before any
    work, so a bad file is one line, never an error in the middle of a sweep)."""
    extra = os.environ.get(PRICES_ENV)
    if extra:
        _table(extra)


def added_prices() -> dict[str, dict[str, float]] | None:
    """The entries the prices file in force adds or replaces (what a results folder's manifest records), or None."""
    extra = os.environ.get(PRICES_ENV)
    if not extra:
        return None
    return {m: {f: getattr(p, f) for f in _FIELDS} for m, p in sorted(read_prices_file(extra)[0].items())}


PRICES_READ_ON: str = _table().read_on
PRICES_SOURCE: str = _table().source


def known_models() -> list[str]:
    return sorted(_current().prices)


def price_for(model_id: str | None) -> Price | None:
    """The price of `model_id` (a base id, a dated snapshot id or an alias), or None if unknown."""
    return _price_for(model_id, os.environ.get(PRICES_ENV) or None)


@lru_cache(maxsize=1024)  # the hot path: every model call prices its usage
def _price_for(model_id: str | None, extra: str | None) -> Price | None:
    """`price_for` under the table with `extra`'s entries (keyed by it, so a new file is never served stale)."""
    if not model_id:
        return None
    if model_id.endswith(BATCH):
        base = _price_for(model_id[:-len(BATCH)], extra)
        halves = (BATCH_DISCOUNT * getattr(base, f) for f in _FIELDS) if base is not None else ()
        return None if base is None else Price(base.model + BATCH, *halves)
    table = _table(extra)
    wanted = model_id.strip().lower()
    names = [*table.prices, *table.aliases]
    for name in sorted(names, key=len, reverse=True):
        if wanted.startswith(name) and _SUFFIX.fullmatch(wanted, len(name)):
            return table.prices[table.aliases.get(name, name)]
    return None


def batch_price_id(model_id: str) -> str:
    """The id that prices `model_id`'s calls sent through the Message Batches API (half price)."""
    return model_id if model_id.endswith(BATCH) else model_id + BATCH


def cost_usd(model_id: str | None, usage: Usage) -> float | None:
    """USD for `usage` on `model_id`; None (never 0) when the model has no price."""
    price = price_for(model_id)
    return None if price is None else price.cost_usd(usage)
