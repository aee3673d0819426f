"""What a task family is: the protocol every family (built in or a user's own) satisfies.

A family is a class. Constructed with its parameters (`Family(**params)`, each parsed from the
command line as `name:key=value,...`), it provides:

- `name`, `description`, `PARAMS` (key -> `Param`: default, parser, help);
- `instances(n, seed) -> list[Instance]`: seeded, deterministic; an instance's `data` holds the
  ground truth, which only the environment and the grader may read;
- `environment(instance, workdir) -> Environment`: fresh state and tools for one trial;
- `design(pattern, env) -> spec`: how `single`, `chain`, `route`, `orchestrate`, `parallel`,
  `evaluate_optimize` and `agent` solve this family (a spec from `patterns.workflows`); the
  built-in families write one method `design_<pattern>(env)` per pattern and find it with
  `design_of`, the one way designs are dispatched (their `FamilyBase` does: it also gives them their
  `__init__` and seeded `instances`);
- `grade(instance, env, output) -> float`: a score in [0, 1]; 1.0 is a success;
- `policy() -> patterns.sim.Policy`: how `SimModel` behaves on this family's prompts. It sees the
  request only; it recognises the family's own prompts in `accepts`;
- optionally `natural_workflow`: the workflow pattern the family was designed around, declared before
  any result (each built-in family says why, next to it); `wva criterion` compares the agent with it
  (without it, with the best workflow, chosen in a way that does not bias the test).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from benchmarks.names import PATTERNS  # re-exported: the one list of pattern names
from patterns.sim.policy import CROWDING
from patterns.tools import ToolSet

__all__ = ["PATTERNS", "Environment", "Family", "FamilyBase", "Instance", "IntRange", "Param"]


@dataclass(frozen=True)
class Instance:
    id: str  # stable, e.g. "multihop-0007"
    prompt: str  # the task as the model is given it
    data: dict[str, Any] = field(default_factory=dict, repr=False)  # ground truth: environment and grader only


@dataclass
class Environment:
    """One trial's world: its tools and whatever state they act on (a fresh one per trial)."""

    tools: ToolSet
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class IntRange:
    """An inclusive range of integers, written `3` or `1-6` on the command line."""

    low: int
    high: int

    @classmethod
    def parse(cls, text: str | int | IntRange) -> IntRange:
        if isinstance(text, IntRange):
            return text
        if isinstance(text, int):
            return cls(text, text)
        lo, sep, hi = str(text).partition("-")
        try:
            low, high = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ValueError(f"expected an integer or a range like 1-6, got {text!r}") from None
        if low < 1 or high < low:
            raise ValueError(f"range {text!r} must be positive and low <= high")
        return cls(low, high)

    def __str__(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def positive_int(text: str | int) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"expected a positive integer, got {text!r}")
    return value


def design_bound(text: str | int | None) -> int | None:
    """A fixed design's bound (depth, rounds): a positive integer, or `auto` (None) for the family's own
    stated maximum, so that by default no instance of the family is out of a fixed design's reach."""
    if text is None or str(text).strip().lower() in ("auto", "none"):
        return None
    return positive_int(text)


def non_negative(text: str | float) -> float:
    """A knob such as `crowding`: a finite number >= 0 (nan and inf refused)."""
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"expected a number >= 0, got {text!r}")
    return value


def bounded(parse: Callable[[Any], Any], low: int, high: int, what: str) -> Callable[[Any], Any]:
    """`parse`, then a check that the value (or an `IntRange`'s ends) lies within low-high."""
    def check(text: Any) -> Any:
        value = parse(text)
        top = value.high if isinstance(value, IntRange) else value
        bottom = value.low if isinstance(value, IntRange) else value
        if bottom < low or top > high:
            raise ValueError(f"{what} must be within {low}-{high}, got {text!r}")
        return value
    return check


def decimal_text(text: str) -> str:
    """A number as a canonical string (`94.90` -> `94.9`), so graders compare values, not spellings."""
    try:
        return str(Decimal(text).normalize())
    except InvalidOperation:
        return ""


def probability(text: str | float) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"expected a number in [0, 1], got {text!r}")
    return value


@dataclass(frozen=True)
class Param:
    default: Any
    parse: Callable[[Any], Any]
    help: str


# The knob every built-in family has (its policy's `crowded` decisions; patterns.sim.policy).
CROWDING_PARAM = Param(CROWDING, non_negative, "a call making k decisions errs at e*(1+crowding*(k-1)) each")


def boolean(text: str | bool) -> bool:
    """true/false, yes/no, on/off, 1/0 (any case)."""
    if isinstance(text, bool):
        return text
    value = str(text).strip().lower()
    if value not in ("true", "false", "yes", "no", "on", "off", "1", "0"):
        raise ValueError(f"expected true or false, got {text!r}")
    return value in ("true", "yes", "on", "1")


# Every built-in family's declared workflow is the strongest one drawable in advance: the agent's tools (or
# their code equivalents), a judge where the agent self-judges, bounded retries that use the feedback.
# `plain=true` gives that pattern's textbook design without them, so a sweep shows what drawing it buys.
PLAIN_PARAM = Param(False, boolean, "design: the declared workflow without the validator, judge and retries the "
                    "agent is given (the plain textbook design)")


