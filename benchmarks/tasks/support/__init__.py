"""`support`: answer customer tickets; each kind of question needs its own lookup tool first."""

from benchmarks.tasks.support.family import Support

__all__ = ["Support"]
