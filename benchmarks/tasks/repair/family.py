"""`repair`: fix a config file until its validator passes; how many faults it has is hidden.

Each instance is a `key = value` file for a made-up service (schema in `tools.py`) with
`faults` corrupted lines: a line that is not `key = value`, a misspelt key, or a value that
breaks its rule (`port = eighty`, `log_level = warning`, `tls = yes`). `validate` reports the
first problem only, so each validation reveals the next fault: the number of steps cannot be
known in advance. Success (grade 1.0) is the grader re-running the validator on the file at the
end and getting OK; anything else is 0.0 (the final answer's wording does not count).

Designs: the agent loops validate → fix until OK. The declared comparator (`chain`, `drawn.py`)
is that loop drawn in advance: validate in code, then fault by fault (up to `rounds` faults) fix
the reported line and validate again, retrying a fix the validator rejects (up to `attempts` tries
per fault), with a code exit on OK. `plain=true` gives the textbook chain: `rounds` fixed
validate → fix steps, no exit, no retry beyond the rounds left. The other fixed workflows have
`rounds` validate → fix steps (or evaluator rounds) and cannot fix more faults than that.
`rounds` is a design parameter; by default (`auto`) it is the largest `faults` value, so chain,
route, parallel and evaluate_optimize can solve every instance of the stated range (a smaller
`rounds` is a sweep away); `attempts` by default (`auto`) is as many fixes as the agent's step
limit lets it make (24 in 50 calls), so the comparator's retry bound is never below the agent's.
Two designs cannot solve the family by construction: orchestrate's planner sees one report,
so it plans one fix (it solves one-fault files only), and a single call has one round of tools, so
it can look but not fix.
"""

from __future__ import annotations

import difflib
import random
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
    design_bound,
    positive_int,
)
from benchmarks.tasks.repair.answers import proposal_vote, repair_proposal
from benchmarks.tasks.repair.drawn import fault_by_fault
from benchmarks.tasks.repair.policy import RepairPolicy
from benchmarks.tasks.repair.prompts import (
    CLASSIFIER,
    EVALUATOR,
    GENERATOR,
    PLANNER,
    PROMPT,
    PROPOSER,
    SPECIALIST_PROMPT,
    SPECIALISTS,
    SYNTHESIZER,
    SYSTEM,
    WORKER,
)
from benchmarks.tasks.repair.steps import ApplyEdit, finish, fix_rounds, only, validate
from benchmarks.tasks.repair.tools import KEY_LINE, SCHEMA, Rule, Sandbox, first_problem, make_tools
from patterns.limits import Limits
from patterns.workflows import LLM, Agent, Chain, EvaluateOptimize, Orchestrate, Parallel, Route, Single

FILES = ("app.conf", "service.conf", "gateway.conf", "worker.conf", "api.conf")
TYPICAL: dict[str, tuple[Any, ...]] = {
    "name": ("billing-api", "search", "auth-gateway", "image-resizer", "mailer", "ledger"),
    "host": ("localhost", "api.internal", "10.0.0.12", "db.example.com"),
    "port": (80, 443, 5000, 8080, 8443, 9000), "workers": (1, 2, 4, 8, 12, 16), "timeout_s": (5, 10, 30, 60, 90),
    "retries": (0, 1, 2, 3, 5), "cache_mb": (0, 64, 128, 256, 512), "max_body_kb": (64, 256, 1024, 4096),
}
UNITS = {"port": "/tcp", "timeout_s": "s", "cache_mb": "MB", "max_body_kb": "KB", "workers": " threads",
         "retries": "x"}
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 8: "eight", 10: "ten", 12: "twelve",
                16: "sixteen", 30: "thirty", 60: "sixty", 80: "eighty", 90: "ninety"}
VARIANTS = {"debug": ("DEBUG", "verbose", "trace"), "info": ("INFO", "information"), "warn": ("warning", "WARN"),
            "error": ("err", "ERROR"), "development": ("dev", "Development"), "staging": ("stage", "STAGING"),
            "production": ("prod", "Production"), "none": ("off", "None"), "gzip": ("gz", "GZIP"),
            "zstd": ("zstandard", "ZSTD"), "true": ("yes", "on", "1", "True", "enabled"),
            "false": ("no", "off", "0", "False", "disabled")}


def _faults(text: str | int | IntRange) -> IntRange:
    value = IntRange.parse(text)
    if value.high > len(SCHEMA):
        raise ValueError(f"at most {len(SCHEMA)} faults fit in a file of {len(SCHEMA)} keys, got {value}")
    return value