@runtime_checkable
class Family(Protocol):
    name: str
    description: str
    PARAMS: dict[str, Param]

    def instances(self, n: int, seed: int) -> list[Instance]: ...

    def environment(self, instance: Instance, workdir: Path) -> Environment: ...

    def design(self, pattern: str, env: Environment) -> Any: ...

    def grade(self, instance: Instance, env: Environment, output: str) -> float: ...

    def policy(self) -> Any: ...


def _lazy(family: Any) -> bool:
    return isinstance(family, FamilyBase) and type(family).instances is FamilyBase.instances  # not overridden


def iter_instances(family: Any, n: int, seed: int, start: int = 0) -> Iterator[Instance]:
    """A family's instances `start` to `n - 1`, made lazily when it can (`FamilyBase.iter_instances`: each from
    its own seed, so a later look starts where it needs to instead of making the earlier ones again), else from
    its list."""
    if _lazy(family) and type(family).iter_instances is FamilyBase.iter_instances:
        return (family.instance(i, random.Random(f"{family.name}:{seed}:{i}")) for i in range(start, n))
    if _lazy(family):
        return itertools.islice(family.iter_instances(n, seed), start, None)
    return iter(family.instances(n, seed)[start:])


def design_of(family: Any, pattern: str, env: Environment) -> Any:
    """The one way a family's designs are found: its method `design_<pattern>(env)`."""
    if pattern not in PATTERNS:
        raise ValueError(f"unknown pattern {pattern!r} for task {family.name!r}: choose from {', '.join(PATTERNS)}")
    return getattr(family, f"design_{pattern}")(env)


def look_up(table: dict[str, Any], key: str, missing: str) -> Any:
    """A lookup tool's entry `table[key]`; an unknown key is a LookupError whose message (`missing`) the model
    reads, so it should say how to find the right key."""
    if key not in table:
        raise LookupError(missing)
    return table[key]


def marked(request: Any, mark: str) -> bool:
    """A policy's `accepts`: the family's mark is in the request's system prompt or its first user turn."""
    return mark in request.system or mark in request.first_user_text()


REQUIRED = ("name", "description", "PARAMS", "instances", "environment", "design", "grade", "policy")


def parse_params(family: str, params: dict[str, Param], raw: dict[str, str]) -> dict[str, Any]:
    """Validate `key=value` settings against a family's PARAMS; one-line ValueErrors."""
    values = {key: p.parse(p.default) for key, p in params.items()}
    for key, text in raw.items():
        if key not in params:
            valid = ", ".join(params) or "none"
            raise ValueError(f"unknown parameter {key!r} for task {family!r}: valid parameters are {valid}")
        try:
            values[key] = params[key].parse(text)
        except ValueError as exc:
            raise ValueError(f"bad value for {family}:{key}: {exc}") from None
    return values


def init_params(obj: Any, raw: dict[str, Any]) -> None:
    """Set a family's parameters as attributes, validated (for use in `__init__`)."""
    values = parse_params(obj.name, obj.PARAMS, {k: v for k, v in raw.items()})
    for key, value in values.items():
        setattr(obj, key, value)
    obj.settings = {k: str(v) for k, v in values.items()}


class FamilyBase:
    """The skeleton the built-in families share, so that each writes only what is its own (PARAMS,
    `instance`, `environment`, `design_<pattern>`, `grade`, `policy`): `Family(**params)` validated
    against PARAMS, seeded instances, and designs found by `design_of`."""

    name: str
    PARAMS: ClassVar[dict[str, Param]]

    def __init__(self, **params: Any) -> None:
        init_params(self, params)

    def instance(self, i: int, rng: random.Random) -> Instance:
        """Instance i, drawn from `rng` only (each family writes its own)."""
        raise NotImplementedError

    def instances(self, n: int, seed: int) -> list[Instance]:
        """`self.instance(i, rng)` for i < n, each from its own generator seeded by (name, seed, i), so
        that instance i is the same whatever n is, and another seed gives other instances."""
        return list(self.iter_instances(n, seed))

    def iter_instances(self, n: int, seed: int) -> Iterator[Instance]:
        """The same instances, made one at a time as they are asked for (a long sweep never holds them all)."""
        return (self.instance(i, random.Random(f"{self.name}:{seed}:{i}")) for i in range(n))

    def design(self, pattern: str, env: Environment) -> Any:
        return design_of(self, pattern, env)

    def not_offered(self) -> dict[str, str]:
        """The patterns this family has no `design_<pattern>` for, each with the reason a sweep prints: a new
        pattern runs on the families that design it and is reported as not offered by the others."""
        return {p: f"{self.name} has no design for {p} (no design_{p} method)" for p in PATTERNS
                if not hasattr(self, f"design_{p}")}


def task_label(obj: Any) -> str:
    """`name` plus the parameters that differ from the defaults: the task's key in every table."""
    changed = [f"{k}={obj.settings[k]}" for k, p in obj.PARAMS.items() if obj.settings[k] != str(p.parse(p.default))]
    return obj.name + (":" + ",".join(changed) if changed else "")
