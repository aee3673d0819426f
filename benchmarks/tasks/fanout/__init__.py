"""`fanout`: aggregate one fact over N products named in the question (N varies, visible up front)."""

from benchmarks.tasks.fanout.family import Fanout

__all__ = ["Fanout"]
