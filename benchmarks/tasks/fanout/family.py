"""`fanout`: aggregate one fact over N products named in the question (N varies, visible up front).

"What is the total stock of these products: A-17, B-03, C-44?" — a `get_item(item_id)` tool
returns one product's record (id, name, stock, price); the answer is the sum of the stock, the
highest price, or the name of the cheapest product (one question kind per instance), graded by
`answers.fanout_score`: the one value the (last) `ANSWER:` line gives, however it is formatted
(numbers as decimals, product ids set aside, names case- and punctuation-blind); two candidate
values, or a product named that is not the answer's own, score 0.
The lookups are independent, so the graph can be drawn once the ids are read. The designs:
- single: one call with get_item offered for one round (it batches every lookup), then the answer;
- chain: look up and transcribe the records (one tool round) -> gate: no lookup failed -> aggregate;
- route: classify the question kind -> a handler per kind (one tool round, then that aggregate);
- orchestrate: the planner lists one subtask per product -> a worker per subtask looks it up ->
  the synthesizer aggregates;
- parallel (declared): sectioning whose sections *code* reads off the input (the ids are in plain
  sight, so a workflow author can parse them; the number of branches follows the input): a fixed
  get_item tool step per id, then one aggregator call — its only model call — told to check its
  answer against the records, as the agent is (`plain=true`: the aggregator without that check);
- evaluate_optimize: a generator (one tool round, records + answer) and an evaluator that checks
  every product has a record and the answer follows from them, up to 3 rounds;
- agent: the loop with get_item until every record is in, then the answer.
"""

from __future__ import annotations

import copy
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import networkx as nx

from benchmarks.tasks.base import CROWDING_PARAM, PLAIN_PARAM, Environment, FamilyBase, Instance, IntRange, Param
from benchmarks.tasks.fanout.answers import failed_lookups, fanout_score
from benchmarks.tasks.fanout.policy import FanoutPolicy
from benchmarks.tasks.fanout.prompts import (
    AGENT_SYSTEM,
    AGGREGATE,
    CHECK,
    HANDLERS,
    ITEM_ID,
    KINDS,
    ONE_ROUND,
    QUESTIONS,
    SUBTASK,
    SYSTEM,
)
from benchmarks.tasks.fanout.skills import unique
from benchmarks.tasks.fanout.tools import make_tools
from patterns.run import Failure, Run
from patterns.workflows import LLM, Agent, Chain, EvaluateOptimize, Gate, Orchestrate, Parallel, Route, Single, ToolStep

ADJECTIVES = ("Blue", "Steel", "Compact", "Deluxe", "Classic", "Smart", "Tiny", "Rugged", "Silent", "Golden")
NOUNS = ("Kettle", "Lamp", "Drill", "Backpack", "Blender", "Router", "Tent", "Speaker", "Mixer", "Heater")


def _items(text: str | int | IntRange) -> IntRange:
    value = IntRange.parse(text)
    if value.low < 2:
        raise ValueError(f"an aggregate needs at least 2 items, got {value}")
    return value


def _questions(text: str) -> str:
    kinds = unique([k.strip() for k in str(text).replace("+", "/").split("/") if k.strip()])
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        raise ValueError(f"questions are {'/'.join(KINDS)} (joined by /), got {text!r}")
    return "/".join(kinds)


def item_ids(text: str) -> list[str]:
    """The workflow author's parser: every product id written in the input, in order."""
    return unique(ITEM_ID.findall(text))


@dataclass(frozen=True)
class ItemSections(Parallel):
    """Sectioning whose sections code reads off the input: the one branch runs once per product id."""

    split: Callable[[str], list[str]] = item_ids

    async def __call__(self, run: Run, text: str) -> str:
        sections = self.split(text)
        if not sections:
            raise Failure("NoSections", "no product ids found in the input", self.name)
        outputs = await run.gather([self.branches[0](run, s) for s in sections])
        if isinstance(self.aggregate, LLM):
            return await self.aggregate(run, "\n".join(f"{i}. {o}" for i, o in enumerate(outputs, 1)))
        return self.aggregate(outputs)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        split = prefix + self.name + ".split"
        graph.add_node(split, kind="code", label="read product ids")
        entries, exits = super().add_to(graph, prefix)
        for n in list(graph.nodes):
            if n.startswith(prefix + "0:"):  # how many branches is decided by the input
                graph.nodes[n].update(dynamic=True, label=f"{graph.nodes[n]['label']} ×N")
        graph.add_edges_from((split, e) for e in entries)
        return [split], exits


