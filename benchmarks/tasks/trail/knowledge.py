"""The simulated model's world knowledge of a trail family: which place a phrase of prose means.

It stands for what a language model knows and code does not: that "the harbour master's books" are kept by
`port_registry`. Only a model call may use it: a policy reads it inside `reading()`, which it enters while it
answers a request; anywhere else `place_of` raises, so no step of a workflow's code can read what only the model
should know (`tests/tasks/test_trail.py` runs every design with the guard on).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from benchmarks.tasks.trail.world import TrailSpec

_READING: contextvars.ContextVar[bool] = contextvars.ContextVar("trail_world_knowledge", default=False)


class NotAModel(PermissionError):
    """Code tried to read the simulated model's world knowledge."""


@contextmanager
def reading() -> Iterator[None]:
    """The policy's call: the world knowledge may be read while it lasts."""
    token = _READING.set(True)
    try:
        yield
    finally:
        _READING.reset(token)


def place_of(spec: TrailSpec, text: str) -> str | None:
    """The place the first of the family's phrases found in `text` means (None if it names none)."""
    if not _READING.get():
        raise NotAModel(f"{spec.name}: only the simulated model's policy may map prose to a place")
    found = [(text.find(ph), p.tool) for p in spec.places for ph in p.phrases if ph in text]
    return min(found)[1] if found else None
