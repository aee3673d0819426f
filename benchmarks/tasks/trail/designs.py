"""The designs of every trail family: the mechanism's, so that a new family writes none.

- **chain** (declared): the strongest workflow drawable in advance with the same tools and instructions.
  - `readable=true`: a loop that dispatches in code on the last result's `next` field — call the place it names
    with the key it gives — until a note names no next place; then one model call reads the answer. Code decides
    every step: no model choice at all.
  - `readable=false`: code cannot read which place a note means, only its key. So it *surveys*: each round it
    calls every place with the key of the note it trusts (code decides: all of them), and one model call reads
    the note and the places' answers and says which place the note meant (NEXT), that the note is a false
    lead (BACK: code goes back to the note before), or that the trail ends (END); then one model call reads the
    answer. The model's choice is which result to keep, never which tool to call next: the next step is
    always the survey. Bounded, as every fixed walk here, at `depth` rounds: by default the agent's budget.
- **route**: the question routed to its first place by a model call on the input (a routing table, any number
  of branches), looked up in code, then the chain's loop from there (its first look counted as a round).
- **parallel**: three of the chain's walks, the majority answer; each walk has its own step budget (the run's
  step limit times three), not a share of one agent's.
- **single**: one call, one place, then the answer: right only when the trail has one step.
- **agent**: the agent loop with every place as a tool.
Not offered: `orchestrate` (a planner cannot list a trail hidden until walked) and `evaluate_optimize` (no
draft to review before the trail is walked).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

import networkx as nx

from benchmarks.tasks.trail import policy as pt
from benchmarks.tasks.trail.world import TrailSpec
from patterns.fields import structured
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Agent, Chain, Code, Dispatch, Loop, Parallel, Route, Single, ToolStep, majority
from patterns.workflows.each import CallEach, Use
from patterns.workflows.graph import node

_KEY = re.compile(r"\b[A-Z]-\d{4}\b")  # a key is a token code can find; the place a note means is not


def _state(text: str) -> dict[str, Any]:
    return json.loads(text)


def _key_of(note: str) -> str | None:
    """The key a note points to, as code reads it (JSON `next.key`, else the last key token after 'continues')."""
    value = structured(note)
    if isinstance(value, dict):
        nxt = value.get("next")
        return str(nxt["key"]) if isinstance(nxt, dict) and not value.get("dead_end") else None
    if "a false lead" in note:
        return None
    keys = _KEY.findall(note.rsplit("continues in ", 1)[-1])
    return keys[-1] if keys else None


def survey(tools: ToolSet) -> CallEach:
    """Code calls every place with the key of the note on top of the walk's stack (none when it names no key)."""

    def uses(text: str) -> list[Use]:
        key = _key_of(_state(text)["stack"][-1])
        return [] if key is None else [{"name": t, "id": f"survey_{t}", "input": {"key": key}} for t in tools.tools]

    def keep(text: str, calls: list[Use], results: list[str]) -> str:
        state = _state(text)
        state["key"] = _key_of(state["stack"][-1])
        state["looked"] = {u["name"]: r for u, r in zip(calls, results, strict=True)}
        return json.dumps(state)

    return CallEach("survey", tools, uses, keep, label=f"every place ({len(tools.tools)})")


@dataclass(frozen=True)
class Read:
    """The read step: a model call on the state, its reply applied to the state in code."""

    name: str
    step: LLM
    kind: str = "llm"

    async def __call__(self, run: Run, text: str) -> str:
        return _follow(text, await self.step(run, text))

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        entries, exits = self.step.add_to(graph, prefix)
        apply = node(graph, prefix + self.name + ".apply", "code", "NEXT / BACK / END")
        for x in exits:
            graph.add_edge(x, apply)
        return entries, [apply]


def _follow(text: str, reply: str) -> str:
    state = _state(text)
    move = reply.strip().split(":", 1)
    word = move[0].strip().upper()
    if word == "NEXT" and len(move) == 2 and move[1].strip() in state["looked"]:
        place = move[1].strip()
        state["tried"].setdefault(state["key"], []).append(place)
        state["stack"].append(state["looked"][place])
    elif word == "BACK" and len(state["stack"]) > 2:
        del state["stack"][-2:]  # the false lead and the decoy note that pointed to it
    else:
        state["done"] = True  # END, or a reply the step cannot use: the answer step reads the top note
    return json.dumps(state)