class Fanout(FamilyBase):
    """Aggregate one fact over the products a question names (module docstring for the designs and grade).

    The declared `parallel` is the strongest drawable in advance: code reads every id off the question,
    a get_item step each (a lookup in code never misreads an id), then one aggregator call with the
    agent's own instruction to check its answer against the records (`plain=true`: without it).

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (parallel) | cost |
    |---|---|---|---|---|
    | look up the products | a question with get_item offered | 1st turn | get_item steps, in code | 1 decision/lookup |
    | look again | "If a lookup fails, check the id ...", a record missing | next turn | not needed | 1 judgement |
    | check the answer | "Before you answer, check your answer ..." | answering turn | the aggregator | ≤2 judgements |
    | aggregate | records to answer from | answering turn | the aggregator | 1 decision |

    Looking again costs one judgement (noticing that a product still lacks a record, at
    `checker_error_rate`) and then a lookup decision per missing product; the declared parallel needs none
    (its lookups are code). The check is a judgement of the answer as the evaluator would make it, up to 2
    times (`FanoutPolicy.rechecks`), each doubt recomputing the answer (1 decision); in the call that
    computes it, so no extra call, for the agent and the aggregator alike.

    Intended differences (`wva audit`):

    | decision | designs | cause |
    |---|---|---|
    | `fanout|missing` | agent | noticing a missing record: only a design that looks up with the model needs it |
    | `fanout|item` | any | crowding: a reply looking up k products carries k decisions, whoever sends it |
    """

    name = "fanout"
    # declared before any result (see base): one lookup per id named in the input, sectioned by code
    natural_workflow = "parallel"
    description = "aggregate one fact over N products named in the question (N varies, visible up front)"
    PARAMS: ClassVar[dict[str, Param]] = {
        "items": Param("2-8", _items, "how many products a question names (a range, drawn per instance)"),
        "questions": Param("total/max/cheapest", _questions, "question kinds to draw from, joined by /"),
        "crowding": CROWDING_PARAM,
        "plain": PLAIN_PARAM,
    }
    items: IntRange
    questions: str
    crowding: float
    plain: bool

    def instance(self, i: int, rng: random.Random) -> Instance:
        n = rng.randint(self.items.low, self.items.high)
        kind = rng.choice(self.questions.split("/"))
        ids: list[str] = []
        letters = rng.sample(string.ascii_uppercase, min(n, 26))
        while len(ids) < n:  # distinct letters, so a one-digit slip never lands on another listed id
            candidate = f"{letters[len(ids) % 26]}-{rng.randrange(100):02d}"
            if candidate not in ids:
                ids.append(candidate)
        names = rng.sample([f"{a} {b}" for a in ADJECTIVES for b in NOUNS], n) if n <= 100 else \
            [f"Product {k}" for k in range(n)]
        prices = rng.sample(range(199, 10_000), n)  # distinct cents: one cheapest, one dearest
        catalog = {item_id: {"id": item_id, "name": name, "stock": rng.randint(1, 250), "price": cents / 100}
                   for item_id, name, cents in zip(ids, names, prices, strict=True)}
        question = QUESTIONS[kind].format(ids=", ".join(ids))
        prompt = f"{question}\nEnd your reply with a line `ANSWER: <answer>`."
        answer = _truth(kind, catalog)
        return Instance(f"{self.name}-{i:04d}", prompt, {"kind": kind, "ids": ids, "catalog": catalog,
                                                          "answer": answer})

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        state: dict[str, Any] = {"catalog": copy.deepcopy(instance.data["catalog"]), "lookups": []}
        return Environment(tools=make_tools(state), state=state)

    def design_single(self, env: Environment) -> Single:
        return Single(f"[fanout:single] {{task}}\n\n{ONE_ROUND}", SYSTEM, env.tools)

    def design_chain(self, env: Environment) -> Chain:
        lookup = LLM("lookup", "[fanout:lookup] {task}\n\nCall get_item for every product named above, all in "
                     "one round. Then list what the lookups returned, one line per product: `ID: <record>` "
                     "(or `ID: not found`). Do not answer the question yet.", SYSTEM, env.tools)

        def all_found(text: str) -> bool | str:
            failed = failed_lookups(text)
            return not failed or "a lookup failed: " + ", ".join(line.split(":")[0] for line in failed)

        return Chain([lookup, Gate("all_found", all_found), LLM("aggregate", AGGREGATE, SYSTEM)])

    def design_route(self, env: Environment) -> Route:
        classify = LLM("classify", "[fanout:classify] Classify the question below by what it asks for. Reply "
                       "with one word: total (a sum of stock), max (the dearest price) or cheapest (the name of "
                       "the lowest-priced product).\n\nQuestion: {task}", SYSTEM)
        handlers = {kind: LLM(kind, f"[fanout:single] {{task}}\n\n{HANDLERS[kind]} {ONE_ROUND}", SYSTEM, env.tools)
                    for kind in KINDS}
        return Route(classify, handlers)

    def design_orchestrate(self, env: Environment) -> Orchestrate:
        example = SUBTASK.format(id="<ID>")
        planner = LLM("plan", f"[fanout:plan] {{task}}\n\nPlan the lookups this question needs: reply with only "
                      f"a JSON array of subtasks, one per product named in it, each worded `{example}`", SYSTEM)
        worker = LLM("worker", "[fanout:worker] {input}\n\nCall get_item for the product named in this subtask, "
                     "then reply with one line `ID: <the record as returned>` (or `ID: not found`).", SYSTEM,
                     env.tools)
        synthesizer = LLM("synthesize", "[fanout:aggregate] {input}\n\nAnswer the task's question from these "
                          "results only.", SYSTEM)
        limit = max(16, 2 * self.items.high)  # the family's knob, not the instance: the author knows it
        return Orchestrate(planner, worker, synthesizer, max_workers=8, max_subtasks=limit)

    def design_parallel(self, env: Environment) -> ItemSections:
        """Every id read off the input in code, a get_item step each, then one aggregator told to check its
        answer against the records as the agent is (`plain=true`: told only to answer)."""
        lookup = ToolStep("get_item", env.tools, "get_item", lambda item_id: {"item_id": item_id})
        if self.plain:
            return ItemSections(branches=(lookup,), aggregate=LLM("aggregate", AGGREGATE, SYSTEM))
        return ItemSections(branches=(lookup,), aggregate=LLM("aggregate + check", f"{AGGREGATE} {CHECK}", SYSTEM))

    def design_evaluate_optimize(self, env: Environment) -> EvaluateOptimize:
        def generate(text: str, task: str) -> str:
            prompt = (f"[fanout:generate] {task}\n\nCall get_item for every product named above that you have no "
                      "record for yet, all in one round. Then reply with one line per product, `ID: <record>` "
                      "(or `ID: not found`), and a last line `ANSWER: <answer>`.")
            if text != task:  # round 2 on: the previous attempt and the reviewer's feedback
                prompt += f"\n\nYour previous attempt:\n{text}\n\nReviewer's feedback: {{feedback}}"
            return prompt

        evaluator = LLM("evaluate", "[fanout:evaluate] Question: {task}\n\nCandidate:\n{input}\n\nCheck the "
                        "candidate: is there a record for every product in the question, and does its final "
                        "answer follow from those records? Reply PASS, or FAIL: <what is wrong>.", SYSTEM)
        return EvaluateOptimize(LLM("generate", generate, SYSTEM, env.tools), evaluator, max_rounds=3)

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=AGENT_SYSTEM, tools=env.tools)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        data = instance.data
        return fanout_score(data["kind"], output or "", data["catalog"], data["answer"])

    def policy(self) -> FanoutPolicy:
        return FanoutPolicy(crowding=self.crowding)


def _truth(kind: str, catalog: dict[str, dict[str, Any]]) -> str:
    records = list(catalog.values())
    if kind == "total":
        return str(sum(r["stock"] for r in records))
    if kind == "max":
        return f"{max(r['price'] for r in records):.2f}"
    return str(min(records, key=lambda r: r["price"])["name"])


__all__ = ["Fanout", "ItemSections", "item_ids"]
