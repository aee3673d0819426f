"""Usage as a value type, the run's limits and abort flag, and redaction of API keys."""

from __future__ import annotations

import anthropic
import pytest

from patterns.limits import Abort, Limits
from patterns.options import RequestOptions, on_off, parse_on_off
from patterns.redact import redact
from patterns.usage import Usage

# ---------------------------------------------------------------- Usage


def test_usage_defaults_to_zero() -> None:
    assert Usage().to_dict() == {"input_tokens": 0, "output_tokens": 0, "cache_write_tokens": 0, "cache_read_tokens": 0}


def test_usage_add_sums_every_field() -> None:
    assert Usage(1, 2, 3, 4) + Usage(10, 20, 30, 40) == Usage(11, 22, 33, 44)


def test_usage_add_leaves_operands_unchanged() -> None:
    a, b = Usage(1, 1), Usage(2, 2)
    _ = a + b
    assert (a, b) == (Usage(1, 1), Usage(2, 2))


def test_usage_sum_with_a_usage_start() -> None:
    steps = [Usage(100, 10), Usage(200, 20, cache_read_tokens=50), Usage(5, 1, cache_write_tokens=7)]
    assert sum(steps, Usage()) == Usage(305, 31, 7, 50)


def test_usage_sum_of_nothing_is_zero() -> None:
    assert sum([], Usage()) == Usage()


def test_usage_does_not_add_to_other_types() -> None:
    with pytest.raises(TypeError):
        _ = Usage(1) + 1  # type: ignore[operator]


def test_usage_is_immutable() -> None:
    with pytest.raises(AttributeError):
        Usage().input_tokens = 5  # type: ignore[misc]


def test_prompt_tokens_include_cache_reads_and_writes() -> None:
    assert Usage(input_tokens=10, output_tokens=99, cache_write_tokens=20, cache_read_tokens=30).prompt_tokens == 60


def test_total_tokens_is_prompt_plus_output() -> None:
    assert Usage(10, 5, 20, 30).total_tokens == 65


def test_from_api_with_none_cache_fields() -> None:
    api = anthropic.types.Usage(
        input_tokens=12, output_tokens=34, cache_creation_input_tokens=None, cache_read_input_tokens=None
    )
    assert Usage.from_api(api) == Usage(12, 34, 0, 0)


def test_from_api_maps_cache_fields() -> None:
    api = anthropic.types.Usage(
        input_tokens=1, output_tokens=2, cache_creation_input_tokens=3, cache_read_input_tokens=4
    )
    usage = Usage.from_api(api)
    assert (usage.cache_write_tokens, usage.cache_read_tokens) == (3, 4)
    assert usage.prompt_tokens == 8


def test_from_api_of_none_is_zero() -> None:
    assert Usage.from_api(None) == Usage()


def test_to_dict_names_every_field() -> None:
    assert Usage(1, 2, 3, 4).to_dict() == {
        "input_tokens": 1, "output_tokens": 2, "cache_write_tokens": 3, "cache_read_tokens": 4,
    }


# ---------------------------------------------------------------- Limits and Abort


@pytest.mark.parametrize("field", ["max_steps", "token_budget", "cost_budget_usd", "time_budget_s"])
def test_negative_limits_are_rejected(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Limits(**{field: -1})


@pytest.mark.parametrize("value", [0, -5, 2.5, True])
def test_max_tokens_below_one_is_rejected(value: int) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        RequestOptions(max_tokens=value)


def test_request_options_are_not_bounds_and_on_off_is_spelled_once() -> None:
    assert "max_tokens" not in Limits.__dataclass_fields__ and "prompt_cache" not in Limits.__dataclass_fields__
    assert RequestOptions() == RequestOptions(max_tokens=1024, prompt_cache=True)
    assert [on_off(True), on_off(False), parse_on_off(" ON "), parse_on_off("off")] == ["on", "off", True, False]
    with pytest.raises(ValueError, match="expected on or off"):
        parse_on_off("yes")


def test_none_means_unlimited_and_zero_is_allowed() -> None:
    limits = Limits(max_steps=None, token_budget=0, cost_budget_usd=0.0, time_budget_s=None)
    assert limits.max_steps is None and limits.token_budget == 0


def test_limits_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Limits().max_steps = 3  # type: ignore[misc]


def test_abort_starts_unset() -> None:
    abort = Abort()
    assert not abort.is_set and abort.reason is None


def test_abort_set_has_a_default_reason() -> None:
    abort = Abort()
    abort.set()
    assert abort.is_set and abort.reason == "aborted by caller"


def test_abort_keeps_its_first_reason() -> None:
    abort = Abort()
    abort.set("user pressed stop")
    abort.set("hook denied")
    assert abort.reason == "user pressed stop"


# ---------------------------------------------------------------- redact

CANARY = "sk-ant-canary-1234567890"


def test_redact_replaces_the_environment_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    out = redact(f"401 for key {CANARY} at https://api.anthropic.com")
    assert CANARY not in out
    assert out == "401 for key [REDACTED] at https://api.anthropic.com"


def test_redact_replaces_an_environment_key_of_any_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plain-secret-value-42")
    assert redact("header x-api-key: plain-secret-value-42") == "header x-api-key: [REDACTED]"


def test_redact_replaces_the_auth_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "bearer-token-abcdef")
    assert "bearer-token-abcdef" not in redact("Authorization: Bearer bearer-token-abcdef")


def test_redact_replaces_any_key_shaped_string(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    text = "keys: sk-ant-api03-AbC_dEf-123456 and sk-ant-admin01-zzzzzzzz."
    assert redact(text) == "keys: [REDACTED] and [REDACTED]."


def test_redact_leaves_ordinary_text_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    text = "rate limited (429); retry after 5 s; task sk-ant is not a key"
    assert redact(text) == text
