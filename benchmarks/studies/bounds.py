"""`wva audit`'s bounds check: may every design spend what the agent may?

Bounds are equal when a design may spend at least the rounds, decisions and calls the agent may (voted walks
each their own). Measured, not read off the code: the agent and every design the family offers run on the same
instances at the model's knobs, under the limits `wva bench` gives every trial (the agent's step limit), and each
trial is classed by how it ended:
- the agent *at its limit*: the run's step limit stopped it (`max_steps`), or it used up a bound it shares with a
  design's loop: a family's `shared_bounds` (`{"checks": ("check_format", 4)}`: the simulated model checks its
  line at most 4 times, and the declared loop `checks` runs at most 4 rounds) counts the agent at that bound
  when it called the tool that many times;
- a workflow *at its own bound*: a bounded loop ran every round it may (`Loop`; an `EvaluateOptimize` that never
  accepted), or the run's step limit stopped it.
A checked design (the family's declared comparator, and any design the caller names) that ends at its own bound
more often than the agent ends at its limit, by more than `MARGIN` (2 points), fails, named with the bound: its
bound, not its graph, ended trials the agent could have gone on with. The family's other designs are measured
and reported the same way (`short`), without failing: a textbook design kept for comparison may be bounded as
the textbook draws it.
The shares are of trials (one per instance), on the seed's instances: the check is a measurement of this sample,
so a design near the line may pass at one seed and fail at another; its bound is then worth raising anyway.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patterns.events import Kind
from patterns.limits import Limits
from patterns.result import Result, Terminal
from patterns.sim import SimModel
from patterns.workflows import arun_workflow

MARGIN = 0.02  # a design may end at its own bound this much more often than the agent ends at its limit
_ROUNDS = re.compile(r"≤(\d+) rounds")


@dataclass(frozen=True)
class BoundRow:
    """One design on one family: how many trials ended at its own bound, and which bounds ended them."""

    design: str
    trials: int
    at_bound: int
    bounds: tuple[tuple[str, int], ...]  # (the bound, as "walk (≤18 rounds)", trials it ended), most first

    @property
    def share(self) -> float:
        return self.at_bound / self.trials if self.trials else 0.0


@dataclass(frozen=True)
class BoundsCheck:
    family: str
    agent: BoundRow
    designs: tuple[BoundRow, ...]
    failed: tuple[str, ...]  # one line per checked design that fails, naming it and its bound
    short: tuple[str, ...]  # the same line for the other designs (reported, not failed)


def loop_bounds(spec: Any) -> dict[str, str]:
    """Each bounded loop of a design's graph by its exit node's name: "walk.until" -> "walk (≤49 rounds)"
    (an evaluator-optimizer's is "<name>.verdict")."""
    graph = getattr(spec, "graph", None)
    out: dict[str, str] = {}
    for n, label in (graph.nodes(data="label") if graph is not None else ()):
        found = _ROUNDS.search(str(label or ""))
        if found and n.endswith((".until", ".verdict")):
            exit_node = n.rsplit(":", 1)[-1]
            out[exit_node] = f"{exit_node.rsplit('.', 1)[0]} (≤{found.group(1)} rounds)"
    return out


def ended_by(result: Result, loops: dict[str, str], limits: Limits) -> list[str]:
    """The bounds that ended a run: its loops that ran every round, the step limit; none if it ended on its own."""
    bounds = [loops.get(f"{name}.until", f"{name} (its rounds)")
              for name in dict.fromkeys(result.extra.get("loop_exhausted", []))]
    if result.extra.get("accepted") is False:  # an evaluator-optimizer that never accepted ran every round
        bounds += [b for n, b in loops.items() if n.endswith(".verdict")][:1] or ["evaluate (its rounds)"]
    if result.terminal is Terminal.MAX_STEPS:
        bounds.append(f"the step limit ({result.detail or f'max_steps={limits.max_steps}'})")
    return bounds


def agent_at_limit(result: Result, shared: dict[str, tuple[str, int]]) -> list[str]:
    """The limits that ended the agent's run: the step limit, a bound it shares with a design's loop."""
    bounds = ["the step limit"] if result.terminal is Terminal.MAX_STEPS else []
    for loop, (tool, most) in shared.items():
        calls = sum(1 for e in result.events if e.kind is Kind.TOOL_CALL and e.name == tool)
        if calls >= most:
            bounds.append(f"{most} {tool} calls (the bound {loop} shares)")
    return bounds


async def _measure(family: Any, pattern: str, instances: list[Any], base: SimModel, limits: Limits) -> BoundRow:
    from benchmarks.tasks.variants import design_for

    hit: Counter[str] = Counter()
    at_bound = 0
    for instance in instances:
        with tempfile.TemporaryDirectory(prefix="wva-bounds-") as workdir:
            env = family.environment(instance, Path(workdir))
            design = design_for(family, pattern, env)
            result = await arun_workflow(design, base.fork(f"bounds|{instance.id}|{pattern}"), instance.prompt,
                                         limits=limits)
        bounds = (agent_at_limit(result, getattr(family, "shared_bounds", {})) if pattern == "agent"
                  else ended_by(result, loop_bounds(design), limits))
        at_bound += bool(bounds)
        hit.update(dict.fromkeys(bounds, 1))
    return BoundRow(pattern, len(instances), at_bound, tuple(hit.most_common()))


def _line(family: str, row: BoundRow, agent: BoundRow, margin: float) -> str:
    return (f"{family} {row.design}: ends at its own bound, {row.bounds[0][0]}, in {row.share:.1%} of trials; the "
            f"agent at its limit in {agent.share:.1%} (more than {margin * 100:.0f} points apart): give it at least "
            "the agent's budget")


def verdict(family: str, agent: BoundRow, designs: list[BoundRow], checked: set[str],
            margin: float = MARGIN) -> BoundsCheck:
    over = [row for row in designs if row.at_bound and row.share > agent.share + margin + 1e-12]
    return BoundsCheck(family, agent, tuple(designs), tuple(_line(family, r, agent, margin) for r in over
                                                            if r.design in checked),
                       tuple(_line(family, r, agent, margin) for r in over if r.design not in checked))


def check_bounds(family: Any, designs: list[str], knobs: dict[str, Any], instances: int = 60, seed: int = 0,
                 checked: set[str] | None = None, limits: Limits | None = None) -> BoundsCheck:
    """The bounds check of one family: the agent and each of `designs` on `instances` instances, one trial each.
    `checked`: the designs that fail the check (default: the family's declared comparator, else every design)."""
    from benchmarks.tasks.base import task_label

    limits = limits or Limits()  # what `wva bench` gives every trial
    chosen = family.instances(instances, seed)
    base = SimModel(family.policy(), seed=seed, **knobs)
    declared = getattr(family, "natural_workflow", None)
    checked = checked if checked is not None else ({declared} if declared else set(designs))

    async def every() -> list[BoundRow]:
        return [await _measure(family, d, chosen, base, limits) for d in ["agent", *(d for d in designs
                                                                                     if d != "agent")]]

    agent, *rest = asyncio.run(every())
    return verdict(task_label(family), agent, rest, checked)
