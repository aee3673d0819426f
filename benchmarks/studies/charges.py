"""`wva audit`'s charge table: what the simulator charges each decision, per design, on the same instances.

Every design a family offers (the agent, each workflow pattern and each named variant, plus any design the
user names) runs on the same instances under a recording decider: the family's policy is wrapped so that every
draw it makes is written down with

- its **kind** (the key's first two parts, `support|category`; `(unkeyed)` for a draw with no key) and key;
- the **odds charged**: the error rate the draw was made at, after every knob;
- the knobs that explain it: **decay**, the call's rate over the model's `error_rate` (`context_decay`, from
  the prompt's length), and **crowding**, `1 + crowding * (k - 1)` for a reply that carries k decisions
  (`patterns.sim.policy.crowded`, symmetric: it counts a reply's decisions, whoever sends it);
- the **residual**: odds / (base rate x decay x crowding), 1 for a draw the documented knobs explain;
- **repeats**: the share of its draws whose key was drawn before in the trial (correlated at
  `error_correlation`, whoever repeats it);
- the **instruction** that asked for it: the first sentence of the request's instructions (system prompt and
  first user turn) that is not the task's own text and not shared by every request of the family.

The audit fails a kind when its residual differs between two designs by more than `TOLERANCE`: the policy
charges the same decision other odds by who asks, which no documented knob explains. It also fails a kind
only the agent draws: the agent's decision is keyed apart from every workflow's, so a repeat of it is
correlated differently (workflow-only kinds are normal: a planner, a classifier, a synthesizer). A difference the family
intends is declared in its docstring's "Intended differences" table (`| decision | designs | cause |`) and is
printed as declared, not failed. A difference in crowding or decay is shown beside the odds, never failed:
both knobs apply the same rule to every design's request.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patterns.limits import Limits
from patterns.options import RequestOptions
from patterns.sim import SimModel
from patterns.sim.policy import CROWDING, Decider, Reply, Request
from patterns.workflows import arun_workflow

_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|([^|]+)\|\s*(.+?)\s*\|$")  # `kind` (which holds a |), designs, cause
TOLERANCE = 0.01  # the residual is exact per draw (no sampling): any gap beyond rounding is a policy's own


@dataclass(frozen=True)
class Draw:
    design: str
    trial: str  # the instance the design ran on
    kind: str  # decide | judge
    key: str
    rate: float  # the odds charged
    base: float  # the call's rate for this kind of draw, after context decay
    crowd: int  # decisions in the reply
    instruction: str


@dataclass
class Charge:
    """One kind of decision as one design is charged for it (means over its draws)."""

    kind: str
    design: str
    made: float  # draws per instance
    odds: float
    decay: float
    crowd: float  # mean k
    residual: float
    repeats: float
    key: str  # an example key
    instruction: str


@dataclass
class Audit:
    family: str
    charges: list[Charge]
    failed: list[str] = field(default_factory=list)  # "kind: design a x.xx vs design b y.yy"
    declared: list[str] = field(default_factory=list)  # "kind: cause"


def kind_of(key: str) -> str:
    return "|".join(key.split("|")[:2]) if key else "(unkeyed)"


class _Recording(Decider):
    """The policy's decider, each draw written down (and still made by SimModel's own decider)."""

    def __init__(self, inner: Decider, note: Any) -> None:
        super().__init__(inner.rng, inner.error_rate, inner.checker_error_rate)
        self.inner, self.note = inner, note

    def judge(self, key: str | None = None) -> bool:
        self.note("judge", key or "", self.inner.checker_error_rate, self.inner.checker_error_rate, 1)
        return self.inner.judge(key)

    def draw(self, rate: float, key: str | None = None, *, kind: str = "decide", crowd: int = 1) -> bool:
        self.note(kind, key or "", rate, self.inner.error_rate, crowd)
        return self.inner.draw(rate, key, kind=kind, crowd=crowd)


class RecordingPolicy:
    """`policy`, every decision it makes recorded into `log` under the design now running (`self.design`)."""

    def __init__(self, policy: Any, log: list[Draw]) -> None:
        self.policy, self.log, self.design, self.trial = policy, log, "", ""

    def accepts(self, request: Request) -> bool:
        return bool(self.policy.accepts(request))

    def respond(self, request: Request, decide: Decider) -> Reply:
        said = request.instructions()

        def note(kind: str, key: str, rate: float, base: float, crowd: int) -> None:
            self.log.append(Draw(self.design, self.trial, kind, key, rate, base, crowd, said))

        reply: Reply = self.policy.respond(request, _Recording(decide, note))
        return reply


async def record(family: Any, designs: list[str], knobs: dict[str, Any], instances: int, seed: int) -> list[Draw]:
    """Every draw each design's runs make on the same `instances` (one trial each, the same model seed)."""
    from benchmarks.tasks.variants import design_for

    log: list[Draw] = []
    policy = RecordingPolicy(family.policy(), log)
    base = SimModel(policy, seed=seed, **knobs)
    for instance in family.instances(instances, seed):
        for design in designs:
            policy.design, policy.trial = design, instance.id
            with tempfile.TemporaryDirectory(prefix="wva-audit-") as workdir:
                env = family.environment(instance, Path(workdir))
                spec = design_for(family, design, env)
                await arun_workflow(spec, base.fork(f"audit|{instance.id}|{design}"), instance.prompt,
                                    limits=Limits(max_steps=40), options=RequestOptions(prompt_cache=False))
    return log


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.:?!])\s+|\n+", text) if len(s.strip()) > 3]


