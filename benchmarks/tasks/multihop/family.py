"""`multihop`: follow references through a small knowledge base to the document that answers.

Each instance is a question about the current owner of a project ("What is the office of the
current owner of the Falcon project? Start from doc-4821."). The project page names its first
owner; each owner's page says to whom ownership passed next; the last page is the current owner's.
How many hand-overs there are (`hops`, the references followed from the starting document) is
only discovered by walking. Every page on the path also refers to `distractors` other people
(a sponsor, a mentor...), each with a page of their own about another project.

The fixed workflows (chain, route, orchestrate, parallel, evaluate_optimize) follow at most
`depth` references, a DESIGN parameter (default `auto`: the largest `hops`, so every instance is
within reach; a smaller depth is a sweep away): a walk longer than that cannot succeed. `single`
cannot solve the family by construction: one round of tools reads the start page only. The agent reads
until it finds the answer. Grading (`answers.multihop_value`): the one value of the asked attribute's
shape in the final answer (after the last `ANSWER:`/`Answer:` label if any; markdown, a sentence
around it and quoted evidence set aside) must equal the fact, case-blind; 1.0 or 0.0. Two values of
that shape are ambiguous (0). The fixed steps' replies are read as leniently (`answers.multihop_step`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any, ClassVar

import networkx as nx

from patterns import workflows as wf
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Step, ToolStep

from ..base import (
    CROWDING_PARAM,
    Environment,
    FamilyBase,
    Instance,
    IntRange,
    Param,
    bounded,
    design_bound,
    positive_int,
)
from .answers import answer_vote, multihop_next_id, multihop_step, multihop_value
from .policy import MultihopPolicy
from .prompts import (
    AGENT_SYSTEM,
    CLASSIFY_PROMPT,
    DIRECT_PROMPT,
    FOLLOW_PROMPT,
    MARK,
    PLAN_PROMPT,
    REVIEW_PROMPT,
    SINGLE_SYSTEM,
    SYNTH_PROMPT,
    step_prompt,
)
from .skills import distinct_ids as _ids
from .tools import make_tools

MAX_HOPS, MAX_DISTRACTORS = 20, 5
FIRST = ("Ana", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam",
         "Mei", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sam", "Tomas", "Uma", "Victor", "Wen", "Yara")
LAST = ("Abbott", "Baker", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Hansen", "Ito", "Jensen",
        "Kowalski", "Lopez", "Moreau", "Novak", "Okafor", "Petrov", "Quist", "Rossi", "Sato", "Tanaka",
        "Usman", "Varga", "Weber", "Zhou")
PROJECTS = ("Falcon", "Heron", "Osprey", "Kestrel", "Plover", "Egret", "Condor", "Puffin", "Swift", "Lark")
PURPOSES = ("runs the billing service", "maintains the data warehouse", "builds the mobile app",
            "operates the search cluster", "owns the payments API", "keeps the identity service running")
ASIDES_PROJECT = ("Its sponsor, {m}, is described in {d}.", "Its design review was led by {m} (see {d}).",
                  "Its budget is managed by {m} ({d}).", "It was proposed by {m}; see {d}.",
                  "Its on-call lead is {m} (see {d}).")
ASIDES_PERSON = ("{n}'s former manager, {m}, is described in {d}.", "{n}'s mentor is {m} (see {d}).",
                 "{n} shares a desk with {m}; see {d}.", "{n}'s deputy, {m}, has a profile in {d}.",
                 "{n} once reviewed the {q} project with {m} ({d}).")

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


def _first_id(text: str) -> dict[str, Any]:
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
        steps += [ReadStep(f"read_{i}", tools, "read_document", _first_id),
                  UnlessDone(f"follow_{i}", LLM(f"follow_{i}", FOLLOW_PROMPT))]
    return steps


class Multihop(FamilyBase):
    name = "multihop"
    # declared before any result (see base): a bounded walk: read → follow the reference, up to `depth` times
    natural_workflow = "chain"
    description = "Follow references through documents to the one holding the answer; the hop count is hidden."
    PARAMS: ClassVar[dict[str, Param]] = {
        "hops": Param("1-6", bounded(IntRange.parse, 1, MAX_HOPS, "hops"),
                      f"references to follow from the starting document to the answer (a range, at most {MAX_HOPS})"),
        "distractors": Param(2, bounded(int, 0, MAX_DISTRACTORS, "distractors"),
                             "distractor references in each document on the path"),
        "depth": Param("auto", design_bound, "design: references the fixed workflows follow before they give up; "
                                             "auto = the largest hops"),
        "votes": Param(3, positive_int, "design: independent walks the parallel (voting) design runs"),
        "crowding": CROWDING_PARAM,
    }

    def __init__(self, **params: Any) -> None:
        self.hops: IntRange
        self.distractors: int
        self.depth: int
        self.votes: int
        self.crowding: float
        super().__init__(**params)
        self.depth = self.depth or self.hops.high  # auto: every instance within reach

    def instance(self, i: int, rng: random.Random) -> Instance:
        hops, k = rng.randint(self.hops.low, self.hops.high), self.distractors
        ids = _ids(rng, 1 + hops + (hops + 1) * k)
        start, path, spare = ids[0], ids[1:hops + 1], iter(ids[hops + 1:])
        people = iter(rng.sample([f"{f} {s}" for f, s in product(FIRST, LAST)], len(ids)))
        project, *others = rng.sample(PROJECTS, len(PROJECTS))
        offices = iter(f"{c}-{n}" for c, n in rng.sample(list(product("ABCDEF", range(100, 1000))), len(ids)))
        phones = iter(f"555-{n:04d}" for n in rng.sample(range(100, 10000), len(ids)))
        docs: dict[str, str] = {}

        def person(doc_id: str, name: str, first: str, asides: list[str]) -> dict[str, str]:
            values = {"office": next(offices), "desk phone": next(phones)}
            facts = f"{name}'s office is {values['office']} and desk phone is {values['desk phone']}."
            docs[doc_id] = f"{doc_id}: {name}\n" + " ".join([first, facts, *asides])
            return values

        def distract(templates: tuple[str, ...], owner: str) -> list[str]:
            asides = []
            for template in rng.sample(templates, k):
                d, m, q = next(spare), next(people), rng.choice(others)
                person(d, m, f"{m} is the current owner of the {q} project.", [])
                asides.append(template.format(n=owner, m=m, d=d, q=q))
            return asides

        owners = [next(people) for _ in path]
        sentences = [f"Its first owner was {owners[0]} (see {path[0]}).", *distract(ASIDES_PROJECT, project)]
        rng.shuffle(sentences)
        purpose = f"The {project} project {rng.choice(PURPOSES)}."
        docs[start] = f"{start}: The {project} project\n" + " ".join([purpose, *sentences])
        year = rng.randint(2008, 2014)
        for j, (doc_id, owner) in enumerate(zip(path, owners, strict=True)):
            year += rng.randint(1, 2)
            if j + 1 < hops:
                line = (f"{owner} owned the {project} project until {year}, when ownership passed to "
                        f"{owners[j + 1]} (see {path[j + 1]}).")
            else:
                line = f"{owner} is the current owner of the {project} project."
            asides = distract(ASIDES_PERSON, owner)
            rng.shuffle(asides)
            values = person(doc_id, owner, line, asides)
        attribute = rng.choice(("office", "desk phone"))
        answer = values[attribute]
        prompt = (f"{MARK} What is the {attribute} of the current owner of the {project} project? Start from "
                  f"{start}: documents refer to one another, so follow the references until you reach the current "
                  f"owner's document. Reply with only the {attribute}.")
        data = {"answer": answer, "attribute": attribute, "project": project, "start": start, "path": path,
                "hops": hops, "documents": docs}
        return Instance(f"{self.name}-{i:04d}", prompt, data)

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        state: dict[str, Any] = {"documents": dict(instance.data["documents"]), "reads": []}
        return Environment(tools=make_tools(state), state=state)

    def design_single(self, env: Environment) -> wf.Single:
        return wf.Single(system=SINGLE_SYSTEM, tools=env.tools)

    def design_chain(self, env: Environment) -> wf.Chain:
        return wf.Chain([*walk(env.tools, self.depth), wf.Code("answer", final_answer)])

    def design_route(self, env: Environment) -> wf.Route:
        follow = wf.Chain([*walk(env.tools, self.depth), wf.Code("answer", final_answer)], name="follow")
        return wf.Route(LLM("classify", CLASSIFY_PROMPT, tools=env.tools),
                        {"direct": LLM("direct", DIRECT_PROMPT, tools=env.tools), "follow": follow})

    def design_orchestrate(self, env: Environment) -> wf.Orchestrate:
        # the planner reads the start; each worker walks one of its references
        worker = wf.Chain(walk(env.tools, self.depth - 1), name="walk")
        return wf.Orchestrate(LLM("plan", PLAN_PROMPT, tools=env.tools), worker, LLM("synthesize", SYNTH_PROMPT))

    def design_parallel(self, env: Environment) -> wf.Parallel:
        return wf.Parallel(vote=wf.Chain(walk(env.tools, self.depth), name="walk"), n=self.votes,
                           aggregate=vote_answers)

    def design_evaluate_optimize(self, env: Environment) -> wf.EvaluateOptimize:
        # one hop per round: depth references need depth + 1 rounds
        return wf.EvaluateOptimize(LLM("step", step_prompt, tools=env.tools), LLM("review", REVIEW_PROMPT),
                                   max_rounds=self.depth + 1)

    def design_agent(self, env: Environment) -> wf.Agent:
        return wf.Agent(system=AGENT_SYSTEM, tools=env.tools)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        got = multihop_value(instance.data["attribute"], output or "")
        return 1.0 if got is not None and got.casefold() == str(instance.data["answer"]).casefold() else 0.0

    def policy(self) -> MultihopPolicy:
        return MultihopPolicy(crowding=self.crowding)
