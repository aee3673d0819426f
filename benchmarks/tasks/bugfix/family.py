"""`bugfix`: a real stdlib module (or package) with one seeded bug; fix it until its tests pass.

A spec over shared mechanisms (`benchmarks.tasks.codebase`): an instance is a verified mutation of the catalogue of
the modules in `modules.TABLE` — the module copied from the running interpreter into the trial's project, one line
mutated, and differential tests whose expected values the original module gave on inputs drawn before any
mutation. Every tool is real (`codebase.tools`): the tests run in a subprocess, a read returns the file's own
lines, so the breadth (files and lines), the size of a look (tokens) and what a failure makes code-readable (a
traceback's frame, or only an assertion's expected/got prose) come from the code. Success is the tests passing.

Designs (same tools, instructions, validation and bounds; `codebase.designs`):
- **agent**: the agent loop with the five tools.
- **chain** (declared): the Agentless-style chain with a fallback drawn in advance — run the tests, localize once
  (a traceback frame read by code, then one model call names the lines to read), repair → validate → retry; if the
  tests still fail, code reads every file and the same repair loop runs with all of them. Each loop: `rounds`.
- **chain:oneshot**: the same without the fallback (Agentless's localize → repair → validate → retry alone).
- **chain:survey**: code reads every file of the project whole, then the repair loop.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import Environment, FamilyBase, Instance, Param, design_bound
from benchmarks.tasks.bugfix.modules import CATALOGUE
from benchmarks.tasks.bugfix.policy import AGENT, MARK, BugfixPolicy, tag_of
from benchmarks.tasks.codebase.catalogue import build_project, test_file
from benchmarks.tasks.codebase.designs import Designs
from benchmarks.tasks.codebase.tools import make_tools, run_tests_in
from patterns.limits import Limits
from patterns.workflows import Agent, Chain

SYSTEM = (f"{AGENT}. Run the tests, read the code a failure points to, find the bug and fix it with the "
          "smallest edit (never edit the tests), then run the tests again. When they pass, reply DONE.")


class Bugfix(FamilyBase):
    """See the module docstring.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (chain) | cost |
    |---|---|---|---|---|
    | run the tests | the run_tests tool | a tool call, after each edit | code, after each edit | none |
    | read a traceback's frame | a frame in the project | its next read | code reads it | none |
    | decide where to look | a failure no listing explains | its next read | the locate step (once) | `locate` |
    | fix the buggy line | a listing showing it | an edit call | the fix step | `edit` |
    | say the bug is elsewhere | a listing not showing it | reads elsewhere | NOT HERE: code reads every file | none |
    | bounds | the run's; the design's | 50 calls (step limit) | `rounds` tries a loop (auto: 24) | — |

    Costs per use: one decision at error_rate, keyed `bugfix|locate|<tag>` and `bugfix|edit|<file>:<line>`, so
    deciding again (the agent looking again, a retry of a rejected edit) is correlated in either design.
    """

    name = "bugfix"
    natural_workflow = "chain"  # the strongest design drawn in advance: localize → repair → validate, then survey
    description = "Fix a seeded bug in a real stdlib module until its differential tests pass (not default)."
    PARAMS: ClassVar[dict[str, Param]] = {
        "rounds": Param("auto", design_bound, "design: each repair loop's tries; auto = the agent's edits in its "
                                              "step limit"),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rounds: int = self.rounds or ((Limits().max_steps or 50) - 2) // 2

    def iter_instances(self, n: int, seed: int) -> Iterator[Instance]:
        pool = CATALOGUE.mutations()
        order = list(range(len(pool)))
        random.Random(f"{self.name}:{seed}").shuffle(order)
        for i in range(n):
            entry, m = pool[order[i % len(pool)]]
            tag = tag_of(entry, m)
            prompt = (f"{MARK} Issue {tag}: the tests in {test_file(entry['module'])} fail. Find the bug "
                      f"in the project's code (not in its tests) and fix it with the smallest edit.")
            yield Instance(f"{self.name}-{i:04d}", prompt, {"module": entry["module"], "mutation": m, "tag": tag})

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        root = Path(workdir).resolve()
        entry = next(t for t in CATALOGUE.load() if t["module"] == instance.data["module"])
        build_project(root, entry, instance.data["mutation"])
        return Environment(tools=make_tools(root, test_file(entry["module"])), state={"root": root})

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        return 1.0 if run_tests_in(env.state["root"], test_file(instance.data["module"]))[0] == 0 else 0.0

    def design(self, pattern: str, env: Environment) -> Any:
        if pattern in (reasons := self.not_offered()):
            raise ValueError(f"{pattern} is not offered by {self.name}: {reasons[pattern]}")
        return super().design(pattern, env)

    def not_offered(self) -> dict[str, str]:
        return {p: "the Agentless question: the agent, the localize → repair → validate chains and the survey only"
                for p in super().not_offered()}

    def policy(self) -> BugfixPolicy:
        return BugfixPolicy()

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=SYSTEM, tools=env.tools)

    def design_chain(self, env: Environment) -> Chain:
        return Designs(env.tools, self.rounds).fallback()

    def design_chain__oneshot(self, env: Environment) -> Chain:
        return Designs(env.tools, self.rounds).oneshot()

    def design_chain__survey(self, env: Environment) -> Chain:
        return Designs(env.tools, self.rounds).survey()
