import json
import re
from importlib import resources

import pytest

from patterns.pricing import PRICES_READ_ON, Price, cost_usd, known_models, price_for
from patterns.usage import Usage


def test_known_model_cost_is_hand_computed() -> None:
    # claude-sonnet-4-5: $3 in, $15 out per million tokens.
    usage = Usage(input_tokens=1_000, output_tokens=200)
    assert cost_usd("claude-sonnet-4-5", usage) == pytest.approx(1_000 * 3e-6 + 200 * 15e-6)  # 0.006


def test_cache_tokens_are_priced_at_their_own_rates() -> None:
    # claude-haiku-4-5: cache write $1.25, cache read $0.10 per million.
    usage = Usage(input_tokens=0, output_tokens=0, cache_write_tokens=1_000_000, cache_read_tokens=2_000_000)
    assert cost_usd("claude-haiku-4-5", usage) == pytest.approx(1.25 + 0.2)


@pytest.mark.parametrize(
    ("model_id", "entry"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),  # Vertex spells the snapshot this way
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-sonnet-4-0", "claude-sonnet-4"),
        ("claude-opus-4-5-20251101", "claude-opus-4-5"),  # not the older, dearer claude-opus-4
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("Claude-Haiku-4-5", "claude-haiku-4-5"),
    ],
)
def test_dated_ids_and_aliases_resolve_to_the_base_entry(model_id: str, entry: str) -> None:
    price = price_for(model_id)
    assert price is not None and price.model == entry


def test_dated_id_costs_the_same_as_its_base() -> None:
    usage = Usage(1_234, 567, 89, 10)
    assert cost_usd("claude-opus-4-5-20251101", usage) == cost_usd("claude-opus-4-5", usage)
    assert cost_usd("claude-opus-4-5", usage) == pytest.approx((1_234 * 5 + 567 * 25 + 89 * 6.25 + 10 * 0.5) / 1e6)


@pytest.mark.parametrize("model_id", ["gpt-4o-audio-preview", "o3", "gpt-4.1-2025",
                                      "sim", "", None, "claude-opus-4-9", "claude-sonnet-4-5-2025"])
def test_unknown_model_is_none_never_zero(model_id: str | None) -> None:
    assert price_for(model_id) is None
    assert cost_usd(model_id, Usage(100, 100)) is None


def test_table_is_complete_and_dated() -> None:
    raw = json.loads(resources.files("patterns").joinpath("prices.json").read_text("utf-8"))
    assert raw["read_on"] == PRICES_READ_ON and raw["source"].startswith("https://")
    for model in known_models():
        price = price_for(model)
        assert isinstance(price, Price)
        assert price.input > 0 and price.output > price.input
        assert price.cache_read < price.input <= price.cache_write  # OpenAI bills no cache write: the input price


@pytest.mark.parametrize(("model_id", "entry"), [
    ("gpt-4o-2024-08-06", "gpt-4o"), ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"), ("gpt-4.1-mini", "gpt-4.1-mini"),
    ("gpt-5-2025-08-07", "gpt-5")])
def test_openai_ids_and_snapshots_resolve_to_their_own_entry(model_id: str, entry: str) -> None:
    price = price_for(model_id)
    assert price is not None and price.model == entry


def test_price_is_frozen() -> None:
    price = price_for("claude-sonnet-4-5")
    with pytest.raises(AttributeError):
        price.input = 0  # type: ignore[misc, union-attr]


def test_every_entry_names_its_page_and_day_and_batch_is_half() -> None:
    """Each entry says where its prices were read and when; a Claude entry's batch prices are half its standard ones
    (what `+batch` price ids charge) and its 1-hour cache write is at least its 5-minute one."""
    raw = json.loads(resources.files("patterns").joinpath("prices.json").read_text("utf-8"))
    for name, entry in raw["models"].items():
        assert entry["source"].startswith("https://") and re.fullmatch(r"2026-\d\d-\d\d", entry["read"]), name
        if name.startswith("claude"):
            assert (entry["batch_input"], entry["batch_output"]) == (entry["input"] / 2, entry["output"] / 2), name
            assert entry["cache_write_1h"] >= entry["cache_write"], name
            batch = price_for(f"{name}+batch")
            assert batch is not None and batch.input == entry["batch_input"] and batch.output == entry["batch_output"]


@pytest.mark.parametrize(("model_id", "prices"), [
    ("claude-opus-5-5", (4.0, 20.0, 5.0, 0.2)), ("claude-fable-5-1", (10.0, 50.0, 12.5, 0.25)),
    ("claude-sonnet-5-5", (2.0, 10.0, 2.5, 0.2)), ("claude-opus-4-8", (5.0, 25.0, 6.25, 0.5)),
    ("claude-sonnet-4-6", (3.0, 15.0, 3.75, 0.3)), ("claude-opus-5", (5.0, 25.0, 6.25, 0.5))])
def test_the_current_claude_models_are_priced(model_id: str, prices: tuple[float, ...]) -> None:
    price = price_for(model_id)
    assert price is not None and price.model == model_id
    assert (price.input, price.output, price.cache_write, price.cache_read) == prices


@pytest.mark.parametrize("model_id", ["claude-haiku-5-5", "claude-fable-5-2", "claude-mythos-5-1"])
def test_a_model_no_official_row_prices_stays_unpriced(model_id: str) -> None:
    """Haiku 5.5's price depends on the prompt's length; Fable 5.2 and Mythos 5.1's ids were not on a page read."""
    assert price_for(model_id) is None
