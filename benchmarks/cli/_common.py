"""What every `wva` command shares: the usage-error exception and argparse value types.

A type helper raises `argparse.ArgumentTypeError`, whose message argparse shows as it is
(a plain ValueError would become argparse's vague "invalid value"); `main()` turns that and
`UsageError` into one `wva: error: ...` line and exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any


class UsageError(ValueError):
    """A mistake in how `wva` was called; raise it from `run(args)` for a one-line error, exit 2."""


class CommandFailed(Exception):
    """The call was right but the work could not be done (port in use, unwritable folder): exit 1."""


def _int(text: str, *, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _int(text, minimum=1, what="an integer >= 1")


def at_most(ceiling: int, what: str) -> Any:
    """An argparse type: an integer from 1 to `ceiling` (a bound that turns a typo into one line, at once)."""

    def parse(text: str) -> int:
        value = positive_int(text)
        if value > ceiling:
            raise argparse.ArgumentTypeError(f"expected at most {ceiling:,} {what}, got {text}")
        return value

    return parse


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def nonneg_int(text: str) -> int:
    return _int(text, minimum=0, what="an integer >= 0")


def port(text: str) -> int:
    value = _int(text, minimum=0, what="a port number from 0 to 65535")
    if value > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {value}")
    return value


def model_spec(text: str) -> str:
    """A model spec that `load_model` accepts; returns the spec itself (build it with `build_model`)."""
    from patterns.specs import load_model

    try:
        load_model(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def priced_spec(text: str) -> str:
    """A model spec wanted for its prices alone (`plan --model`): checked as `model_spec` checks it, but a
    provider's model is never built, so a dry estimate for `openai:<id>` needs no openai SDK."""
    from patterns.specs import ModelSpec, _check_model_id

    try:
        spec = ModelSpec.parse(text)
        if spec.provider in ("anthropic", "openai"):
            _check_model_id(spec)  # the id, never the SDK: nothing is called
        else:
            spec.load()  # the simulator's knobs, a cassette's file
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def build_model(spec: str) -> Any:
    """`load_model(spec)`, with a bad spec turned into a `UsageError`."""
    from patterns.specs import load_model

    try:
        return load_model(spec)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def on_off(text: str) -> bool:
    """`on` or `off` (a switch such as `--prompt-cache`; `patterns.options.parse_on_off`, the one spelling)."""
    from patterns.options import parse_on_off

    try:
        return parse_on_off(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


PROMPT_CACHE_HELP = ("send cache_control breakpoints (system, tools, last message) with every model call, as "
                     "production agents do (default: on); off bills every prompt token as plain input")


def knob_items(text: str) -> str:
    """One `--knob name=value`: checked for shape here, by name and type in the command."""
    if "=" not in text or not text.partition("=")[0].strip():
        raise argparse.ArgumentTypeError(f"expected name=value, got {text!r}")
    return text


def task_list(text: str) -> tuple[str, ...]:
    """`--tasks`: specs separated by ',' or ';' (grammar: `benchmarks.tasks.registry.split_task_list`)."""
    from benchmarks.tasks.registry import split_task_list

    try:
        return tuple(split_task_list(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_prices_option(p: argparse.ArgumentParser) -> None:
    """`--prices FILE`: model prices on top of the built-in table (`patterns.pricing.use_prices`)."""
    p.add_argument("--prices", default=None, metavar="FILE",
                   help="a JSON file shaped like patterns/prices.json ({\"models\": {id: {input, output, "
                   "cache_write, cache_read}}}, USD per million tokens) whose entries add to or replace the built-in "
                   "prices, for anthropic:, openai: and local models alike; all zeros prices a model at $0, which "
                   "is not the same as unknown")


def apply_prices(args: argparse.Namespace) -> None:
    """Put `--prices FILE` in force (before any model is built); a bad file is a UsageError."""
    if getattr(args, "prices", None) is None:
        return
    from patterns.pricing import use_prices

    try:
        use_prices(args.prices)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
