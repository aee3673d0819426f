from benchmarks.tasks.walks.family import Walks

__all__ = ["Walks"]