def instructions(log: list[Draw], prompts: dict[str, str]) -> dict[str, str]:
    """Each recorded request's instruction: its first sentence neither the task's nor common to every request."""
    said = {d.instruction for d in log}
    own = {s: [x for x in _sentences(s) if not any(x in p for p in prompts.values())] for s in said}
    common = set.intersection(*(set(v) for v in own.values())) if own else set()
    return {s: next((x for x in v if x not in common), "(the task alone)")[:70] for s, v in own.items()}


def charges(log: list[Draw], error_rate: float, checker_rate: float, crowding: float, instances: int,
            said: dict[str, str]) -> list[Charge]:
    groups: dict[tuple[str, str], list[Draw]] = defaultdict(list)
    for d in log:
        groups[(kind_of(d.key), d.design)].append(d)
    out = []
    for (kind, design), draws in sorted(groups.items()):
        seen: set[tuple[str, str]] = set()
        repeats = 0
        for d in draws:
            repeats += (d.trial, d.key) in seen and bool(d.key)
            seen.add((d.trial, d.key))
        rate0 = [checker_rate if d.kind == "judge" else error_rate for d in draws]
        decay = [d.base / r if r else 1.0 for d, r in zip(draws, rate0, strict=True)]
        crowd = [1 + crowding * (d.crowd - 1) for d in draws]
        residual = [d.rate / (d.base * c) if d.base else 1.0 for d, c in zip(draws, crowd, strict=True)]
        n = len(draws)
        out.append(Charge(kind, design, n / instances, sum(d.rate for d in draws) / n, sum(decay) / n,
                          sum(d.crowd for d in draws) / n, sum(residual) / n, repeats / n, draws[0].key[:48],
                          said.get(draws[0].instruction, "")))
    return out


def intended(family: Any) -> dict[str, tuple[set[str], str]]:
    """The family's declared differences: the "Intended differences" table of its docstring (class, else module),
    `` | `decision kind` | designs (comma-separated, or any) | cause | `` -> kind: (designs, cause)."""
    out: dict[str, tuple[set[str], str]] = {}
    for doc in (inspect.getdoc(type(family)), inspect.getdoc(inspect.getmodule(type(family)))):
        lines = (doc or "").splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("Intended differences")), None)
        if start is None:
            continue
        for line in lines[start + 1:]:
            if line.strip() and not line.startswith("|"):
                break
            if m := _ROW.match(line.strip()):
                out[m.group(1)] = ({d.strip().strip("`") for d in m.group(2).split(",")}, m.group(3))
        return out
    return out


def verdict(family: str, rows: list[Charge], declared: dict[str, tuple[set[str], str]]) -> Audit:
    """Fail each kind whose residual differs between designs by more than TOLERANCE, unless declared."""
    audit = Audit(family, rows)
    by_kind: dict[str, list[Charge]] = defaultdict(list)
    for c in rows:
        by_kind[c.kind].append(c)
    for kind, cs in by_kind.items():
        low, high = min(cs, key=lambda c: c.residual), max(cs, key=lambda c: c.residual)
        if high.residual - low.residual <= TOLERANCE:
            continue
        designs, cause = declared.get(kind, (set(), ""))
        if cause and ("any" in designs or {low.design, high.design} & designs):
            audit.declared.append(f"{kind}: {cause}")
            continue
        audit.failed.append(f"{kind}: {high.design} is charged {high.residual:.2f}x the documented odds, "
                            f"{low.design} {low.residual:.2f}x")
    for kind, cs in by_kind.items():  # a key only the agent draws: its decision is correlated with nothing else's
        if {c.design for c in cs} == {"agent"} and kind not in declared:
            audit.failed.append(f"{kind}: keyed by the agent only (no workflow design draws this key)")
    for kind, (_, cause) in declared.items():
        if kind in by_kind and not any(line.startswith(f"{kind}:") for line in audit.declared):
            audit.declared.append(f"{kind}: {cause}")
    return audit


def designs_of(family: Any, extra: tuple[str, ...] = ()) -> list[str]:
    """The agent, every workflow pattern the family offers, its named variants, then `extra` (a user's designs)."""
    from benchmarks.harness.plan import not_offered
    from benchmarks.names import PATTERNS
    from benchmarks.tasks.variants import variants_of

    candidates = [*PATTERNS, *variants_of(family)]
    skipped = not_offered(family, candidates)  # an agent-like design too (benchmarks.harness.drawn_check)
    own = ["agent", *(p for p in candidates if p != "agent" and p not in skipped)]
    return own + [d for d in extra if d not in own]


def audit_family(family: Any, designs: list[str], knobs: dict[str, Any], instances: int = 4,
                 seed: int = 0) -> Audit:
    """The charge table of one family's designs at the model's `knobs` (error_rate must be > 0)."""
    from benchmarks.tasks.base import task_label

    error_rate = float(knobs.get("error_rate", 0.0))
    if error_rate <= 0:
        raise ValueError("wva audit measures the odds charged: the model's error_rate must be above 0")
    checker = knobs.get("checker_error_rate")
    log = asyncio.run(record(family, designs, knobs, instances, seed))
    prompts = {i.id: i.prompt for i in family.instances(instances, seed)}
    rows = charges(log, error_rate, error_rate if checker is None else float(checker),
                   float(getattr(family, "crowding", CROWDING)), instances, instructions(log, prompts))
    return verdict(task_label(family), rows, intended(family))
