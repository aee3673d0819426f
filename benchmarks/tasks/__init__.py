"""The task families: from a graph known in advance (`pipeline`) to one that cannot be drawn (`repair`)."""

from .base import PATTERNS, Environment, Family, Instance, IntRange, Param
from .dataset import DatasetTask
from .registry import BUILTIN, builtin_families, load_task, split_task_list

__all__ = [
    "BUILTIN",
    "PATTERNS",
    "DatasetTask",
    "Environment",
    "Family",
    "Instance",
    "IntRange",
    "Param",
    "builtin_families",
    "load_task",
    "split_task_list",
]
