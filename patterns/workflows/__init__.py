"""The workflow patterns of "Building effective agents", each a frozen spec with a fixed `.graph`.

Run any of them with `await arun_workflow(spec, model, task)` (or `run_workflow` from sync code):
the same `Result` as the agent loop, usage and events summed over every call.
"""

from .agent_spec import Agent
from .chain import Chain
from .choices import AgentLike, K, agent_like, check_drawn, model_choices
from .dispatch import Dispatch
from .evaluate import EvaluateOptimize, accept_pass
from .execute import arun_workflow, run_workflow
from .graph import KIND_COLOURS, draw, graph_of
from .loop import Loop
from .orchestrate import Orchestrate, parse_plan
from .parallel import Parallel, majority
from .route import Route, normalise_label
from .single import Single
from .steps import LLM, Code, Gate, Step, ToolStep

__all__ = [
    "KIND_COLOURS",
    "LLM",
    "Agent",
    "AgentLike",
    "Chain",
    "Code",
    "Dispatch",
    "EvaluateOptimize",
    "Gate",
    "K",
    "Loop",
    "Orchestrate",
    "Parallel",
    "Route",
    "Single",
    "Step",
    "ToolStep",
    "accept_pass",
    "agent_like",
    "arun_workflow",
    "check_drawn",
    "draw",
    "graph_of",
    "majority",
    "model_choices",
    "normalise_label",
    "parse_plan",
    "run_workflow",
]