def _typical(key: str, rule: Rule, rng: random.Random) -> str:
    if key in TYPICAL:
        return str(rng.choice(TYPICAL[key]))
    return rng.choice(rule.options or ("true", "false"))


def _typo(key: str, rng: random.Random) -> str | None:
    """A misspelling that is no key but whose closest key is still `key` (so the report is fixable)."""
    for _ in range(20):
        i = rng.randrange(len(key) - 1)
        edit = rng.choice(("swap", "drop", "double"))
        typo = {"swap": key[:i] + key[i + 1] + key[i] + key[i + 2:], "drop": key[:i] + key[i + 1:],
                "double": key[:i] + key[i] + key[i:]}[edit]
        if typo not in SCHEMA and KEY_LINE.match(f"{typo} = 1") and \
                difflib.get_close_matches(typo, list(SCHEMA), n=1, cutoff=0.0) == [key]:
            return typo
    return None


def _bad_value(key: str, value: str, rule: Rule, rng: random.Random) -> str | None:
    if rule.kind == "int":
        options = [f"{value}{UNITS.get(key, 'x')}", str(rule.high * 10 + int(value))]
        options += [NUMBER_WORDS[int(value)]] if int(value) in NUMBER_WORDS else []
    elif rule.kind == "name":
        options = [value.replace("-", " ").title(), value.replace("-", "_"), value.title().replace("-", "")]
    elif rule.kind == "host":
        options = [value.upper(), value.replace(".", "_"), f"{value}:8080"]
    else:
        options = list(VARIANTS[value])
    options = [o for o in options if not rule.accepts(o)]
    return rng.choice(options) if options else None


def _corrupt(key: str, value: str, rng: random.Random) -> tuple[str, str]:
    """(kind, faulty line) for one `key = value` line."""
    kind = rng.choice(("syntax", "key", "value", "value"))
    if kind == "key" and (typo := _typo(key, rng)):
        return kind, f"{typo} = {value}"
    if kind == "value" and (bad := _bad_value(key, value, SCHEMA[key], rng)):
        return kind, f"{key} = {bad}"
    return "syntax", rng.choice((f"{key} {value}", f"{key}: {value}"))


