"""`DatasetTask`: a task family made from a task file, with no class to write.

`DatasetTask.from_file("tickets.toml")` reads and checks everything at once (the TOML, the
dataset, the tools module, the scorer, the design module), so a bad file fails before anything
runs, with one line. It then behaves like a built-in family: `instances`, `environment`,
`design`, `grade` (and `agrade`, which a model-graded scorer needs), `policy`.

- `instances(n, seed)`: the first n rows in file order (the seed does not reorder a dataset,
  so the same rows are compared across runs and models).
- `design(pattern, env)`: the user's design module's `design(pattern, env)` if it returns a spec,
  else, for `chain` when the file has a `[workflow]` table, the graph it draws (`workflow_table.py`),
  which is then the task's declared comparator (`natural_workflow`); else the generic design
  (`designs.py`). `route` is offered only with `[routes]`, and a generic design only when it is not agent-like
  with the file's tools (`not_offered()` says why otherwise).
- Parameters (`tickets.toml:votes=5,rounds=2`): `votes`, `rounds`; their defaults come from the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.tasks.base import PATTERNS, Environment, Instance, Param, init_params
from benchmarks.tasks.dataset.designs import GENERIC_RUBRIC, generic_design
from benchmarks.tasks.dataset.model_grader import grade_with_model
from benchmarks.tasks.dataset.modules import import_file
from benchmarks.tasks.dataset.policy import DatasetPolicy, sim_policy
from benchmarks.tasks.dataset.rows import load_instances
from benchmarks.tasks.dataset.scorers import Scorer, parse_scorer
from benchmarks.tasks.dataset.taskfile import MAX_ROUNDS, MAX_VOTES, TaskFile, read_task_file
from benchmarks.tasks.dataset.usertools import load_tools
from benchmarks.tasks.dataset.workflow_steps import drawn_chain
from benchmarks.tasks.dataset.workflow_table import check_tools
from benchmarks.tasks.refusals import agent_like_reason
from patterns.result import Result
from patterns.specs import provider_of
from patterns.tools import ToolSet

SIM_WARNING = ("success figures on sim are meaningless for a user dataset (the simulator only walks the designs "
               "mechanically): use a real model (--model anthropic:<model-id>) or a recorded cassette "
               "(--model replay:<path>) for them")


def _bounded(high: int) -> Any:
    def parse(text: str | int) -> int:
        value = int(text)
        if not 1 <= value <= high:
            raise ValueError(f"expected an integer from 1 to {high}, got {text!r}")
        return value

    return parse


class DatasetTask:
    """A task from a task file. On `sim` the policy walks every design mechanically (`policy.py`).

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow ([workflow], if drawn) | cost |
    |---|---|---|---|---|
    | call a tool | a tool offered, none called | the best-matching tool | its tool steps run in code | 1 decision |
    | retry a failed call | an error result (≤ 2 retries) | calls it again | a failed tool step ends it | 1 decision |
    | one value "like <example>" | a step asking for it | — | its model steps | 1 decision |
    | review an answer | "Review the answer", a grader | — | evaluate_optimize's evaluator | 1 judgement |

    A wrong decision passes a wrong argument or answers without the tool; a judgement never reads the target.
    """

    description = "a task from a task file: a dataset, tools, a scorer and optional routes"
    votes: int
    rounds: int

    def __init__(self, file: TaskFile, **params: Any) -> None:
        self.file = file
        self.name = file.name
        self.description = file.description or f"{file.name}: {file.dataset.name} scored by {file.scorer}"
        self.marker = f"[task:{file.name}]"
        self.PARAMS = {"votes": Param(file.votes, _bounded(MAX_VOTES), "samples in parallel's vote"),
                       "rounds": Param(file.rounds, _bounded(MAX_ROUNDS), "evaluate_optimize's round limit")}
        init_params(self, params)
        base = file.path.parent
        try:
            self.scorer: Scorer = parse_scorer(file.scorer, base)
        except ValueError as exc:
            raise ValueError(f"{file.path.name}: {exc}") from None
        self.rubric = self.scorer.rubric or GENERIC_RUBRIC
        self.rows = load_instances(file.dataset, file.name, needs_target=self.scorer.needs_target,
                                   routes=file.routes)
        self.tools: ToolSet | None = load_tools(file.tools) if file.tools else None
        for steps in (file.workflow, *(steps for _, steps in file.workflows)):
            check_tools(file.path, steps, self.tools)
            try:  # built once now, so that an agent-like loop is refused at load, not mid-sweep
                if steps:
                    drawn_chain(steps, "", self.tools)
            except ValueError as exc:
                raise ValueError(f"{file.path}: [workflow]: {exc}") from None
        self._not_offered: dict[str, str] | None = None
        self._user_design = getattr(import_file(file.design, "design module"), "design", None) if file.design else None
        if file.design and not callable(self._user_design):
            raise ValueError(f"{file.path.name}: design module {file.design.name!r} has no design(pattern, env)")
        if self.scorer.fn is not None and self.scorer.needs_target:
            self._check_targets()

    @property
    def natural_workflow(self) -> str | None:
        """`chain` when the file draws its workflow (`[workflow]`): that graph is the task's comparator; with
        named tables (`[workflow.<name>]`), the first one's design, `chain:<name>`."""
        if self.file.workflows:
            return f"chain:{self.file.workflows[0][0]}"
        return "chain" if self.file.workflow else None

    def variants(self) -> dict[str, str]:
        """The designs its named workflow tables draw (`benchmarks.tasks.variants`)."""
        return {f"chain:{name}": f"the [workflow.{name}] table's graph" for name, _ in self.file.workflows}

    @classmethod
    def from_file(cls, path: str | Path, **params: Any) -> DatasetTask:
        return cls(read_task_file(path), **params)

    def _check_targets(self) -> None:
        for row in self.rows:  # a target the scorer cannot read (number: not a number) fails now, not per trial
            try:
                self.scorer(row, "")
            except ValueError as exc:
                where = f"{self.file.dataset.name}: id {row.id!r}"
                raise ValueError(f"{where}: {exc} (scorer {self.file.scorer})") from None

    def not_offered(self) -> dict[str, str]:
        """Patterns this task cannot run, each with the reason (the bench shows it): `route` without [routes], and
        a generic design that would be agent-like with this file's tools (`evaluate_optimize`'s generator offered
        more than K tools round after round), so it is never run only to fail (`benchmarks.tasks.refusals`)."""
        if self._not_offered is None:
            out = {} if self.file.routes else {
                "route": f"{self.file.path.name} has no [routes] table, so there is nothing to route between"}
            generic = [p for p in PATTERNS if p not in out and p != "agent"
                       and not (p == "chain" and self.file.workflow)]
            for pattern in generic if self._user_design is None else []:  # a design module's are checked as built
                reason = agent_like_reason(lambda p=pattern: generic_design(p, self, self.tools))
                if reason is not None:
                    out[pattern] = f"its generic design is {reason[reason.find('agent-like'):]}"
            self._not_offered = out
        return self._not_offered

    def instances(self, n: int, seed: int) -> list[Instance]:
        return list(self.rows[:n])

    def max_instances(self) -> int:
        """The most instances this task has: its dataset's rows (`wva plan` and `--until-decided` read it)."""
        return len(self.rows)

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        return Environment(tools=self.tools or ToolSet(), state={"workdir": workdir})

    def design(self, pattern: str, env: Environment) -> Any:
        if pattern in self.variants():  # chain:<name>, a [workflow.<name>] table
            steps = dict(self.file.workflows)[pattern.split(":", 1)[1]]
            tools = env.tools if len(env.tools) else None
            return drawn_chain(steps, f"{self.marker} {self.file.system}".strip(), tools)
        if pattern not in PATTERNS:
            raise ValueError(f"unknown pattern {pattern!r} for task {self.name!r}: choose from {', '.join(PATTERNS)}")
        reason = self.not_offered().get(pattern)
        if reason:
            raise ValueError(f"{pattern} is not offered for task {self.name!r}: {reason}")
        if self._user_design is not None:
            spec = self._user_design(pattern, env)
            if spec is not None:
                return spec
        tools = env.tools if len(env.tools) else None
        if pattern == "chain" and self.file.workflow:
            return drawn_chain(self.file.workflow, f"{self.marker} {self.file.system}".strip(), tools)
        return generic_design(pattern, self, tools)

    @property
    def model_graded(self) -> bool:
        """Whether `agrade` calls a model (`model:<rubric>`); the harness runs any other scorer off the event loop."""
        return self.scorer.rubric is not None

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        return self.scorer(instance, output)

    async def agrade(self, instance: Instance, env: Environment, output: str, model: Any,
                     **run_options: Any) -> tuple[float, Result | None]:
        """(score, the grader's Result or None): a model-graded scorer calls `model`, the others do not."""
        if self.scorer.rubric is None:
            return self.grade(instance, env, output), None
        return await grade_with_model(model, self.marker, self.scorer.rubric, instance, output, **run_options)

    def policy(self) -> DatasetPolicy:
        return sim_policy(self)


def sim_warning(model_spec: str, families: list[Any]) -> str | None:
    """The one warning a run on `sim` with a dataset task deserves, or None."""
    simulated = provider_of(model_spec) == "sim"
    return SIM_WARNING if simulated and any(isinstance(f, DatasetTask) for f in families) else None
