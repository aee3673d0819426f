"""`TrailFamily`: a task family made of a `TrailSpec` alone (`explore`, `debug`): the hidden trail of `world.py`,
the policy of `policy.py`, the designs of `designs.py`. A new open-ended family is a spec of places, phrases,
notes and answers, and a class of three lines.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import (
    Environment,
    FamilyBase,
    Instance,
    IntRange,
    Param,
    boolean,
    bounded,
    design_bound,
    non_negative,
)
from benchmarks.tasks.trail import designs
from benchmarks.tasks.trail.policy import TrailPolicy
from benchmarks.tasks.trail.world import TrailSpec, environment, make_instance, widened
from patterns.limits import Limits

AGENT_BUDGET = Limits().max_steps or 50  # the model calls the agent may make: the fixed walks' default bound

NOT_OFFERED = {
    "orchestrate": "a planner cannot list the places of a trail that is hidden until it is walked",
    "evaluate_optimize": "there is no draft to review before the trail is walked",
}


class TrailFamily(FamilyBase):
    """A hidden trail (see `world.py`); its declared workflow is `chain` (`designs.py`).

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (chain) | cost |
    |---|---|---|---|---|
    | read where a note points | a note | its next call | readable: code reads `next`; prose: read step | `place` |
    | go back from a false lead | "a false lead" | next call, tried places excluded | BACK, code pops | `place` |
    | read the answer | the last note | its reply | the answer step | `answer` |
    | bounds | the run's; the design's | 50 calls (step limit) | 49 rounds + the answer (`depth`) | — |

    Costs per use: `place`, `answer`: one decision at error_rate, keyed `<family>|place|<key>` and
    `<family>|answer|<note>`, so deciding again after a false lead is correlated at error_correlation in either
    design. Code's calls (the readable dispatch, the prose survey of every place) decide nothing.

    Bounds are equal: a fixed walk may take as many rounds as the agent may make calls (its step limit less the
    answer call), each of the `parallel` design's three walks as many again (its own budget, not a share).
    """

    spec: TrailSpec  # the family's own (a class attribute); an instance's is widened to its `places`
    natural_workflow = "chain"
    PARAMS: ClassVar[dict[str, Param]] = {
        "hops": Param("2-8", bounded(IntRange.parse, 1, 12, "hops"), "steps of the hidden trail (a range)"),
        "readable": Param(False, boolean, "where a note points: true = JSON fields code may read, false = prose "
                          "that only a model reads (the same trails, tools and notes)"),
        "depth": Param("auto", design_bound, "design: the rounds a fixed walk may take (a round: one look, or one "
                       "survey and its read); auto = the agent's budget, its step limit less the answer call"),
        "call_cost": Param(0.0, non_negative, "USD one look in a place costs, added to the run's cost (default 0: "
                           "free tools, as in every built-in family; the prose survey looks in every place each "
                           "round, so this and `places` can decide the verdict: sweep them)"),
        "places": Param("auto", design_bound, "the places (tools) of the trail's world: auto = the family's own "
                        "(10 explore, 8 debug); more are copies of them, named in prose by the family's words "
                        "for a copy (\"the third town's copy of ...\"), up to 20 times the family's own"),
    }

    def __init__(self, **params: Any) -> None:
        self.hops: IntRange
        self.readable: bool
        self.places: int
        self.depth: int
        self.call_cost: float
        super().__init__(**params)
        own = type(self).spec
        self.places = self.places or len(own.places)
        self.spec = widened(own, self.places)  # the world of this family's trails: its own places and copies
        self.depth = self.depth or AGENT_BUDGET - 1
        if self.hops.high > len(self.spec.places):
            raise ValueError(f"{self.name}: hops must be at most {len(self.spec.places)} (the places)")

    def instance(self, i: int, rng: random.Random) -> Instance:
        return make_instance(self.spec, i, rng, rng.randint(self.hops.low, self.hops.high), self.readable)

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        return environment(self.spec, instance, self.call_cost)

    def design(self, pattern: str, env: Environment) -> Any:
        if pattern in NOT_OFFERED:
            raise ValueError(f"{pattern} is not offered by {self.name}: {NOT_OFFERED[pattern]}")
        return super().design(pattern, env)

    def not_offered(self) -> dict[str, str]:
        return {**super().not_offered(), **NOT_OFFERED}

    def design_single(self, env: Environment) -> Any:
        return designs.single(self.spec, env.tools)

    def design_chain(self, env: Environment) -> Any:
        return designs.declared(self.spec, env.tools, self.depth, self.readable)

    def design_route(self, env: Environment) -> Any:
        return designs.routed(self.spec, env.tools, self.depth, self.readable)

    def design_parallel(self, env: Environment) -> Any:
        return designs.voted(self.spec, env.tools, self.depth, self.readable)

    def design_agent(self, env: Environment) -> Any:
        return designs.agent(self.spec, env.tools)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        said = {a for a in self.spec.answers if a.casefold() in (output or "").casefold()}
        return 1.0 if said == {instance.data["answer"]} else 0.0

    def policy(self) -> TrailPolicy:
        return TrailPolicy(self.spec)
