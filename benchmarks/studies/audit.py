"""`wva audit`: is the simulator fair to every design of a task? The symmetry probe, per family.

A `SimModel` policy must decide from what a request says (its instructions, the tools offered, the
conversation), never from which pattern sent it. An agent carries its instructions in the system
prompt; a workflow step carries them in its prompt. So the probe takes every request the family's
designs really send (the agent's turns and every workflow step, recorded on a few instances) and
sends each one twice with the same content, framed two ways:

- **agent-framed**: as it was sent, the instructions in the system prompt;
- **step-framed**: the system prompt moved to the top of the first user turn, as a workflow step
  that asks for the same thing would put it (nothing else changes: the tools, the conversation).

Each framing is sampled on the same trial streams, and the probe counts what the policy did: the
decisions it made, the judgements among them, and the tool calls its reply asks for. A fair policy
makes the same counts in both framings: exactly at `error_rate=0` with `checker_error_rate=1` (every
decision right, every judgement a wrong doubt, so every self-check path shows), and within sampling
error at the model's defaults. A difference means the policy keys a capability on where an
instruction sits (or on a hint only one design's prompt carries): the comparison it feeds is not fair.

The probe is data; `benchmarks/cli/audit.py` prints it with each family's capability table (the
"Capabilities" section of its docstring).
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any

from patterns.limits import Limits
from patterns.options import RequestOptions
from patterns.sim import SimModel
from patterns.workflows import arun_workflow

STRICT = {"error_rate": 0.0, "checker_error_rate": 1.0}  # every decision right, every judgement a wrong doubt
MEASURES = ("decisions", "judgements", "tool_calls")
Z_LIMIT = 3.29  # a two-sided 0.001 test per measure: many are run, and a false alarm must be rare
MIN_GAP = 0.02  # ... and a difference smaller than this per request is not worth flagging


@dataclass(frozen=True)
class Count:
    decisions: int
    judgements: int
    tool_calls: int


@dataclass(frozen=True)
class Row:
    """One setting's probe of one family: mean counts per request in each framing, and the verdict."""

    setting: str  # "strict" (error_rate=0, checker_error_rate=1) or "default" (the model's knobs)
    requests: int  # distinct requests probed
    samples: int  # samples of each framing per request
    agent: dict[str, float]  # mean per request, agent-framed
    step: dict[str, float]  # mean per request, step-framed
    z: dict[str, float]  # the paired difference's z (0 when there is no spread)
    symmetric: bool


def step_framed(params: dict[str, Any]) -> dict[str, Any]:
    """The same request with its system prompt moved to the top of the first user turn."""
    system = params.get("system") or ""
    if not isinstance(system, str):
        system = "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    messages = [dict(m) for m in params["messages"]]
    if not system.strip() or not messages:
        return dict(params)
    first = messages[0]
    content = first.get("content", "")
    if isinstance(content, str):
        first["content"] = f"{system}\n\n{content}"
    else:
        first["content"] = [{"type": "text", "text": system}, *content]
    out = {k: v for k, v in params.items() if k != "system"}
    out["messages"] = messages
    return out


class _Recorder:
    """A model that records every request it forwards (the probe's requests are the designs' own)."""

    def __init__(self, inner: Any, into: list[dict[str, Any]]) -> None:
        self.inner = inner
        self._into = into

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def create(self, **params: Any) -> Any:
        self._into.append({**params, "messages": list(params["messages"])})
        return await self.inner.create(**params)


async def _collect(family: Any, base: SimModel, instances: int, seed: int) -> list[dict[str, Any]]:
    """Every request the family's designs send on `instances` instances (no prompt caching: content only)."""
    import tempfile
    from pathlib import Path

    from benchmarks.studies.charges import designs_of
    from benchmarks.tasks.variants import design_for

    requests: list[dict[str, Any]] = []
    for instance in family.instances(instances, seed):
        for pattern in designs_of(family):  # the agent, every pattern offered, every named variant
            with tempfile.TemporaryDirectory(prefix="wva-audit-") as workdir:
                env = family.environment(instance, Path(workdir))
                model = _Recorder(base.fork(f"collect|{instance.id}|{pattern}"), requests)
                await arun_workflow(design_for(family, pattern, env), model, instance.prompt,
                                    limits=Limits(max_steps=40), options=RequestOptions(prompt_cache=False))
    return requests


