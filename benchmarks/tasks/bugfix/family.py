"""`bugfix`: a real stdlib module (or package) with one seeded bug; fix it until its tests pass.

An instance is a verified mutation of the catalogue (`catalogue.py`): a target copied from the running
interpreter into the trial's project, one line mutated (`mutate.py`), and differential tests whose expected
values the original module gave on inputs drawn before any mutation (`modules.py`). Every tool is real
(`world.py`): the tests run in a subprocess, a read returns the file's own lines, so the breadth (files and
lines), the size of a look (tokens) and what a failure makes code-readable (a traceback's frame, or only an
assertion's expected/got prose) come from the code. Success is the tests passing at the end.

Designs (same tools, instructions, validation and bounds):
- **agent**: the agent loop with the five tools.
- **chain** (declared, Agentless-style): run the tests; localize once, off any loop: a traceback frame in the
  project is read by code, then a model call names the window to read (a wide router, run once); read it; then
  repair → validate → retry: a fix step (one edit, or NOT HERE), the edit applied and the tests run in code,
  until they pass or the fixer says the bug is not in the window, at most `rounds` tries (default: the edits
  the agent's step limit allows).
- **chain:survey**: run the tests, code reads every file of the project whole, then the same repair loop with
  every file in the fixer's prompt.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import networkx as nx

from benchmarks.tasks.base import Environment, FamilyBase, Instance, Param, design_bound
from benchmarks.tasks.bugfix import catalogue, world
from benchmarks.tasks.bugfix.policy import AGENT, FIX, LOCATE, MARK, WINDOW, BugfixPolicy, frame_of
from patterns.limits import Limits
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Agent, Chain, Code, Loop, Route, ToolStep
from patterns.workflows.graph import node

SYSTEM = (f"{AGENT}. Run the tests, read the code a failure points to, find the bug and fix it with the "
          "smallest edit (never edit the tests), then run the tests again. When they pass, reply DONE.")
_EDIT = re.compile(r"EDIT (\S+)\n<<<<<<< SEARCH\n(.*?)\n=======\n(.*?)\n>>>>>>> REPLACE", re.S)
_READ = re.compile(r"READ:\s*(\S+?):(\d+)-(\d+)")


def _state(text: str) -> dict[str, Any]:
    return json.loads(text)


def _with(text: str, **changes: Any) -> str:
    return json.dumps({**_state(text), **changes})


class Maybe(ToolStep):
    """A fixed tool call made only when code finds its arguments in the state (else the state passes on)."""

    async def __call__(self, run: Run, text: str) -> str:
        return await super().__call__(run, text) if self.args(text) is not None else text


class Ask(LLM):
    """A model call on the state, its reply kept in the state's `reply`."""

    async def __call__(self, run: Run, text: str) -> str:
        return _with(text, reply=await super().__call__(run, text))


def _prompt(ask: str) -> Any:
    def prompt(text: str, task: str) -> str:
        s = _state(text)
        code = "\n\n".join(s["reads"])
        return f"{task}\n\n{ask}\n\n<test_output>\n{s['report']}\n</test_output>\n\n<code>\n{code}\n</code>"
    return prompt


def _tested(text: str, result: str, failed: bool) -> str:
    return _with(text, report=result, edited=False)


def _read(text: str, result: str, failed: bool) -> str:
    return _with(text, reads=[*_state(text)["reads"], result])


def _edit_args(text: str) -> dict[str, Any] | None:
    m = _EDIT.search(_state(text).get("reply", ""))
    return {"path": m.group(1), "old": m.group(2), "new": m.group(3)} if m else None


def _window(text: str) -> dict[str, Any]:
    m = _READ.search(_state(text).get("reply", ""))
    return {"path": m.group(1), "start": int(m.group(2)), "end": int(m.group(3))} if m else {"path": "?"}


def _frame_window(text: str) -> dict[str, Any]:
    path, line = frame_of(_state(text)["report"]) or ("?", 1)
    return {"path": path, "start": max(1, line - WINDOW), "end": line + WINDOW}


def passed(text: str) -> bool:
    return "\nOK: " in "\n" + _state(text)["report"]


