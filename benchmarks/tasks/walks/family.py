"""`walks`: an agent walking a process whose drawability is known (`processes.py`), run by `wva bench` and read by
`wva criterion`, so that drawability is checked end to end on the same files a user's run leaves.

`walks:process=routing` runs the process with its default settings; `tools`, `shortest`, `longest` and `most`
change them (`walks:process=random_walk,tools=2`). The input is JSON (`{"case": 7, ...}`: what code may read);
every tool answers JSON (`{"ok": true}`, a trail's `{"next": ...}`, or an error for a wrong key). The simulated
agent decides as the process says, from the input, the results and the model's own knowledge of the case; a
slip (at error_rate, keyed per case and call) is a wrong key, one read too many, or a wrong place on a trail.
Not in the default run: it measures the measure. Its workflow is the single-call baseline (the other patterns
are not offered): what matters here is the agent's walks, not a verdict.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import PATTERNS, Environment, FamilyBase, Instance, Param, marked
from benchmarks.tasks.walks import known
from benchmarks.tasks.walks.processes import NAMES, History, Process, make
from patterns.fields import structured
from patterns.sim.policy import Decider, Reply, Request
from patterns.tools import Tool, ToolSet, tool
from patterns.workflows import Agent, Single

MARK = "[walks]"
REASON = "the walks family measures drawability: it offers the agent and the single-call baseline only"


def _process(text: str) -> str:
    if text not in NAMES:
        raise ValueError(f"unknown process {text!r}: choose from {', '.join(NAMES)}")
    return text


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"expected 0 or more, got {text!r}")
    return value


class Walks(FamilyBase):
    """The agent walks a known process (see the module docstring).

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | single | cost |
    |---|---|---|---|---|
    | the next call | the process's rule | each turn | its one round | one decision (a slip at error_rate) |
    """

    name = "walks"
    natural_workflow = "single"
    description = "An agent walking a process whose drawability is known, for checking the measure (not default)."
    PARAMS: ClassVar[dict[str, Param]] = {
        "process": Param("routing", _process, f"the process: {', '.join(NAMES)}"),
        "tools": Param(0, _count, "tools the process ranges over (0: its default)"),
        "shortest": Param(0, _count, "a walk's fewest calls, polls, steps or hops (0: the process's default)"),
        "longest": Param(0, _count, "a walk's most calls, polls, steps or hops (0: the process's default)"),
        "most": Param(0, _count, "a bounded loop's most reads (0: the default, 6)"),
    }

    def __init__(self, **params: Any) -> None:
        self.process: str
        self.tools: int
        self.shortest: int
        self.longest: int
        self.most: int
        super().__init__(**params)
        settings = {k: getattr(self, k) for k in ("tools", "shortest", "longest", "most") if getattr(self, k)}
        self.walker: Process = make(self.process, **settings)

    def instance(self, i: int, rng: random.Random) -> Instance:
        case = self.walker.case(i, rng)
        prompt = f"{MARK} Walk the process for this case, then reply DONE.\n\n```json\n{json.dumps(case)}\n```"
        return Instance(f"walks-{i:04d}", prompt, {"case": case})

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        history: History = []
        tools = [self._tool(name, instance.data["case"], history) for name in self.walker.tools]
        return Environment(tools=ToolSet(tools), state={"history": history})

    def _tool(self, name: str, case: dict[str, Any], history: History) -> Tool:
        def call(key: str) -> str:
            result, failed = self.walker.result(case, name, {"key": key}, list(history))
            history.append((name, result, failed))
            if failed:
                raise LookupError(result["error"])
            return result if isinstance(result, str) else json.dumps(result)  # prose stays prose

        call.__doc__ = f"Step {name} of the process.\n\nArgs:\n    key: the case's key, e.g. \"K-7\"\n"
        return tool(call, name=name, timeout_s=None)

    def design(self, pattern: str, env: Environment) -> Any:
        if pattern in PATTERNS and pattern not in ("single", "agent"):
            raise ValueError(f"{pattern} is not offered by walks: {REASON}")
        return super().design(pattern, env)

    def not_offered(self) -> dict[str, str]:
        return {p: REASON for p in super().not_offered()}

    def design_single(self, env: Environment) -> Single:
        return Single(system=f"{MARK} Walk the process, then reply DONE.", tools=env.tools)

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=f"{MARK} Walk the process: call its tools as it says, then reply DONE.", tools=env.tools)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        return 1.0 if "DONE" in (output or "") else 0.0

    def policy(self) -> WalksPolicy:
        return WalksPolicy(self.walker)


class WalksPolicy:
    """The process's own agent: its next call from the input and the calls so far (see the module docstring)."""

    def __init__(self, walker: Process) -> None:
        self.walker = walker

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        case = structured(request.first_user_text())
        if not isinstance(case, dict):
            return Reply([{"type": "text", "text": "UNKNOWN: no case."}])
        slip = not decide.correct(f"walks|{self.walker.name}|{case.get('case')}|{len(request.tool_uses())}")
        calls = self.walker.round(case, rounds_of(request), decide.rng, slip)
        if not calls:
            return Reply([{"type": "text", "text": "DONE"}])
        return Reply([{"type": "tool_use", "name": tool_name, "input": args} for tool_name, args in calls])


def rounds_of(request: Request) -> known.Done:
    """The calls so far, one round per assistant reply: (tool, result, is_error) each."""
    results = {r["tool_use_id"]: r for r in request.tool_results()}
    rounds: known.Done = []
    for message in request.messages:
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        uses = [b for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
        done = []
        for use in uses:
            r = results.get(use.get("id"), {"content": "{}", "is_error": True})
            value = structured(r["content"])
            done.append((str(use.get("name")), value if isinstance(value, dict) else r["content"], bool(r["is_error"])))
        if done:
            rounds.append(done)
    return rounds
