"""`multihop`: follow references through documents to the one holding the answer; the hop count is hidden."""

from benchmarks.tasks.multihop.family import Multihop
from benchmarks.tasks.multihop.prompts import AGENT_SYSTEM

__all__ = ["AGENT_SYSTEM", "Multihop"]
