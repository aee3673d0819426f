"""The generic designs of a dataset task: every pattern built from the system prompt, the tools,
the routes and the scorer, with nothing specific to the task.

    single             answer (one call, at most one round of tools)
    chain              plan -> one step per tool, in the tools module's order (each offered that tool only,
                       used if the task needs it, given the findings so far) -> answer in the requested form
                       (with no tools: plan -> do -> answer); a task file's [workflow] replaces it
    route              classify into the [routes] -> the category's handler (its instructions + tools)
    orchestrate        planner (JSON array of subtasks) -> workers with the tools (concurrent) -> synthesizer
    parallel           n samples of `single` -> the majority over normalised final answers
    evaluate_optimize  generator (with tools) <-> evaluator with the scorer's rubric (or a generic one)
    agent              the loop with the tools

Every answering step asks for a last line `Answer: ...`, which the scorers read. Every system
prompt starts with the task's marker (`[task:NAME]`), which is how the simulated policy
recognises its own task's requests; each step's role is stated in its prompt's first words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.base import Environment, design_of
from benchmarks.tasks.dataset.text import final_answer, normalise, parse_verdict
from patterns.tools import ToolSet
from patterns.workflows import LLM, Agent, Chain, EvaluateOptimize, Orchestrate, Parallel, Route, Single
from patterns.workflows.route import normalise_label

ANSWER_RULE = "End your reply with a final line `Answer: <your answer>`."
PLAN = "Plan only: write a short numbered plan"
DO = "Carry out this plan"
USE = "Use the tool offered now if the task needs it"
NOT_NEEDED = "not needed"
COMPOSE = "Compose the final answer"
CLASSIFY = "Classify the task"
SUBTASKS = "Split the task"
WORKER = "Do this subtask"
SYNTH = "Combine the subtask results"
EVALUATE = "Review the answer"
GENERIC_RUBRIC = ("the answer addresses every part of the task, states facts the task needs from the tools' "
                  "results rather than guesses, and ends with a line `Answer: ...`")


def vote_majority(outputs: list[str]) -> str:
    """The output whose normalised final answer is most common (ties: the first seen)."""
    keys = [normalise(final_answer(o)) for o in outputs]
    best = max(keys, key=lambda k: (keys.count(k), -keys.index(k)))
    return outputs[keys.index(best)]


def accept_verdict(reply: str) -> tuple[bool, str]:
    """An evaluator's PASS read leniently (`**PASS**`, `Pass.`, `score: 9/10`); anything else is feedback."""
    verdict = parse_verdict(reply.split("\n", 1)[0]) if reply.strip() else None
    return verdict is not None and verdict >= 0.5, reply.strip()


def label_parser(labels: list[str]) -> Any:
    def parse(reply: str) -> str:
        words = set(re.findall(r"[a-z0-9_\-]+", reply.lower()))
        named = [label for label in labels if label in words]
        return named[0] if len(named) == 1 else normalise_label(reply)

    return parse


@dataclass(frozen=True)
class Findings:
    """A chain step whose output is appended to what the steps before it found (the plan included)."""

    name: str
    step: LLM

    async def __call__(self, run: Any, text: str) -> str:
        found = await self.step(run, text)
        return text if normalise(found) == NOT_NEEDED else f"{text}\n\n{self.name}: {found.strip()}"

    def add_to(self, graph: Any, prefix: str) -> tuple[list[str], list[str]]:
        return self.step.add_to(graph, prefix)


def generic_design(pattern: str, task: Any, tools: ToolSet | None) -> Any:
    """The generic spec of `pattern` for a `DatasetTask` (its file, marker, rubric and knobs)."""
    return design_of(GenericDesigns(task, tools), pattern, Environment(tools or ToolSet()))


@dataclass(frozen=True)
class GenericDesigns:
    """One `design_<pattern>` method per pattern, as every family has (`base.design_of` finds them)."""

    task: Any
    tools: ToolSet | None

    @property
    def name(self) -> str:
        return str(self.task.name)

    @property
    def system(self) -> str:
        return f"{self.task.marker} {self.task.file.system}".strip()

    @property
    def answering(self) -> str:
        return f"{self.system} {ANSWER_RULE}"

    def design_single(self, env: Environment) -> Single:
        return Single(prompt="{task}", system=self.answering, tools=self.tools)

    def design_chain(self, env: Environment) -> Chain:
        """Plan, then each tool in a fixed order (the tools module's), then compose: a "look up, then compute"
        task gets one round per tool, each seeing what the earlier ones found."""
        system, tools = self.system, self.tools
        plan = LLM("plan", f"{PLAN} (at most five steps) for solving the task below. Do not solve it yet.\n\n"
                   "Task:\n{task}", system)
        answer = LLM("answer", f"{COMPOSE} to the task below from these findings. {ANSWER_RULE}\n\nTask:\n{{task}}\n\n"
                     "Findings:\n{input}", system)
        if not tools:
            return Chain([plan, LLM("do", f"{DO} for the task below and report what you found.\n\nTask:\n{{task}}\n\n"
                                    "Plan:\n{input}", system), answer])
        uses = [Findings(name, LLM(f"use_{name}", f"{USE} ({name}), given the findings so far; if it does not, "
                                   f"reply `{NOT_NEEDED}`. Report what the tool returned.\n\nTask:\n{{task}}\n\n"
                                   "Findings so far:\n{input}", system, ToolSet([tool])))
                for name, tool in tools.tools.items()]
        return Chain([plan, *uses, answer])

    def design_route(self, env: Environment) -> Route:
        labels = list(self.task.file.routes)
        classifier = LLM("classify", f"{CLASSIFY} below into exactly one of these categories: {', '.join(labels)}. "
                         "Reply with the category name only.\n\nTask:\n{task}", self.system)
        handlers = {label: LLM(f"handle_{label}", "{task}", f"{self.answering}\n\n{text}", self.tools)
                    for label, text in self.task.file.routes.items()}
        return Route(classifier, handlers, parse=label_parser(labels))

    def design_orchestrate(self, env: Environment) -> Orchestrate:
        system = self.system
        return Orchestrate(
            planner=LLM("plan", f"{SUBTASKS} below into at most four independent subtasks. Reply with a JSON array "
                        "of strings only, each one a self-contained subtask.\n\nTask:\n{task}", system),
            worker=LLM("worker", f"{WORKER}, using the tools where they help, and reply in one or two lines.\n\n"
                       "Subtask: {input}", system, self.tools),
            synthesizer=LLM("synthesize", f"{SYNTH} below into the answer to the task. {ANSWER_RULE}\n\n"
                            "Task:\n{task}\n\nResults:\n{input}", system),
        )

    def design_parallel(self, env: Environment) -> Parallel:
        return Parallel(vote=LLM("answer", "{task}", self.answering, self.tools), n=self.task.votes,
                        aggregate=vote_majority)

    def design_evaluate_optimize(self, env: Environment) -> EvaluateOptimize:
        generator = LLM("generate", "{task}\n\nFeedback on your previous answer (none in the first round): "
                        "{feedback}", self.answering, self.tools)
        evaluator = LLM("evaluate", f"{EVALUATE} below to the task. The criterion: {self.task.rubric}. Reply PASS on "
                        "the first line if it meets the criterion; otherwise reply FAIL: and what to fix.\n\n"
                        "Task:\n{task}\n\nAnswer:\n{input}", self.system)
        return EvaluateOptimize(generator, evaluator, max_rounds=self.task.rounds, accept=accept_verdict)

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=f"{self.answering} Use the tools whenever the task needs facts you do not have.",
                     tools=self.tools)
