"""The default `wva bench`'s second phase: each task's agent against its declared workflow, run on until the
verdict is decided, in the results folder's `decided/` sub-folder (docs/stopping-early.md, "The default run").

**Why a sub-folder.** The pilot (the folder itself) runs every design on the same instances, the figures every
chart and the selected comparator read. Only the verdict's two designs need more instances, and a results
folder holds one plan (each task's designs on the same instances), so they grow in a folder of their own: the
same model, seed and trials, one task's agent and declared workflow each (`BenchConfig.patterns_by_task`), run
look by look by `benchmarks.studies.until_decided` under O'Brien-Fleming spending, up to the cap. The seeded
instances are the pilot's first ones and then new ones, and a trial's run id fixes its outcome, so its first
trials are the pilot's own, run again (a few seconds) rather than copied across folders. `wva criterion DIR`
reads each task's agent and declared workflow from `decided/` at the levels of the look it stopped at
(`benchmarks.criterion.decided_runs`); everything else (the other designs, drawability, the drawn phase) is
the pilot's.

**The manifest.** `decided/manifest.json` records the design and every look (`until_decided`), as any
sequential folder does, and the folder's own manifest gets the same under `decided` (the cap, the batch, the
spending and each task's looks), so the run says how it was decided where a reader looks first.

Tasks without a declared workflow (a task file without `[workflow]`) and tasks whose verdict is withheld (a
task file on the simulator) have nothing to decide here: they keep the pilot's reading.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from benchmarks.criterion.sequential import Design, design
from benchmarks.criterion.verdict import Options
from benchmarks.harness.config import BenchConfig
from benchmarks.harness.manifest import read_manifest
from benchmarks.harness.outputs import write_manifest
from benchmarks.names import DECIDED
from benchmarks.tasks.base import task_label
from benchmarks.tasks.dataset import sim_warning
from benchmarks.tasks.registry import load_task

KEY = "decided"  # the folder manifest's record of the decided phase


@dataclass(frozen=True)
class Phase:
    """The decided phase of a folder: its sweep's config, its design, and the tasks it leaves to the pilot."""

    config: BenchConfig | None  # None: no task has a declared workflow to run on
    design: Design
    left: tuple[str, ...]  # tasks read from the pilot alone, each with why


def phase(pilot: BenchConfig, cap: int, batch: int, spending: str = "obf") -> Phase:
    """The decided phase of `pilot`'s folder (a ValueError for a bad cap or batch)."""
    d = design(batch, cap, spending)
    by_task, left = [], []
    for spec in pilot.tasks:
        family = load_task(spec)
        label, declared = task_label(family), getattr(family, "natural_workflow", None)
        if sim_warning(pilot.model, [family]):
            left.append(f"{label}: a task file on the simulator, whose verdict is withheld")
        elif declared is None or declared not in pilot.patterns or "agent" not in pilot.patterns:
            left.append(f"{label}: no declared workflow among --patterns to decide against")
        else:
            by_task.append((spec, label, declared))
    if not by_task:
        return Phase(None, d, tuple(left))
    patterns = tuple(p for p in pilot.patterns if p == "agent" or any(p == x for *_, x in by_task))
    config = replace(pilot, out=pilot.out / DECIDED, tasks=tuple(s for s, *_ in by_task), patterns=patterns,
                     instances=cap, instances_by_task=(),
                     patterns_by_task=tuple((label, ("agent", x)) for _, label, x in by_task))
    return Phase(config, d, tuple(left))


async def run_decided(p: Phase, options: Options, run: Callable[..., Any], **hooks: Callable[..., Any] | None) -> Any:
    """Run the phase and record it in the pilot folder's manifest: the `UntilDecided` of `run` (the study's
    `run_until_decided`, given by the caller as `benchmarks.studies.drawn` is given `run_bench`: it keeps this
    module off the longest chain of imports; hooks: its callbacks), None when there is nothing to decide. The
    verdict options are the declared comparator's (what criterion.csv reads)."""
    if p.config is None:
        return None
    declared = replace(options, comparator=None)
    result = await run(p.config, p.design, declared, **hooks)
    record(p, result)
    return result


def record(p: Phase, result: Any) -> None:
    """The pilot folder's manifest gets the phase under `decided` (not a compared setting: a resume still holds)."""
    assert p.config is not None
    pilot = p.config.out.parent
    doc = read_manifest(pilot)
    if doc is None:
        return
    entry = {"folder": DECIDED, "cap": p.design.max_instances, "batch": p.design.batch,
             "spending": p.design.spending, "comparator": "declared", "left_to_the_pilot": list(p.left),
             "looks": [dict(r) for r in result.records]}
    if doc.get(KEY) != entry:
        write_manifest(pilot, {**doc, KEY: entry})
