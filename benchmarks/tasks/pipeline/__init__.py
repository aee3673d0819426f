"""`pipeline`: normalise a messy record in three fixed steps; the graph is known in advance."""

from benchmarks.tasks.pipeline.family import Pipeline

__all__ = ["Pipeline"]
