"""`bugfix`: seeded bugs in real stdlib modules, real tests, real tools (not in the default run)."""

from benchmarks.tasks.bugfix.family import Bugfix

__all__ = ["Bugfix"]