class Repair(FamilyBase):
    """See the module docstring.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (chain) | cost |
    |---|---|---|---|---|
    | validate the file | the validate tool | a tool call after every edit | a tool step after every fix | none |
    | fix the reported line | a FAIL report, as a tool result or quoted | next turn | fix step | 1 decision |
    | retry a rejected fix | the same line reported again | next turn | next try, ≤ `attempts` | 1 decision |
    | go on to the next fault | another line reported | next turn | next round, ≤ `rounds` | none |
    | stop when the file is valid | an OK report | replies DONE | a code exit | none |
    | judge a failing report | "Reply PASS if it answers OK" | — | — (evaluate_optimize) | 1 judgement |

    A fix is keyed by the file and the line, so a retry of a rejected fix is the same decision made again,
    correlated at `error_correlation` in the agent's turn as in a workflow's try. Nothing judges itself: the
    agent validates after every edit because it is told to ("validate again", "never claim a file is valid
    without validating it"), as every family's agent follows its procedure, at no decision cost; it no
    longer may "claim DONE without validating" after an edit, a judgement only the agent could make.
    """

    name = "repair"
    # declared before any result (see base): validate → fix with a code exit, fault by fault (≤ `rounds`),
    # a rejected fix tried again (≤ `attempts`); `plain=true`: `rounds` fixed validate → fix steps
    natural_workflow = "chain"
    description = "fix a config file until its validator passes; the number of faults is hidden"
    PARAMS: ClassVar[dict[str, Param]] = {
        "faults": Param("1-5", _faults, "faults hidden in each file (a range: each instance draws one)"),
        "rounds": Param("auto", design_bound, "design: validate→fix rounds of the fixed designs (route, parallel, "
                                              "evaluate_optimize, the plain chain; the declared chain: faults it "
                                              "goes on to); auto = the largest fault count"),
        "attempts": Param("auto", design_bound, "design: the declared chain's tries per fault (a fix the "
                                                "validator rejects is tried again); auto = the agent's fixes in "
                                                "its step limit"),
        "voters": Param(3, positive_int, "parallel: proposals voted on per fix"),
        "crowding": CROWDING_PARAM,
        "plain": PLAIN_PARAM,
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rounds: int = self.rounds or self.faults.high  # auto: every instance within reach
        # auto: as many fixes as the agent can make within the run's step limit (a first call, then a fix and a
        # validation per try, then the answer), so the comparator's bound is never below the agent's own
        self.attempts: int = self.attempts or ((Limits().max_steps or 50) - 2) // 2

    def instance(self, i: int, rng: random.Random) -> Instance:
        path = rng.choice(FILES)
        keys = list(SCHEMA)
        rng.shuffle(keys)
        values = {key: _typical(key, SCHEMA[key], rng) for key in keys}
        lines = [f"# {values['name']} configuration", ""] + [f"{key} = {values[key]}" for key in keys]
        faulty, faults = list(lines), []
        for index in sorted(rng.sample(range(2, len(lines)), rng.randint(self.faults.low, self.faults.high))):
            key = keys[index - 2]
            kind, faulty[index] = _corrupt(key, values[key], rng)
            faults.append({"line": index + 1, "key": key, "kind": kind, "text": faulty[index]})
        data = {"path": path, "original": "\n".join(lines) + "\n", "faulty": "\n".join(faulty) + "\n",
                "faults": faults}
        return Instance(f"{self.name}-{i:04d}", PROMPT.format(path=path), data)

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        root = Path(workdir)
        (root / instance.data["path"]).write_text(instance.data["faulty"], encoding="utf-8")
        # `path` is public (the prompt names it); the ground truth stays in instance.data
        state = {"root": root, "path": instance.data["path"]}
        return Environment(tools=make_tools(Sandbox(root)), state=state)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        target = Path(env.state["root"]) / instance.data["path"]
        if not target.is_file():
            return 0.0
        return 1.0 if first_problem(target.read_text(encoding="utf-8")) is None else 0.0

    def policy(self) -> RepairPolicy:
        return RepairPolicy(crowding=self.crowding)

    def design_single(self, env: Environment) -> Single:
        return Single(system=SYSTEM, tools=env.tools)

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=SYSTEM, tools=env.tools)

    def design_chain(self, env: Environment) -> Chain:
        if self.plain:
            return Chain([*fix_rounds(env, 1, self.rounds), *finish(env)])
        return fault_by_fault(env, self.rounds, self.attempts)

    def design_route(self, env: Environment) -> Chain:
        path = env.state["path"]
        routes = {label: Chain([LLM("fix_1", SPECIALIST_PROMPT.format(label=label, path=path, help=help_),
                                    SYSTEM, only(env, "replace_line")), *fix_rounds(env, 2, self.rounds),
                                *finish(env)])
                  for label, help_ in SPECIALISTS.items()}
        return Chain([validate(env, "validate_1"), Route(LLM("classify", CLASSIFIER, SYSTEM), routes)],
                     name="route", pattern="route")

    def design_orchestrate(self, env: Environment) -> Orchestrate:
        path, editor, checker = env.state["path"], only(env, "replace_line"), only(env, "validate")
        return Orchestrate(LLM("plan", PLANNER.format(path=path), SYSTEM, checker),
                           LLM("worker", WORKER.format(path=path), SYSTEM, editor),
                           LLM("synthesize", SYNTHESIZER.format(path=path), SYSTEM, checker))

    def design_parallel(self, env: Environment) -> Chain:
        path = env.state["path"]

        def apply(proposal: str) -> dict[str, Any]:
            found = repair_proposal(proposal)
            assert found is not None  # ApplyEdit only calls it on a proposal
            return {"path": path, "line_no": found[0], "text": found[1]}

        steps = [s for r in range(1, self.rounds + 1) for s in (
            validate(env, f"validate_{r}"),
            Parallel(vote=LLM(f"propose_{r}", PROPOSER.format(path=path), SYSTEM), n=self.voters,
                     aggregate=proposal_vote, name=f"vote_{r}"),
            ApplyEdit(f"apply_{r}", env.tools, "replace_line", apply))]
        return Chain([*steps, *finish(env)], name="parallel", pattern="parallel")

    def design_evaluate_optimize(self, env: Environment) -> Chain:
        path = env.state["path"]
        return Chain([validate(env, "validate_1"),
                      EvaluateOptimize(LLM("fix", GENERATOR.format(path=path), SYSTEM, only(env, "replace_line")),
                                       LLM("evaluate", EVALUATOR.format(path=path), SYSTEM, only(env, "validate")),
                                       max_rounds=self.rounds), *finish(env)],
                     name="evaluate_optimize", pattern="evaluate_optimize")
