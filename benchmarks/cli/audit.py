"""`wva audit`: is the simulator fair to every design of these tasks? The symmetry probe, per family."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.cli._common import UsageError, model_spec, positive_int
from benchmarks.names import DEFAULT_MODEL, DEFAULT_TASKS


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from benchmarks.cli._common import task_list

    p: argparse.ArgumentParser = subparsers.add_parser(
        "audit", help="check that the simulator treats the same request the same way whichever design sends it",
        description="For each task, send every request its designs make twice with the same content: framed as an "
        "agent turn (instructions in the system prompt) and as a workflow step (the same instructions at the top "
        "of the prompt). Print the decisions, judgements and tool calls the simulated model made in each framing, "
        "at error_rate=0 with checker_error_rate=1 (every self-check shows) and at the model's knobs, and the "
        "family's capability table. Exit 1 if any task is treated differently.")
    p.add_argument("tasks", nargs="?", type=task_list, default=DEFAULT_TASKS, metavar="TASKS",
                   help="task specs as for 'wva bench --tasks' (default: the five built-in families)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"the simulated model whose knobs the second probe uses (default: {DEFAULT_MODEL})")
    p.add_argument("--instances", type=positive_int, default=4, metavar="N",
                   help="instances whose requests are probed (default: 4)")
    p.add_argument("--samples", type=positive_int, default=16, metavar="K",
                   help="samples of each framing per request at the model's knobs (default: 16)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default: 0)")
    return p


def _knobs(spec: str) -> dict[str, Any]:
    from patterns.sim.knobs import parse_knobs

    head, _, rest = spec.partition(":")
    if head != "sim":
        raise UsageError(f"wva audit probes the simulator: --model must be sim[:knob=value,...], not {spec!r}")
    raw = dict(item.split("=", 1) for item in rest.split(",") if item)
    knobs = parse_knobs(raw)
    knobs.pop("seed", None)
    return knobs


def table(rows: list[Any]) -> str:
    head = f"  {'probe':<8} {'requests':>8} {'framing':<7} {'decisions':>10} {'judgements':>11} {'tool calls':>11}"
    lines = [head]
    for r in rows:
        for framing, means in (("agent", r.agent), ("step", r.step)):
            lead = f"  {r.setting:<8} {r.requests:>8}" if framing == "agent" else " " * 19
            verdict = ("  same" if r.symmetric else "  DIFFERENT") if framing == "step" else ""
            lines.append(f"{lead} {framing:<7} {means['decisions']:>10.3f} {means['judgements']:>11.3f} "
                         f"{means['tool_calls']:>11.3f}{verdict}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from benchmarks.studies.audit import capability_table, probe
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.registry import load_task

    knobs = _knobs(args.model)
    try:
        families = [load_task(spec) for spec in args.tasks]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    unfair = []
    for family in families:
        label = task_label(family)
        rows = probe(family, knobs=knobs, instances=args.instances, samples=args.samples, seed=args.seed)
        print(f"{label}: mean per request, the same content framed as an agent turn and as a workflow step")
        print(table(rows))
        print("\n" + capability_table(family) + "\n")
        if not all(r.symmetric for r in rows):
            unfair.append(label)
    if unfair:
        print(f"asymmetric: {', '.join(unfair)} (the policy treats the same request differently by where its "
              "instructions sit)")
        return 1
    print(f"every task is treated the same way whichever design sends the request ({len(families)} checked)")
    return 0
