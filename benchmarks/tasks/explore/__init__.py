from benchmarks.tasks.explore.family import Explore

__all__ = ["Explore"]
