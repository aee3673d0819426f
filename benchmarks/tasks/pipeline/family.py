"""`pipeline`: normalise a messy customer record in three fixed steps (extract → normalise → format).

A record such as `  name: jOHN  smith;; DOB 7/3/1985 ;; city= new york ` must become
`Smith, John | 1985-03-07 | New York`. The graph is known in advance, so the natural design is a
three-step prompt chain; every other pattern gets an honest best effort.

Parameters: `fields` (how many fields a record has, 3–5: name, dob, city, phone, email; a range
such as `3-5` varies it per instance) and `crowding` (see `policy`).

Tools: one, `check_format(line)`, a validator of the line's LAYOUT only (field count, separators,
casing, date/phone/email shapes); it never compares values with the truth, so it catches
formatting slips but not a wrong value. The single call may use it once, the agent in a loop.
The declared comparator (`chain`) is the three steps followed by the checks the agent is told to
make, drawn in advance (`drawn`): check_format as a tool step, a fix of an INVALID line, a judge of a
VALID one, a redo steered by the judge's note, up to the agent's own `max_checks` rounds; `plain=true`
gives the textbook three-step chain with no gate. Grade (`answers.pipeline_line`): the one line of the
output that has the layout (markdown, a label such as `Answer:`, a table row's outer pipes, trailing
punctuation and courtesy lines around it set aside; spaces around `|` standardised) must equal the
expected line exactly (case and punctuation within it count): 1.0 or 0.0; two different lines with
the layout are ambiguous and score 0. The parallel vote compares drafts by that line too.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import CROWDING_PARAM, PLAIN_PARAM, Environment, FamilyBase, Instance, IntRange, Param
from benchmarks.tasks.pipeline import prompts as pt
from benchmarks.tasks.pipeline.answers import pipeline_line
from benchmarks.tasks.pipeline.drawn import checked_chain
from benchmarks.tasks.pipeline.policy import PipelinePolicy
from benchmarks.tasks.pipeline.prompts import ALIASES, FIELDS, MARK, MONTHS, RULES, SYSTEM, layout_of
from benchmarks.tasks.pipeline.skills import record_of
from benchmarks.tasks.pipeline.tools import format_problems, make_tools
from patterns.answers import vote
from patterns.workflows import LLM, Agent, Chain, Code, EvaluateOptimize, Orchestrate, Parallel, Route, Single

FIRST = ("john", "mary", "anna", "peter", "laura", "james", "sofia", "daniel", "emma", "lucas", "olivia", "henry",
         "grace", "oscar", "chloe", "victor", "nina", "felix", "ruth", "simon")
LAST = ("smith", "garcia", "miller", "davis", "wilson", "moore", "taylor", "anderson", "thomas", "jackson", "white",
        "harris", "martin", "thompson", "robinson", "clark", "lewis", "walker", "hall", "young")
CITIES = ("new york", "san francisco", "los angeles", "salt lake city", "las vegas", "san diego", "kansas city",
          "el paso", "boston", "chicago", "denver", "seattle", "portland", "austin", "miami", "atlanta")
DOMAINS = ("example.com", "mail.test", "inbox.example.org")

def field_count(text: str | int | IntRange) -> IntRange:
    value = IntRange.parse(text)
    if value.high > len(FIELDS) or value.low < 3:
        raise ValueError(f"fields must be within 3-{len(FIELDS)}, got {text!r}")
    return value


def answer_line(text: str, fields: list[str]) -> str | None:
    """The one line of a reply that has the layout of `fields` (see `answers.pipeline_line`)."""
    return pipeline_line(text, lambda line: not format_problems(line, fields))


def _cased(rng: random.Random, words: str) -> str:
    style = rng.randrange(4)
    if style == 0:
        return words.lower()
    if style == 1:
        return words.upper()
    if style == 2:
        return words.title()
    return " ".join(w[:1].lower() + w[1:].upper() for w in words.split())  # the caps-lock look: jOHN


def _spaced(rng: random.Random, words: str) -> str:
    return "  ".join(words.split()) if rng.random() < 0.5 else words


def _raw_values(rng: random.Random, v: dict[str, Any]) -> dict[str, str]:
    first, last, (y, m, d) = v["first"], v["last"], v["dob"]
    name = f"{last}, {first}" if rng.random() < 0.3 else f"{first} {last}"
    dates = (f"{d}/{m}/{y}", f"{d:02}.{m:02}.{y}", f"{d}-{m}-{y}", f"{d} {MONTHS[m - 1].title()} {y}",
             f"{y}/{m:02}/{d:02}")
    a, b, c = v["phone"]
    phones = (f"({a}) {b}-{c}", f"{a}.{b}.{c}", f"{a}{b}{c}", f"+1 {a} {b} {c}", f"{a} {b} {c}")
    user, domain = v["email"].split("@")
    email = ".".join(p.title() for p in user.split(".")) + "@" + domain.title()  # never all lower case
    return {"name": _spaced(rng, _cased(rng, name)), "dob": rng.choice(dates),
            "city": _spaced(rng, _cased(rng, v["city"])), "phone": rng.choice(phones), "email": email}


def _record(rng: random.Random, fields: list[str], v: dict[str, Any]) -> str:
    raw = _raw_values(rng, v)
    sep = rng.choice((";;", ";", "|"))
    segments = []
    for f in fields:
        key = _cased(rng, rng.choice(ALIASES[f])) if rng.random() < 0.5 else rng.choice(ALIASES[f])
        segments.append(key + rng.choice((": ", "= ", "=", " ", ":  ")) + raw[f])
    rng.shuffle(segments)
    joined = "".join((rng.choice(("", " ")) + s + rng.choice(("", " ")) + sep) for s in segments)
    return rng.choice(("", " ", "  ")) + joined[: -len(sep)] + rng.choice(("", " "))


def _expected(fields: list[str], v: dict[str, Any]) -> str:
    y, m, d = v["dob"]
    a, b, c = v["phone"]
    parts = {"name": f"{v['last'].title()}, {v['first'].title()}", "dob": f"{y:04}-{m:02}-{d:02}",
             "city": v["city"].title(), "phone": f"{a}-{b}-{c}", "email": v["email"]}
    return " | ".join(parts[f] for f in fields)


def _keep_record(text: str) -> str:
    return record_of(text).strip()


class Pipeline(FamilyBase):
    """See the module docstring.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (chain) | cost |
    |---|---|---|---|---|
    | whole line in one reply | a task with no step phrase | first turn | — | 3 decisions, crowded |
    | one step of three | "Step k of 3" in the prompt | — | extract, normalise, format | 1 decision each |
    | check the layout | the check_format tool | a tool call | a tool step each round | none (a tool) |
    | fix an INVALID line | the report, as a tool result or quoted | after its check | fix step | 1 decision |
    | check again after a fix | "fix it until it is valid" | ≤ 4 checks | ≤ 4 rounds | none (a tool) |
    | judge a VALID line | "check your line against the record" | same turn | judge step | 1 judgement |
    | redo a doubted field | the judgement's note | same turn | redo step | 2 decisions, crowded |

    The judgement is the evaluator's (`Evaluate the candidate line` asks for it too), at `checker_error_rate`;
    the agent makes it while checks remain (`max_checks`, 4: the declared loop's bound). A note naming no
    field (a layout complaint) redoes the whole line: 3 crowded decisions. A repeated decision (the same
    field of the same record, the same line to fix, the same candidate to judge) is keyed the same in every
    design, so `error_correlation` treats an agent's redo as it treats a workflow's.

    Intended differences (`wva audit`):

    | decision | designs | cause |
    |---|---|---|
    | `pipeline|extract` | any | crowding: a reply writing the whole line carries 3 decisions, a chain step 1 |
    | `pipeline|normalise` | any | crowding: as extract (a worker's field carries 2) |
    | `pipeline|format` | any | crowding: as extract |
    """

    name = "pipeline"
    # declared before any result (see base): the graph is known: extract → normalise → format, then the
    # checks the agent is told to make, as a bounded loop (`plain=true`: the three steps alone)
    natural_workflow = "chain"
    # the simulated model checks its line at most `max_checks` times, the declared loop `checks` as many rounds:
    # `wva audit` counts the agent at that bound when it made that many checks (benchmarks/studies/bounds.py)
    shared_bounds: ClassVar[dict[str, tuple[str, int]]] = {"checks": ("check_format", PipelinePolicy.max_checks)}
    description = "normalise a messy record in three fixed steps (extract, normalise, format): the graph is known"
    PARAMS: ClassVar[dict[str, Param]] = {
        "fields": Param("3", field_count, "fields per record, 3-5 (name, dob, city, phone, email), or a range"),
        "crowding": CROWDING_PARAM,
        "plain": PLAIN_PARAM,
    }
    fields: IntRange
    crowding: float
    plain: bool

    def instance(self, i: int, rng: random.Random) -> Instance:
        fields = list(FIELDS[: rng.randint(self.fields.low, self.fields.high)])
        first, last = rng.choice(FIRST), rng.choice(LAST)
        user = rng.choice((f"{first}.{last}", f"{first}_{last}", f"{first[0]}{last}"))
        values = {"first": first, "last": last, "city": rng.choice(CITIES),
                  "dob": (rng.randint(1950, 2005), rng.randint(1, 12), rng.randint(1, 28)),
                  "phone": (str(rng.randint(200, 999)), str(rng.randint(200, 999)), f"{rng.randrange(10_000):04}"),
                  "email": f"{user}@{rng.choice(DOMAINS)}"}
        prompt = (f"{MARK} Normalise this customer record into one line with the layout:\n{layout_of(fields)}\n"
                  f"Fields: {', '.join(fields)}\nRules: {RULES}; fields separated by ' | ', in the order of the "
                  f"layout.\nRecord: {_record(rng, fields, values)}")
        return Instance(f"{self.name}-{i:04d}", prompt, {"expected": _expected(fields, values), "fields": fields,
                                                         "values": values})

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        state: dict[str, Any] = {"fields": list(instance.data["fields"]), "checks": []}
        return Environment(tools=make_tools(state), state=state)

    def design_single(self, env: Environment) -> Single:
        return Single(prompt="{task}\n\n" + pt.SINGLE_HINT, system=SYSTEM, tools=env.tools)

    def design_chain(self, env: Environment) -> Chain:
        if self.plain:
            return self._three_steps()
        return checked_chain(list(self._three_steps().steps), env.tools, SYSTEM, self.policy().max_checks)

    def _three_steps(self) -> Chain:
        return Chain([
            LLM("extract", f"{MARK} {pt.EXTRACT}: copy the raw value of each field listed under Fields, unchanged, one "
                "per line as `field: value`, in the order listed.\n\n{task}", SYSTEM),
            LLM("normalise", f"{MARK} {pt.NORMALISE}: normalise each value below by these rules: {RULES}. Keep one "
                "`field: value` per line, in the same order; write names as First Last.\n\n{input}", SYSTEM),
            LLM("format", f"{MARK} {pt.FORMAT}: write the values below as one line, in the order given, separated by "
                "' | ', with the name as 'Last, First'. Reply with the line only.\n\n{input}", SYSTEM),
        ])

    def design_route(self, env: Environment) -> Route:
        classifier = LLM("classify", f"{MARK} {pt.CLASSIFY} (exactly in the layout asked for) or messy? Reply with one "
                         "word: clean or messy.\n\n{task}", SYSTEM)
        return Route(classifier, {"messy": self._three_steps(), "clean": Code("keep_record", _keep_record)})

    def design_orchestrate(self, env: Environment) -> Orchestrate:
        return Orchestrate(
            planner=LLM("plan", f"{MARK} {pt.PLAN}: list one subtask per field listed under Fields, as a JSON array of "
                        'strings of the form "normalise the <field> field". Reply with the JSON only.\n\n{task}',
                        SYSTEM),
            worker=LLM("worker", f"{MARK} {pt.WORKER} {{input}}\nFind that field's raw value in the record below and "
                       f"normalise it ({RULES}). Reply with one line `field: value`; write names as First Last."
                       "\n\n{task}", SYSTEM),
            synthesizer=LLM("synthesize", f"{MARK} {pt.SYNTH} below into one line in the layout of the task, separated "
                            "by ' | ', with the name as 'Last, First'. Reply with the line only.\n\n{input}", SYSTEM),
        )

    def design_parallel(self, env: Environment) -> Parallel:
        def by_line(drafts: list[str]) -> str:  # a vote on the line each draft gives, not on its wording
            return vote(drafts, lambda d: answer_line(d, env.state["fields"]) or d.strip())

        return Parallel(vote=LLM("draft", "{task}\n\nReply with the line only.", SYSTEM), n=3, aggregate=by_line)

    def design_evaluate_optimize(self, env: Environment) -> EvaluateOptimize:
        generator = LLM("generate", f"{MARK} {pt.GENERATE}; reply with the line only.\n\n{{task}}\n\nFeedback on your "
                        "previous attempt (none in the first round): {feedback}", SYSTEM)
        evaluator = LLM("evaluate", pt.JUDGE, SYSTEM)
        return EvaluateOptimize(generator, evaluator, max_rounds=3)

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=f"{SYSTEM} {pt.AGENT_HINT}", tools=env.tools)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        return 1.0 if answer_line(output, instance.data["fields"]) == instance.data["expected"] else 0.0

    def policy(self) -> PipelinePolicy:
        return PipelinePolicy(crowding=self.crowding)

