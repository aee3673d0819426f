"""`EvaluateOptimize`: a generator and an evaluator alternate until the evaluator accepts, or the
round limit is reached (a `for` over rounds, never `while True`).

The generator's prompt may quote `{task}`, `{input}` (the task in round 1, then the previous
candidate) and `{feedback}` (the evaluator's last critique, empty in round 1). The evaluator sees
the candidate; `accept(reply)` reads its verdict: by default `patterns.answers.verdict`, so a reply
that leads with PASS accepts however it is dressed (`**PASS**`, `Verdict: pass`, reasoning then a
last line `PASS`) and one that also leads a line with FAIL does not; anything else is feedback.
At the round limit the last candidate is returned with `extra["accepted"] = False` — the caller's
grader decides whether it is good enough.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import networkx as nx

from ..answers import verdict
from ..events import Kind
from ..run import Run
from .choices import check_drawn
from .graph import graph_of, node
from .steps import LLM, render


def accept_pass(reply: str) -> tuple[bool, str]:
    text = reply.strip()
    return verdict(text), text


@dataclass(frozen=True)
class EvaluateOptimize:
    generator: LLM
    evaluator: LLM
    max_rounds: int = 3
    accept: Callable[[str], tuple[bool, str]] = accept_pass
    name: str = "evaluate_optimize"
    pattern: str = "evaluate_optimize"

    def __post_init__(self) -> None:
        if self.max_rounds < 1:
            raise ValueError("max_rounds must be >= 1")
        check_drawn(self)  # a generator picking among more than K tools, round after round, is an agent

    async def __call__(self, run: Run, text: str) -> str:
        candidate, feedback = text, ""
        for round_no in range(1, self.max_rounds + 1):
            prompt, fb = self.generator.prompt, feedback

            def generator_prompt(t: str, task: str, prompt=prompt, fb=fb) -> str:
                return render(prompt, t, task).replace("{feedback}", fb)

            step = replace(self.generator, prompt=generator_prompt)
            candidate = await step(run, candidate)
            accepted, feedback = self.accept(await self.evaluator(run, candidate))
            run.extra.update(rounds=round_no, accepted=accepted)
            run.record(Kind.DECISION, run.elapsed(), name=self.evaluator.name,
                       detail=f"round {round_no}: {'accepted' if accepted else 'rejected'}")
            if accepted:
                break
        return candidate

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        g_entries, g_exits = self.generator.add_to(graph, prefix)
        e_entries, e_exits = self.evaluator.add_to(graph, prefix)
        verdict = node(graph, prefix + self.name + ".verdict", "code", f"accept? (≤{self.max_rounds} rounds)")
        for x in g_exits:
            for e in e_entries:
                graph.add_edge(x, e)
        for x in e_exits:
            graph.add_edge(x, verdict)
        for e in g_entries:
            graph.add_edge(verdict, e, label="feedback", loop=True)
        return g_entries, [verdict]

    @property
    def graph(self) -> nx.DiGraph:
        return graph_of(self, "evaluator-optimizer")
