"""`Orchestrate`: orchestrator-workers — a planner decides the subtasks at run time, workers run them
concurrently (bounded), a synthesizer combines their outputs.

The plan is structured output: a JSON array of subtask strings, or `{"subtasks": [...]}` (the
first JSON value in the reply is used, so a fenced ```json block works). A malformed plan gets
one repair call that quotes the problem; a second malformed plan is a `MalformedPlan` failure.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import networkx as nx

from ..events import Kind
from ..run import Failure, Run
from .graph import connect, graph_of
from .steps import LLM, Step, render


def parse_plan(text: str, max_subtasks: int) -> list[str]:
    """The subtasks in a planner's reply; ValueError with a reason a model can act on."""
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError("no JSON array or object found")
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg}") from None
    if isinstance(value, dict):
        value = value.get("subtasks")
    if not isinstance(value, list) or not value:
        raise ValueError('expected a non-empty JSON array of subtasks (or {"subtasks": [...]})')
    subtasks = [item.get("task") if isinstance(item, dict) else item for item in value]
    if not all(isinstance(s, str) and s.strip() for s in subtasks):
        raise ValueError("every subtask must be a non-empty string")
    if len(subtasks) > max_subtasks:
        raise ValueError(f"{len(subtasks)} subtasks is more than the limit of {max_subtasks}")
    return [s.strip() for s in subtasks]


def default_synthesis_input(task: str, subtasks: list[str], outputs: list[str]) -> str:
    lines = [f"Task: {task}", "", "Results of the subtasks:"]
    lines += [f"{i}. {s}\n   -> {o}" for i, (s, o) in enumerate(zip(subtasks, outputs, strict=True), 1)]
    return "\n".join(lines)


@dataclass(frozen=True)
class Orchestrate:
    planner: LLM
    worker: Step
    synthesizer: LLM
    max_workers: int = 4
    max_subtasks: int = 16
    name: str = "orchestrate"
    pattern: str = "orchestrate"

    async def __call__(self, run: Run, text: str) -> str:
        subtasks = await self._plan(run, text)
        run.extra["plan"] = subtasks
        run.record(Kind.DECISION, run.elapsed(), name=self.planner.name, detail=f"plan: {len(subtasks)} subtasks")
        bound = asyncio.Semaphore(self.max_workers)

        async def work(subtask: str) -> str:
            async with bound:
                return await self.worker(run, subtask)

        outputs = await run.gather([work(s) for s in subtasks])
        return await self.synthesizer(run, default_synthesis_input(run.task or text, subtasks, outputs))

    async def _plan(self, run: Run, text: str) -> list[str]:
        reply = await self.planner(run, text)
        try:
            return parse_plan(reply, self.max_subtasks)
        except ValueError as first:
            problem = str(first)
        run.record(Kind.RECOVERY, run.elapsed(), name=self.planner.name, detail=f"plan repair: {problem}")
        planner = self.planner

        def repair_prompt(t: str, task: str) -> str:
            return (f"{render(planner.prompt, t, task)}\n\nYour previous answer could not be used as a plan "
                    f"({problem}). Reply with only the JSON.")

        reply = await LLM(planner.name + ".repair", repair_prompt, planner.system, planner.tools)(run, text)
        try:
            return parse_plan(reply, self.max_subtasks)
        except ValueError as second:
            raise Failure("MalformedPlan", f"plan still malformed after one repair: {second}", planner.name) from None

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        entries, plan_exits = self.planner.add_to(graph, prefix)
        w_entries, w_exits = self.worker.add_to(graph, prefix + "worker:")
        for n in graph.nodes:
            if n.startswith(prefix + "worker:") and not graph.nodes[n].get("dynamic"):
                graph.nodes[n]["dynamic"] = True  # how many workers is decided at run time
                graph.nodes[n]["label"] = f"{graph.nodes[n]['label']} ×N"
        s_entries, s_exits = self.synthesizer.add_to(graph, prefix)
        connect(graph, plan_exits, w_entries)
        connect(graph, w_exits, s_entries)
        return entries, s_exits

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "orchestrator-workers")
