"""`repair`: fix a config file until its validator passes; how many faults it has is hidden."""

from benchmarks.tasks.repair.family import Repair

__all__ = ["Repair"]
