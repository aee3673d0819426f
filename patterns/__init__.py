"""workflow-vs-agent: the shared primitives and every pattern.

Importing this package has no side effects: no client is created and nothing is read from
the network or the environment until a model is called.
"""

from .agent import arun_agent, run_agent
from .clock import REAL_CLOCK, RealClock, VirtualClock
from .events import Event, Kind
from .hooks import Hooks
from .limits import Abort, Limits
from .options import RequestOptions
from .result import ErrorInfo, Result, Terminal
from .retry import NO_RETRY, RetryPolicy
from .run import Failure, Run, StopRun
from .scripted import ScriptedModel, message, text_block, tool_use_block
from .sync import run_sync
from .tools import Tool, ToolSet, tool
from .usage import Usage

__all__ = [
    "NO_RETRY", "REAL_CLOCK", "Abort", "ErrorInfo", "Event", "Failure", "Hooks", "Kind", "Limits",
    "RealClock", "RequestOptions", "Result", "RetryPolicy", "Run", "ScriptedModel", "StopRun", "Terminal", "Tool",
    "ToolSet", "Usage", "VirtualClock", "arun_agent", "message", "run_agent", "run_sync", "text_block", "tool",
    "tool_use_block",
]


def __getattr__(name: str) -> object:
    # Models import heavier modules (the simulator, the SDK client); load them on first use.
    if name in ("SimModel", "GenericPolicy"):
        from . import sim

        return getattr(sim, name)
    if name in ("AnthropicModel", "Model"):
        from . import model

        return getattr(model, name)
    if name in ("RecordingModel", "ReplayModel"):
        from . import replay

        return getattr(replay, name)
    if name == "load_model":
        from .specs import load_model

        return load_model
    raise AttributeError(f"module 'patterns' has no attribute {name!r}")
