"""Injected faults are the SDK's own exceptions, built as the SDK builds them, at the rates asked."""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from typing import Any

import anthropic
import pytest

from patterns.sim import SimModel, faults
from patterns.sim.latency import REJECT_S

HI = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 50}


def raised(model: SimModel, **params: Any) -> BaseException:
    async def main() -> BaseException:
        try:
            await model.create(**(params or HI))
        except anthropic.APIError as exc:
            return exc
        raise AssertionError("no exception")

    return asyncio.run(main())


def sdk_class_for(exc: anthropic.APIStatusError) -> type:
    """The class the SDK's own client would raise for this response."""
    from anthropic._error_classes import make_status_error  # read-only use, to compare with

    return type(make_status_error(str(exc), body=exc.body, response=exc.response))


@pytest.mark.parametrize(("knob", "cls", "status", "error_type", "retry_after"), [
    ("rate_limit_rate", anthropic.RateLimitError, 429, "rate_limit_error", "2"),
    ("overloaded_rate", anthropic.OverloadedError, 529, "overloaded_error", "2"),
    ("server_error_rate", anthropic.InternalServerError, 500, "api_error", None),
])
def test_status_faults_are_the_sdk_errors(knob: str, cls: type, status: int, error_type: str,
                                          retry_after: str | None) -> None:
    model = SimModel(**{knob: 1.0}, retry_after_s=2.0)
    exc = raised(model)
    assert type(exc) is cls and isinstance(exc, anthropic.APIStatusError)
    assert exc.status_code == status and exc.response.status_code == status
    assert exc.body["type"] == "error" and exc.body["error"]["type"] == error_type
    assert exc.type == error_type and exc.api_message == exc.body["error"]["message"]
    assert str(exc) == f"Error code: {status} - {exc.body}"  # the SDK's wording
    assert exc.response.headers.get("retry-after") == retry_after
    assert exc.request.method == "POST" and str(exc.request.url).endswith("/v1/messages")
    assert exc.request_id and exc.request_id == exc.body["request_id"]
    assert sdk_class_for(exc) is cls
    assert model.faults_injected[cls.__name__] == 1


def test_overloaded_is_an_internal_server_error_in_this_sdk() -> None:
    assert issubclass(anthropic.OverloadedError, anthropic.InternalServerError)
    assert not isinstance(raised(SimModel(server_error_rate=1.0)), anthropic.OverloadedError)


def test_timeout_fault_costs_the_client_timeout_in_modelled_time() -> None:
    model = SimModel(timeout_rate=1.0, timeout_s=42.0)

    async def main() -> float:
        with pytest.raises(anthropic.APITimeoutError) as info:
            await model.create(**HI)
        assert info.value.request.method == "POST"
        return model.clock.now()

    assert asyncio.run(main()) == pytest.approx(42.0)
    assert model.faults_injected == {"RateLimitError": 0, "OverloadedError": 0, "InternalServerError": 0,
                                     "APITimeoutError": 1}


def test_a_rejected_call_returns_quickly_in_modelled_time() -> None:
    model = SimModel(rate_limit_rate=1.0)

    async def main() -> float:
        with pytest.raises(anthropic.RateLimitError):
            await model.create(**HI)
        return model.clock.now()

    assert asyncio.run(main()) == pytest.approx(REJECT_S)


def test_prompt_too_long_has_the_api_wording_and_class() -> None:
    model = SimModel(context_window=50)
    exc = raised(model, messages=[{"role": "user", "content": "word " * 100}], max_tokens=10)
    assert type(exc) is anthropic.BadRequestError and exc.status_code == 400
    assert exc.body["error"]["type"] == "invalid_request_error"
    assert re.fullmatch(r"prompt is too long: \d+ tokens > 50 maximum", exc.body["error"]["message"])
    assert "prompt is too long" in str(exc)
    assert model.rejected["prompt_too_long"] == 1 and sum(model.faults_injected.values()) == 0


def test_fault_counts_match_what_the_caller_saw_and_the_rate_asked() -> None:
    model = SimModel(seed=5, fault_rate=0.3)
    n = 400

    async def main() -> Counter[str]:
        seen: Counter[str] = Counter()
        for i in range(n):
            try:
                await model.create(messages=[{"role": "user", "content": f"question {i}"}], max_tokens=20)
            except anthropic.APIError as exc:
                seen[type(exc).__name__] += 1
        return seen

    seen = asyncio.run(main())
    assert dict(seen) == {k: v for k, v in model.faults_injected.items() if v}
    total = sum(seen.values())
    assert abs(total - 0.3 * n) <= 4 * math.sqrt(n * 0.3 * 0.7)
    assert set(seen) == set(faults.FAULT_KINDS)  # the default mix has all four kinds
    assert model.calls == n and model.replies == n - total


def test_fault_mix_selects_the_kinds() -> None:
    model = SimModel(fault_rate=1.0, fault_mix="0/0/0/1")
    assert type(raised(model)) is anthropic.APITimeoutError
    model = SimModel(fault_rate=1.0, fault_mix=(0, 3, 0, 0))
    assert type(raised(model)) is anthropic.OverloadedError


def test_faults_do_not_perturb_the_decisions() -> None:
    async def answers(model: SimModel) -> list[str]:
        out = []
        for i in range(30):
            while True:
                try:
                    reply = await model.create(messages=[{"role": "user", "content": f"q {i} please"}], max_tokens=50)
                    break
                except anthropic.APIError:
                    continue
            out.append(reply.content[0].text)
        return out

    clean = asyncio.run(answers(SimModel(seed=9, error_rate=0.5)))
    faulty_model = SimModel(seed=9, error_rate=0.5, fault_rate=0.5)
    assert asyncio.run(answers(faulty_model)) == clean
    assert sum(faulty_model.faults_injected.values()) > 0


def test_error_builders_for_the_server() -> None:
    exc = faults.authentication_failed()
    assert type(exc) is anthropic.AuthenticationError and exc.body["error"]["type"] == "authentication_error"
    assert type(faults.not_found()) is anthropic.NotFoundError
    assert faults.retry_after_value(1.0) == "1" and faults.retry_after_value(0.25) == "0.25"
    with pytest.raises(ValueError, match="unknown fault kind"):
        faults.fault("nope", retry_after_s=1)
