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
from itertools import product
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import (
    CROWDING_PARAM,
    PLAIN_PARAM,
    Environment,
    FamilyBase,
    Instance,
    IntRange,
    Param,
    bounded,
    design_bound,
    positive_int,
)
from benchmarks.tasks.multihop.answers import multihop_value
from benchmarks.tasks.multihop.backtrack import declared_walk
from benchmarks.tasks.multihop.policy import MultihopPolicy
from benchmarks.tasks.multihop.prompts import (
    AGENT_SYSTEM,
    CLASSIFY_PROMPT,
    DIRECT_PROMPT,
    MARK,
    PLAN_PROMPT,
    REVIEW_PROMPT,
    SINGLE_SYSTEM,
    SYNTH_PROMPT,
    step_prompt,
)
from benchmarks.tasks.multihop.skills import distinct_ids as _ids
from benchmarks.tasks.multihop.steps import done, final_answer, vote_answers, walk
from benchmarks.tasks.multihop.steps import first_id as _first_id
from benchmarks.tasks.multihop.tools import make_tools
from patterns import workflows as wf
from patterns.limits import Limits
from patterns.workflows import LLM

# the walk's readers stay importable from here, where they were (tests/tasks/test_answer_parsers.py reads them)
__all__ = ["AGENT_RETRIES", "Multihop", "_first_id", "done", "final_answer", "vote_answers"]

MAX_HOPS, MAX_DISTRACTORS = 20, 5
# The agent's own bound is the run's step limit: at hops=1 it leaves it this many re-decisions (a failed read or
# a dead end each costs it one call beyond the start's read, the one hop and the answer).
AGENT_RETRIES = (Limits().max_steps or 50) - 3
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


class Multihop(FamilyBase):
    """The family (see the module docstring). Its declared workflow, `chain`, is the walk `backtrack.py` draws:
    the start read in code, then up to `depth` references followed, a failed read sent back to the follow
    step of the document it came from with the error quoted, a dead end popped back to the last fitting
    document with the rejected reference quoted, at most `retries` of those (one reference past the depth is
    read only to undo a wrong turn there). `plain=true` gives the textbook chain (read → follow, `depth`
    times), whose first misread or dead end ends the walk.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (chain) | cost |
    |---|---|---|---|---|
    | read the start | "Start from doc-N" | copies the id; again if misread | read in code | agent `copy`; chain 0 |
    | decide at a document | a document shown | answer or follow a ref | follow: ANSWER/NEXT/DEAD END | `choose` |
    | notice an off-topic page | another project's page | missed: answers from it | DEAD END; missed: answers | `fits` |
    | re-decide after a bad read | its error (tool_result, `<tried>`) | next turn, same doc | follow, again | `choose` |
    | go back from a dead end | "go back to the last one that did" | same turn, ref excluded | pop, `<tried>` | both |
    | bounds | the run's; the design's | 50 calls (the step limit) | `depth` refs + `retries` (47) | the step limit |

    Costs per use: `copy`, `choose`: 1 decision at error_rate; `fits`: 1 judgement at checker_error_rate; going
    back: `fits` + `choose` in both designs, in 1 agent call and 2 workflow calls. Every decision is keyed
    `multihop|<kind>|<doc id>`, so making it again (a re-decision, a retry) is correlated at error_correlation
    in either design. A failed read is sent back in the chain with the tool's error text quoted, the same
    text the agent reads as an error tool_result; `retries` auto = 47, what the agent's 50-call limit leaves it.
    """

    name = "multihop"
    # declared before any result (see base): a bounded walk that reads, decides and goes back (backtrack.py)
    natural_workflow = "chain"
    description = "Follow references through documents to the one holding the answer; the hop count is hidden."
    PARAMS: ClassVar[dict[str, Param]] = {
        "hops": Param("1-6", bounded(IntRange.parse, 1, MAX_HOPS, "hops"),
                      f"references to follow from the starting document to the answer (a range, at most {MAX_HOPS})"),
        "distractors": Param(2, bounded(int, 0, MAX_DISTRACTORS, "distractors"),
                             "distractor references in each document on the path"),
        "depth": Param("auto", design_bound, "design: references the fixed workflows follow before they give up; "
                                             "auto = the largest hops"),
        "retries": Param("auto", design_bound, "design: failed reads and dead ends the declared walk goes back "
                         f"from before it gives up; auto = {AGENT_RETRIES}, what the agent's default step limit "
                         "leaves it"),
        "plain": PLAIN_PARAM,
        "votes": Param(3, positive_int, "design: independent walks the parallel (voting) design runs"),
        "crowding": CROWDING_PARAM,
    }

    def __init__(self, **params: Any) -> None:
        self.hops: IntRange
        self.distractors: int
        self.depth: int
        self.retries: int
        self.plain: bool
        self.votes: int
        self.crowding: float
        super().__init__(**params)
        self.depth = self.depth or self.hops.high  # auto: every instance within reach
        self.retries = self.retries or AGENT_RETRIES

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
        if self.plain:
            return wf.Chain([*walk(env.tools, self.depth), wf.Code("answer", final_answer)])
        return declared_walk(env.tools, self.depth, self.retries)

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