async def _count(base: SimModel, stream: str, params: dict[str, Any]) -> Count | None:
    model = base.fork(stream)
    try:
        reply = await model.create(**params)
    except Exception:  # a request the wire refuses in one framing is a difference the counts show as None
        return None
    uses = sum(1 for b in reply.content if b.type == "tool_use")
    return Count(model.decisions, model.judgements, uses)


def _z(diffs: list[float]) -> float:
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    se = math.sqrt(var / n)
    return 0.0 if se == 0 else mean / se


async def _probe_setting(family: Any, setting: str, knobs: dict[str, Any], *, instances: int, samples: int,
                         seed: int) -> Row:
    base = SimModel(family.policy(), seed=seed, **knobs)
    requests = await _collect(family, base, instances, seed)
    sums = {"agent": dict.fromkeys(MEASURES, 0.0), "step": dict.fromkeys(MEASURES, 0.0)}
    diffs: dict[str, list[float]] = {m: [] for m in MEASURES}
    exact = True
    for i, params in enumerate(requests):
        per: dict[str, list[Count | None]] = {"agent": [], "step": []}
        for r in range(samples):
            stream = f"probe|{i}|{r}"
            per["agent"].append(await _count(base, stream, params))
            per["step"].append(await _count(base, stream, step_framed(params)))
        if [c is None for c in per["agent"]] != [c is None for c in per["step"]]:
            exact = False
        pairs = [(a, b) for a, b in zip(per["agent"], per["step"], strict=True) if a and b]
        for m in MEASURES:
            for f, cs in per.items():
                kept = [getattr(c, m) for c in cs if c]
                sums[f][m] += sum(kept) / max(1, len(kept))
            # every (request, stream) pair is independent of the others: one paired observation each
            diffs[m] += [getattr(a, m) - getattr(b, m) for a, b in pairs]
    n = max(1, len(requests))
    z = {m: _z(d) if d else 0.0 for m, d in diffs.items()}
    gap = {m: abs(sum(d) / max(1, len(d))) for m, d in diffs.items()}
    if setting == "strict":
        symmetric = exact and all(all(x == 0 for x in d) for d in diffs.values())
    else:
        symmetric = exact and all(abs(z[m]) <= Z_LIMIT or gap[m] <= MIN_GAP for m in MEASURES)
    return Row(setting, len(requests), samples, {m: v / n for m, v in sums["agent"].items()},
               {m: v / n for m, v in sums["step"].items()}, z, symmetric)


def probe(family: Any, *, knobs: dict[str, Any] | None = None, instances: int = 3, samples: int = 8,
          seed: int = 0) -> list[Row]:
    """The symmetry probe of one family: a strict row (deterministic) and a row at `knobs` (the model's)."""
    default = dict(knobs or {})

    async def both() -> list[Row]:
        return [await _probe_setting(family, "strict", {**default, **STRICT}, instances=instances, samples=1,
                                     seed=seed),
                await _probe_setting(family, "default", default, instances=instances, samples=samples, seed=seed)]

    return asyncio.run(both())


def capability_table(family: Any) -> str:
    """The "Capabilities" section of the family's docstring (class, else module): its heading line and the
    Markdown table that follows it; a note when the family has none."""
    import inspect

    for doc in (inspect.getdoc(type(family)), inspect.getdoc(inspect.getmodule(type(family)))):
        lines = (doc or "").splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("Capabilities")), None)
        if start is None:
            continue
        rows = lines[start + 1:]
        while rows and not rows[0].strip():
            rows = rows[1:]
        table = [line for line in _leading(rows, lambda line: line.startswith("|"))]
        return "\n".join([lines[start], *table])
    return "(no Capabilities section in the family's docstring)"


def _leading(lines: list[str], keep: Any) -> list[str]:
    out = []
    for line in lines:
        if not keep(line):
            break
        out.append(line)
    return out
