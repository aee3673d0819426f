from benchmarks.tasks.debug.family import Debug

__all__ = ["Debug"]
