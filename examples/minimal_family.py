"""A complete, minimal task family: copy it to start your own.

Run it:  wva bench --tasks examples.minimal_family:Capitals   (from the repository's folder)

The task: "What is the capital of <country>?"; a `lookup_capital` tool knows the answer.
Every pattern gets a design; the SimModel policy reads only the request.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import Environment, Instance, Param, init_params, positive_int
from patterns.sim import Decider, Reply, Request
from patterns.tools import ToolSet, tool
from patterns.workflows import LLM, Agent, Chain, EvaluateOptimize, Orchestrate, Parallel, Route, Single, ToolStep

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi", "Peru": "Lima", "Norway": "Oslo"}
MARK = "[capitals]"  # the policy recognises this family's prompts by it


class Capitals:
    """Name a country's capital. `wva audit examples.minimal_family:Capitals` checks the policy below.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (none) | cost |
    |---|---|---|---|---|
    | read the country | a step that names one | before its lookup | every step | 1 decision (wrong: another) |
    | look the capital up | `lookup_capital` offered | one call | the steps offered it | no decision |
    """

    name = "capitals"
    description = "name a country's capital, looked up with one tool"
    PARAMS: ClassVar[dict[str, Param]] = {"countries": Param(5, positive_int, "how many countries to ask about")}

    def __init__(self, **params: Any) -> None:
        init_params(self, params)

    def instances(self, n: int, seed: int) -> list[Instance]:
        out = []
        for i in range(n):
            country = random.Random(f"{self.name}:{seed}:{i}").choice(sorted(CAPITALS)[: self.countries])
            out.append(Instance(f"{self.name}-{i:04d}", f"{MARK} What is the capital of {country}?",
                                {"answer": CAPITALS[country]}))
        return out

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        @tool(timeout_s=None)
        def lookup_capital(country: str) -> str:
            """Return the capital city of a country.

            Args:
                country: the country's English name, e.g. "France"
            """
            if country not in CAPITALS:
                raise KeyError(f"unknown country {country!r}")
            return CAPITALS[country]

        return Environment(ToolSet([lookup_capital]))

    def design(self, pattern: str, env: Environment) -> Any:
        ask = LLM("answer", f"{MARK} {{task}}", tools=env.tools)
        designs = {
            "single": Single(f"{MARK} {{task}}", tools=env.tools),
            "chain": Chain([LLM("country", f"{MARK} Name only the country in: {{task}}"),
                            ToolStep("lookup", env.tools, "lookup_capital", lambda t: {"country": t.strip()}),
                            LLM("say", f"{MARK} Answer with the capital: {{input}}")]),
            "route": Route(LLM("classify", f"{MARK} Classify (geography or other): {{task}}"),
                           {"geography": ask, "other": ask}),
            "orchestrate": Orchestrate(LLM("plan", f'{MARK} Plan as a JSON list of subtasks: {{task}}'), ask,
                                       LLM("synth", f"{MARK} Combine into the capital only:\n{{input}}")),
            "parallel": Parallel(vote=ask, n=3),
            "evaluate_optimize": EvaluateOptimize(ask, LLM("judge", f"{MARK} Reply PASS if this is a capital: "
                                                                    "{input}")),
            "agent": Agent(system=f"{MARK} Answer with the capital city only.", tools=env.tools),
        }
        if pattern not in designs:
            raise ValueError(f"unknown pattern {pattern!r}: choose from {', '.join(designs)}")
        return designs[pattern]

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        return float(instance.data["answer"].lower() in output.lower())

    def policy(self) -> CapitalsPolicy:
        return CapitalsPolicy()


class CapitalsPolicy:
    """Finds the country in the prompt, calls the tool, answers with its result; errs by picking another country."""

    def accepts(self, request: Request) -> bool:
        return MARK in request.system or MARK in request.first_user_text()

    def respond(self, request: Request, decide: Decider) -> Reply:
        text = request.last_user_text()
        results = request.last_tool_results()
        if results:
            return Reply([{"type": "text", "text": results[-1]["content"]}])
        if "Reply PASS" in text:
            return Reply([{"type": "text", "text": "PASS"}])
        if "Classify" in text:
            return Reply([{"type": "text", "text": "geography"}])
        if "JSON list" in text:
            return Reply([{"type": "text", "text": f'["{request.first_user_text()}"]'}])
        country = next((c for c in CAPITALS if c in text), "")
        if not decide.correct(f"capitals|country|{country}"):  # keyed by what is decided (see patterns.sim.policy)
            country = decide.rng.choice(sorted(CAPITALS))
        if "Name only the country" in text:
            return Reply([{"type": "text", "text": country}])
        if "Answer with the capital:" in text or "Combine" in text:
            return Reply([{"type": "text", "text": text.rsplit(":", 1)[-1].strip()}])
        if request.tools:
            return Reply([{"type": "tool_use", "name": "lookup_capital", "input": {"country": country}}])
        return Reply([{"type": "text", "text": CAPITALS.get(country, "unknown")}])
