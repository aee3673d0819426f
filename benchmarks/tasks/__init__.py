"""The task families: from a graph known in advance (`pipeline`) to one that cannot be drawn (`repair`)."""

from .base import PATTERNS, Environment, Family, Instance, IntRange, Param
from .registry import BUILTIN, builtin_families, load_task

__all__ = [
    "BUILTIN",
    "PATTERNS",
    "Environment",
    "Family",
    "Instance",
    "IntRange",
    "Param",
    "builtin_families",
    "load_task",
]
