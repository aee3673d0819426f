"""The embedded default model: `SimModel`, the `Policy` protocol it runs, and `GenericPolicy`.

Figures from SimModel measure mechanics and sensitivity (how cost, latency and success respond
to error rates and task shape), not the quality of any real model.
"""

from .generic import GenericPolicy
from .model import SimModel
from .policy import Decider, FirstAccepting, Policy, Reply, Request

__all__ = ["Decider", "FirstAccepting", "GenericPolicy", "Policy", "Reply", "Request", "SimModel"]
