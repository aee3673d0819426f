"""A sweep that stops once it has decided: the group-sequential design behind `--until-decided`.

A task runs its instances in batches; after each batch (a *look*) the verdict is computed on every
instance so far, and the task stops when the verdict is decided (anything but `inconclusive`) or the
most instances allowed have run. Looking repeatedly would inflate the error, so each of the rule's
one-sided tests spends its own budget over the looks (`benchmarks.criterion.spending`, O'Brien–Fleming-type by
default, whose equivalence leg spends by the power family α t^6, keeping its budget for the late
looks): the success leg 1.25% per direction, non-inferiority and equivalence 5% per bound, the cost leg
2.5%, net value 2.5% per direction — the fixed design's budgets (`benchmarks.criterion.bounds`), so a wrong winner
stays at most 5% whatever look the run stops at. At look k each test reads its interval at the level
its boundary sets (a stricter one early), through the same code as the criterion (`benchmarks.criterion.deciding`).

The boundaries depend on the information fractions of the looks (instances so far / the maximum). The
planned looks are every `batch` instances; a look taken at another count uses its own fraction (the
spending approach allows it), the earlier looks their planned ones.

For the bench: `design(batch, max_instances)`, then after each batch `decide_at_look(design, look, runs)`
with the task's runs so far; stop the task when `Decision.stop`; put `Decision.record()` in the manifest;
`stopped_at(records)` and `look_text` say at which look each task stopped. The manifest keeps them under `KEY`
(`benchmarks.studies.until_decided`), where the criterion finds the levels to read each task at
(`benchmarks.criterion.read.stopping_levels`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from benchmarks.criterion.bounds import Levels
from benchmarks.criterion.deciding import MODES, decide_task
from benchmarks.criterion.read import LOOKS as KEY
from benchmarks.criterion.spending import SPENDING, boundaries, level
from benchmarks.criterion.verdict import DEFAULTS, Options

__all__ = ["KEY", "Decision", "Design", "decide_at_look", "design", "look_text", "stopped_at"]
BUDGETS = {"win": 0.0125, "eq": 0.05, "cost": 0.025, "value": 0.025}  # one-sided, as the fixed design's
EQ_SPENDING = "power"  # obf's equivalence leg: it cannot be shown early, its budget is kept late (spending.py)


@dataclass(frozen=True)
class Design:
    batch: int  # instances added at each look
    max_instances: int  # the most a task may run
    spending: str = "obf"

    @property
    def looks(self) -> tuple[int, ...]:
        """Instances at each planned look: every batch, and the maximum last."""
        return (*range(self.batch, self.max_instances, self.batch), self.max_instances)

    def levels(self, look: int, instances: int | None = None) -> Levels:
        """The interval levels at look `look` (1-based), with `instances` so far (default: as planned)."""
        planned = self.looks
        if not 1 <= look <= len(planned):
            raise ValueError(f"look must be from 1 to {len(planned)}, not {look}")
        now = planned[look - 1] if instances is None else min(max(instances, 1), self.max_instances)
        fractions = (*(n / self.max_instances for n in planned[:look - 1]), now / self.max_instances)
        if len(fractions) > 1 and fractions[-1] <= fractions[-2]:  # fewer than planned: just past the last look
            fractions = (*fractions[:-1], min(1.0, fractions[-2] + 1e-6))
        eq = EQ_SPENDING if self.spending == "obf" else self.spending  # pocock: early stops on every leg
        z = {k: boundaries(fractions, a, eq if k == "eq" else self.spending)[-1] for k, a in BUDGETS.items()}
        return Levels(**{k: level(v) for k, v in z.items()})


def design(batch: int, max_instances: int, spending: str = "obf") -> Design:
    """A checked design (ValueError naming the option otherwise)."""
    if not (isinstance(batch, int) and batch >= 5):
        raise ValueError(f"the batch must be at least 5 instances (a bootstrap needs them), not {batch!r}")
    if not (isinstance(max_instances, int) and max_instances >= batch):
        raise ValueError(f"--max-instances must be at least the batch ({batch}), not {max_instances!r}")
    if spending not in SPENDING:
        raise ValueError(f"spending must be one of {', '.join(SPENDING)}, not {spending!r}")
    return Design(batch, max_instances, spending)


@dataclass(frozen=True)
class Decision:
    task: str
    look: int  # 1-based
    looks: int  # planned looks in all
    instances: int  # instances the agent ran so far
    stop: bool  # decided, or the last look
    verdict: str
    comparator: str
    comparator_mode: str
    reason: str
    levels: Levels

    def record(self) -> dict[str, object]:
        """What the manifest keeps per look (JSON-ready)."""
        return asdict(self)


def decide_at_look(d: Design, look: int, runs: pd.DataFrame, task: str = "", declared: str | None = None,
                   options: Options = DEFAULTS, seed: int = 0) -> Decision:
    """The verdict at look `look` on one task's runs so far (every pattern's), and whether to stop."""
    flows = sorted(set(runs["pattern"]) - {"agent"})
    if "agent" not in set(runs["pattern"]) or not flows:
        raise ValueError(f"task {task or '?'}: a look needs agent and workflow runs")
    instances = int(runs.loc[runs["pattern"] == "agent", "instance"].nunique())
    levels = d.levels(look, instances)
    decided = decide_task(runs, flows, declared, options, seed, levels)
    v = decided.verdict
    stop = v.verdict != "inconclusive" or look >= len(d.looks) or instances >= d.max_instances
    return Decision(task, look, len(d.looks), instances, stop, v.verdict, v.comparator, MODES[decided.mode],
                    v.reason, levels)


def stopped_at(records: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    """Per task, its last record: the look it stopped at (or the last look it has run so far)."""
    last: dict[str, dict[str, object]] = {}
    for r in records:
        last[str(r["task"])] = r
    return last


def look_text(r: dict[str, object]) -> str:
    """e.g. "multihop: agent at look 2 of 5 (40 instances), stopped early"."""
    early = int(r["look"]) < int(r["looks"])  # type: ignore[call-overload]
    state = ("stopped early" if early else "at the last look") if r["stop"] else "still running"
    return f"{r['task']}: {r['verdict']} at look {r['look']} of {r['looks']} ({r['instances']} instances), {state}"
