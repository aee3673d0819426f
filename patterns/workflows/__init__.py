"""The workflow patterns of "Building effective agents", each a frozen spec with a fixed `.graph`.

Run any of them with `await arun_workflow(spec, model, task)` (or `run_workflow` from sync code):
the same `Result` as the agent loop, usage and events summed over every call.
"""

from .agent_spec import Agent
from .chain import Chain
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
    "KIND_COLOURS", "LLM", "Agent", "Chain", "Code", "EvaluateOptimize", "Gate", "Loop", "Orchestrate", "Parallel",
    "Route", "Single", "Step", "ToolStep", "accept_pass", "arun_workflow", "draw", "graph_of", "majority",
    "normalise_label", "parse_plan", "run_workflow",
]
