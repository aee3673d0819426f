"""SimModel's knobs: their types, defaults and meanings, and the checks on their values.

One table (`KNOBS`) serves the constructor, `load_model("sim:k=v,...")` and the CLI listing.
Every mistake is a ValueError that names the knob and lists the valid ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .faults import FAULT_KINDS
from .latency import DEFAULT_DECODE_TPS, DEFAULT_PREFILL_TPS, DEFAULT_TTFT_S

KNOBS: dict[str, tuple[type, Any, str]] = {
    "error_rate": (float, 0.0, "probability that one decision of the policy is wrong"),
    "seed": (int, 0, "the same seed gives the same run, bit for bit"),
    "error_correlation": (float, 0.5, "chance that a decision made again in a trial (the same field, lookup "
                          "or hop, whichever pattern makes it) repeats the first outcome, right or wrong (0: "
                          "independent)"),
    "checker_error_rate": (float, None, "probability that a judgement (evaluator, validator, self-check) "
                           "is wrong; default: error_rate"),
    "context_decay": (float, 0.1, "error rates grow with the prompt: rate * (1 + decay * input_tokens / 10k)"),
    "fault_rate": (float, 0.0, "probability that a call fails (429/529/500/timeout, split by fault_mix)"),
    "fault_mix": (str, "1/1/1/1", "weights of 429/529/500/timeout within fault_rate, e.g. 2/1/1/0"),
    "rate_limit_rate": (float, 0.0, "extra probability of a 429 RateLimitError per call"),
    "overloaded_rate": (float, 0.0, "extra probability of a 529 OverloadedError per call"),
    "server_error_rate": (float, 0.0, "extra probability of a 500 InternalServerError per call"),
    "timeout_rate": (float, 0.0, "extra probability of an APITimeoutError per call"),
    "retry_after_s": (float, 1.0, "retry-after header (seconds) sent with 429 and 529"),
    "timeout_s": (float, 60.0, "modelled seconds a timed-out call costs"),
    "context_window": (int, 200_000, "input tokens above this are a 'prompt is too long' 400"),
    "max_output_tokens": (int, 64_000, "a max_tokens above this is a 400, as the API refuses it (Claude Sonnet "
                          "4.5's output limit)"),
    "ttft_s": (float, DEFAULT_TTFT_S, "modelled time to first token (seconds)"),
    "prefill_tps": (float, DEFAULT_PREFILL_TPS, "modelled prompt tokens processed per second"),
    "decode_tps": (float, DEFAULT_DECODE_TPS, "modelled output tokens generated per second"),
    "realtime": (bool, False, "really wait the modelled latency (default: virtual time, no waiting)"),
    "price_as": (str, "claude-sonnet-4-5", "model id whose prices the run's cost uses"),
    "name": (str, "sim", "the `model` field of every reply"),
}
RATE_KNOBS = ("rate_limit_rate", "overloaded_rate", "server_error_rate", "timeout_rate")  # FAULT_KINDS' order


def _valid() -> str:
    return ", ".join(KNOBS)


def _bad(name: str, why: str) -> ValueError:
    return ValueError(f"SimModel knob {name}: {why} (valid knobs: {_valid()})")


def parse_fault_mix(value: str | Sequence[float]) -> tuple[float, ...]:
    """'2/1/1/0' (or a sequence of 4 numbers) -> weights of 429/529/500/timeout."""
    parts: Sequence[Any] = value.replace(":", "/").split("/") if isinstance(value, str) else value
    try:
        weights = tuple(float(p) for p in parts)
    except (TypeError, ValueError):
        raise _bad("fault_mix", f"expected 4 weights like 1/1/1/1, got {value!r}") from None
    if len(weights) != len(FAULT_KINDS) or any(not math.isfinite(w) or w < 0 for w in weights):
        raise _bad("fault_mix", f"expected 4 non-negative weights (429/529/500/timeout), got {value!r}")
    if sum(weights) <= 0:
        raise _bad("fault_mix", "the weights must not all be 0")
    return weights


def check_knobs(values: Mapping[str, Any], unknown: Mapping[str, Any]) -> dict[str, Any]:
    """The knob values, type- and range-checked (fault_mix parsed into a tuple of weights)."""
    if unknown:
        names = ", ".join(sorted(unknown))
        raise ValueError(f"unknown SimModel knob(s) {names} (valid knobs: {_valid()})")
    out: dict[str, Any] = {}
    for name, value in values.items():
        kind = KNOBS[name][0]
        if value is None and KNOBS[name][1] is None:  # an optional knob left unset
            out[name] = None
            continue
        if name == "fault_mix":
            out[name] = parse_fault_mix(value)
            continue
        if kind is bool:
            if not isinstance(value, bool):
                raise _bad(name, f"expected true or false, got {value!r}")
        elif kind in (int, float):
            ok = isinstance(value, int | float) if kind is float else isinstance(value, int)
            if isinstance(value, bool) or not ok or not math.isfinite(value):
                raise _bad(name, f"expected {'an integer' if kind is int else 'a number'}, got {value!r}")
            value = kind(value)
        elif not isinstance(value, str) or not value:
            raise _bad(name, f"expected a non-empty string, got {value!r}")
        out[name] = value
    for name in ("error_rate", "error_correlation", "checker_error_rate", "fault_rate", *RATE_KNOBS):
        if out[name] is not None and not 0.0 <= out[name] <= 1.0:
            raise _bad(name, f"must be in [0, 1], got {out[name]!r}")
    for name in ("retry_after_s", "timeout_s", "ttft_s", "context_decay"):
        if out[name] < 0:
            raise _bad(name, f"must be >= 0, got {out[name]!r}")
    for name in ("prefill_tps", "decode_tps", "context_window", "max_output_tokens"):
        if out[name] <= 0:
            raise _bad(name, f"must be > 0, got {out[name]!r}")
    if sum(fault_probabilities(out).values()) > 1.0 + 1e-9:
        raise _bad("fault_rate", "fault_rate plus the per-kind rates must not exceed 1")
    return out


def fault_probabilities(knobs: Mapping[str, Any]) -> dict[str, float]:
    """Per-call probability of each fault kind: its share of fault_rate plus its own rate."""
    weights = knobs["fault_mix"]
    total = sum(weights)
    return {kind: knobs["fault_rate"] * w / total + knobs[rate]
            for kind, w, rate in zip(FAULT_KINDS, weights, RATE_KNOBS, strict=True)}


TRUE, FALSE = frozenset({"true", "1", "yes", "on"}), frozenset({"false", "0", "no", "off"})


def parse_value(kind: type, text: object) -> Any:
    """Knob text as a value of `kind`: the one parser of knob text (specs, the command line, the sim server).
    Booleans are true/false, 1/0, yes/no or on/off; numbers must be finite; a ValueError says what was expected."""
    value = str(text).strip()
    if kind is bool:
        if value.lower() in TRUE | FALSE:
            return value.lower() in TRUE
        raise ValueError("use true, false, 1 or 0 (or yes, no, on, off)")
    if kind in (int, float):
        try:
            number = kind(value)
        except ValueError:
            raise ValueError(f"expected {'an integer' if kind is int else 'a number'}") from None
        if not math.isfinite(number):
            raise ValueError("expected a finite number")
        return number
    return value


def parse_knobs(raw: Mapping[str, str]) -> dict[str, Any]:
    """Knob values given as text (a spec, a command line) -> typed values; ValueError on a bad one."""
    out: dict[str, Any] = {}
    for name, text in raw.items():
        if name not in KNOBS:
            raise ValueError(f"unknown SimModel knob {name!r} (valid knobs: {_valid()})")
        try:
            out[name] = parse_value(KNOBS[name][0], text)
        except ValueError as exc:
            raise _bad(name, f"{exc}, got {text!r}") from None
    return out