class Bugfix(FamilyBase):
    """See the module docstring.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (chain) | cost |
    |---|---|---|---|---|
    | run the tests | the run_tests tool | a tool call, after each edit | code, after each edit | none |
    | read a traceback's frame | a frame in the project | its next read | code reads it | none |
    | decide where to look | a failure no listing explains | its next read | the locate step (once) | `locate` |
    | fix the buggy line | a listing showing it | an edit call | the fix step | `edit` |
    | say the bug is elsewhere | a listing not showing it | reads elsewhere | NOT HERE ends the loop | none |
    | bounds | the run's; the design's | 50 calls (step limit) | `rounds` tries (auto: 24) | — |

    Costs per use: one decision at error_rate, keyed `bugfix|locate|<tag>` and `bugfix|edit|<file>:<line>`, so
    deciding again (the agent looking again, a retry of a rejected edit) is correlated in either design.
    """

    name = "bugfix"
    natural_workflow = "chain"  # declared before any result: Agentless's localize → repair → validate → retry
    description = "Fix a seeded bug in a real stdlib module until its differential tests pass (not default)."
    PARAMS: ClassVar[dict[str, Param]] = {
        "rounds": Param("auto", design_bound, "design: the repair loop's tries; auto = the agent's edits in its "
                                              "step limit"),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rounds: int = self.rounds or ((Limits().max_steps or 50) - 2) // 2

    def iter_instances(self, n: int, seed: int) -> Iterator[Instance]:
        pool = catalogue.mutations()
        order = list(range(len(pool)))
        random.Random(f"{self.name}:{seed}").shuffle(order)
        for i in range(n):
            target, m = pool[order[i % len(pool)]]
            tag = world.tag_of(target, m)
            prompt = (f"{MARK} Issue {tag}: the tests in {world.test_file(target['module'])} fail. Find the bug "
                      f"in the project's code (not in its tests) and fix it with the smallest edit.")
            yield Instance(f"{self.name}-{i:04d}", prompt, {"module": target["module"], "mutation": m, "tag": tag})

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        root = Path(workdir).resolve()
        target = next(t for t in catalogue.load() if t["module"] == instance.data["module"])
        world.build_project(root, target, instance.data["mutation"])
        return Environment(tools=world.make_tools(root, target["module"]), state={"root": root})

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        return 1.0 if world.run_tests_in(env.state["root"], instance.data["module"])[0] == 0 else 0.0

    def design(self, pattern: str, env: Environment) -> Any:
        if pattern in (reasons := self.not_offered()):
            raise ValueError(f"{pattern} is not offered by {self.name}: {reasons[pattern]}")
        return super().design(pattern, env)

    def not_offered(self) -> dict[str, str]:
        return {p: "the Agentless question: the agent, the localize → repair → validate chain and the survey only"
                for p in super().not_offered()}

    def policy(self) -> BugfixPolicy:
        return BugfixPolicy()

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=SYSTEM, tools=env.tools)

    def _tool(self, env: Environment, name: str, tool: str, args: Any, keep: Any) -> ToolStep:
        return Maybe(name, env.tools, tool, args, keep=keep)

    def _repair(self, env: Environment, start: Any) -> Chain:
        begin = self._tool(env, "run_tests", "run_tests", lambda t: {}, keep=lambda t, r, f: json.dumps(
            {"report": r, "reads": [], "reply": ""}))
        tries = Loop(Chain([Ask("fix", _prompt(FIX + ": reply EDIT <path>, a <<<<<<< SEARCH block with the "
                                               "exact old lines, ======= and the new lines, then >>>>>>> REPLACE; "
                                               "or NOT HERE if the bug is not in this code.")),
                            self._tool(env, "edit", "edit", _edit_args, keep=lambda t, r, f: _with(
                                _read(t, r, f), edited=not f)),
                            self._tool(env, "validate", "run_tests", lambda t: {} if _state(t).get("edited") else None,
                                       keep=_tested)], name="try"),
                     until=lambda t: passed(t) or "NOT HERE" in _state(t).get("reply", ""), max_rounds=self.rounds,
                     name="repair")
        done = Code("report", lambda t: "DONE: the tests pass." if passed(t) else "NOT FIXED")
        return Chain([begin, start, tries, done])

    def design_chain(self, env: Environment) -> Chain:
        def locate() -> list[Any]:
            return [Ask("locate", _prompt(LOCATE + " (the lines of the project's code to read next).")),
                    self._tool(env, "read", "read_file", _window, _read)]

        frame = Chain([self._tool(env, "read_frame", "read_file", _frame_window, _read), *locate()], name="frame")
        where = Route(Code("traceback?", lambda t: "frame" if frame_of(_state(t)["report"]) else "prose"),
                      {"frame": frame, "prose": Chain(locate(), name="prose")}, name="localize")
        return self._repair(env, where)

    def design_chain__survey(self, env: Environment) -> Chain:
        return self._repair(env, ReadAll("read_every_file", env.tools))


@dataclass(frozen=True)
class ReadAll:
    """Code reads every file of the project's code whole (in reads of at most `MOST_LINES` lines)."""

    name: str
    tools: ToolSet
    kind: str = "tool"

    async def __call__(self, run: Run, text: str) -> str:
        names = await run.call_tool(self.tools, {"name": "list_files", "id": "survey_list", "input": {}},
                                    name=self.name)
        sizes = [(line.split(" (")[0], int(line.split("(")[-1].split()[0]))
                 for line in str(names["content"]).splitlines()]
        uses = [{"name": "read_file", "id": f"survey_{k}", "input": {"path": p, "start": s}}
                for k, (p, s) in enumerate((p, s) for p, n in sizes if not p.startswith("tests/")
                                           for s in range(1, n + 1, world.MOST_LINES))]
        results = await run.call_tools(self.tools, uses, name=self.name)
        return _with(text, reads=[str(r["content"]) for r in results])

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        n = node(graph, prefix + self.name, "tool", "list_files, then read_file on every file",
                 tools=("list_files", "read_file"), dispatch=True)
        return [n], [n]