def _read_prompt(spec: TrailSpec) -> Any:
    def prompt(text: str, task: str) -> str:
        state = _state(text)
        looked = "\n".join(f"- {t}: {r}" for t, r in state["looked"].items())
        tried = ", ".join(state["tried"].get(state["key"] or "", []))
        return (f"{spec.mark} {pt.READ}? Reply NEXT: <place> with the place it means (its answer below becomes "
                "the note you trust), BACK if the note is a false lead, or END if the trail ends with it.\n\n"
                f"<note>\n{state['stack'][-1]}\n</note>\n\n<looked>\n{looked}\n</looked>\n\n<tried>\n{tried}\n</tried>")
    return prompt


def _answer(spec: TrailSpec) -> LLM:
    def prompt(text: str, task: str) -> str:
        value = structured(text) if text.lstrip().startswith("{") else None
        note = _state(text)["stack"][-1] if isinstance(value, dict) and "stack" in value else text
        return f"{spec.mark} {pt.ANSWER} with this note. Reply with only the answer.\n\n<note>\n{note}\n</note>"
    return LLM("answer", prompt)


def survey_walk(spec: TrailSpec, tools: ToolSet, most: int) -> Loop:
    body = Chain([survey(tools), Read("read", LLM("read", _read_prompt(spec)))], name="round")
    return Loop(body, until=lambda t: bool(_state(t).get("done")), max_rounds=most, name="walk")


def dispatch_walk(tools: ToolSet, most: int) -> Loop:
    def pick(text: str) -> tuple[str, dict[str, Any]] | None:
        value = structured(text)
        nxt = value.get("next") if isinstance(value, dict) else None
        return (str(nxt["place"]), {"key": str(nxt["key"])}) if isinstance(nxt, dict) else None

    def done(text: str) -> bool:
        value = structured(text)
        return not isinstance(value, dict) or not isinstance(value.get("next"), dict)

    follow = Dispatch("follow", tools, pick, field="next.place and next.key")
    return Loop(follow, until=done, max_rounds=most, name="walk")


def _begin(task: str) -> str:
    return json.dumps({"stack": [task], "tried": {}, "done": False, "looked": {}, "key": None})


def declared(spec: TrailSpec, tools: ToolSet, most: int, readable: bool) -> Chain:
    if readable:
        return Chain([dispatch_walk(tools, most), _answer(spec)])
    return Chain([Code("begin", _begin), survey_walk(spec, tools, most), _answer(spec)])


def routed(spec: TrailSpec, tools: ToolSet, most: int, readable: bool) -> Chain:
    question = f"{spec.mark} {pt.ROUTE}? Reply with the place's name only.\n\n<question>\n{{task}}\n</question>"

    def first(place: str) -> ToolStep:
        def kept(text: str, result: str, failed: bool) -> str:
            if readable:
                return result
            return json.dumps({"stack": [text, result], "tried": {_key_of(text) or "": [place]}, "done": False,
                               "looked": {}, "key": None})
        return ToolStep(f"look_{place}", tools, place, lambda t: {"key": _key_of(t) or ""}, keep=kept)

    rounds = max(1, most - 1)  # the routed first look was a round
    rest = dispatch_walk(tools, rounds) if readable else survey_walk(spec, tools, rounds)
    return Chain([Route(LLM("route", question), {t: first(t) for t in tools.tools}), rest, _answer(spec)])


@dataclass(frozen=True)
class OwnBudgets:
    """Voted walks, each with the run's step budget: the limit is the run's times the walks. Each walk is bounded
    by its own loop at one budget, so none can spend another's."""

    vote: Parallel
    name: str = "parallel"
    pattern: str = "parallel"

    async def __call__(self, run: Run, text: str) -> str:
        steps = run.limits.max_steps
        if steps is not None:
            run.limits = replace(run.limits, max_steps=steps * self.vote.n)
        return await self.vote(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.vote.add_to(graph, prefix)

    @property
    def graph(self) -> nx.DiGraph:
        return self.vote.graph


def voted(spec: TrailSpec, tools: ToolSet, most: int, readable: bool) -> OwnBudgets:
    return OwnBudgets(Parallel(vote=declared(spec, tools, most, readable), n=3, aggregate=majority))


def single(spec: TrailSpec, tools: ToolSet) -> Single:
    return Single(system=f"{spec.mark} {pt.ONE_ROUND}: the one the question names. If its note ends the trail, "
                         "reply with only the answer.", tools=tools)


def agent(spec: TrailSpec, tools: ToolSet) -> Agent:
    return Agent(system=f"{spec.mark} {pt.AGENT}: call one place at a time with the key the last note gives. When "
                        "a lead turns out false, go back to the last note you trust and try the place it more "
                        "likely means. When the trail ends, reply with only the answer.", tools=tools)
