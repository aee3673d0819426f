"""`multihop`: follow references through documents to the one holding the answer; the hop count is hidden."""

from .family import Multihop
from .prompts import AGENT_SYSTEM

__all__ = ["AGENT_SYSTEM", "Multihop"]
