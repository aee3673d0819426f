"""`pipeline`: normalise a messy record in three fixed steps; the graph is known in advance."""

from .family import Pipeline

__all__ = ["Pipeline"]
