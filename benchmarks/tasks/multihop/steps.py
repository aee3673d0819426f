"""The plain fixed walk of `multihop`'s textbook designs: read the document the text names, decide, and so on
up to a depth; its first misread id or dead end ends it (the declared walk, `backtrack.py`, goes back instead)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from benchmarks.tasks.multihop.answers import answer_vote, multihop_next_id, multihop_step
from benchmarks.tasks.multihop.prompts import FOLLOW_PROMPT
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Step, ToolStep


def done(text: str) -> bool:
    """Has the walk ended (a line leading with ANSWER, DEAD END or UNKNOWN, in any case or markdown)?"""
    return (step := multihop_step(text)) is not None and step[0] != "next"


def final_answer(text: str) -> str:
    step = multihop_step(text)
    return step[1] if step and step[0] == "answer" else f"UNKNOWN: no answer ({text.strip()[:80]})"


def vote_answers(outputs: list[str]) -> str:
    """Majority among the walks that found an answer (a walk that did not has no vote), by value."""
    answers = [final_answer(o) for o in outputs if (multihop_step(o) or ("",))[0] == "answer"]
    return answer_vote(answers) if answers else final_answer(outputs[0])


def first_id(text: str) -> dict[str, Any]:
    return {"doc_id": multihop_next_id(text) or text.strip()[:40]}


@dataclass(frozen=True)
class ReadStep(ToolStep):
    """A fixed read_document call on the first id in the text. Once the walk has ended (an answer, a
    dead end) it passes the text through; a failed read ends the walk, not the run."""

    async def __call__(self, run: Run, text: str) -> str:
        if done(text):
            return text
        block = {"name": self.tool, "id": f"fixed_{self.name}", "input": self.args(text)}
        result = await run.call_tool(self.tools, block, name=self.name)
        return f"DEAD END: {result['content']}" if result.get("is_error") else str(result["content"])


@dataclass(frozen=True)
class UnlessDone:
    """`step`, skipped once the walk has ended: the `break` a workflow author writes in a fixed loop."""

    name: str
    step: Step

    async def __call__(self, run: Run, text: str) -> str:
        return text if done(text) else await self.step(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.step.add_to(graph, prefix)


def walk(tools: ToolSet, hops: int) -> list[Step]:
    """Read the document the text names and decide, then follow up to `hops` references."""
    steps: list[Step] = []
    for i in range(hops + 1):
        steps += [ReadStep(f"read_{i}", tools, "read_document", first_id),
                  UnlessDone(f"follow_{i}", LLM(f"follow_{i}", FOLLOW_PROMPT))]
    return steps
