"""`wva audit`: is the simulator fair to every design of these tasks? The symmetry probe, per family."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from benchmarks.cli._common import UsageError, model_spec, positive_int
from benchmarks.names import DEFAULT_MODEL, DEFAULT_TASKS


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from benchmarks.cli._common import task_list

    p: argparse.ArgumentParser = subparsers.add_parser(
        "audit", help="check that the simulator charges every design of a task the same odds for the same decision",
        description="For each task, run the agent and every workflow design (each pattern, each named variant, "
        "and --designs of yours) on the same instances with a recording decider, and print per decision kind and "
        "design: how often it is made, the odds charged after every knob (context decay, crowding), the share "
        "repeated under one key (correlated), an example key and the instruction that asked for it. Then the "
        "framing probe: every request sent as an agent turn and as a workflow step. Exit 1 if a decision's odds "
        "differ between designs by more than the documented knobs explain (tolerance 0.01, unless the family's "
        "'Intended differences' table declares it), or if a framing is treated differently. Then the bounds "
        "check: the agent and every design run once on each of --bounds-instances instances under the run's "
        "limits; exit 1 if the declared comparator (or a design of --designs) ends at its own bound (a loop that "
        "ran every round, the step limit) more often than the agent ends at its limit, by more than 2 points.")
    p.add_argument("tasks", nargs="?", type=task_list, default=DEFAULT_TASKS, metavar="TASKS",
                   help="task specs as for 'wva bench --tasks' (default: the five built-in families)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"the simulated model whose knobs the second probe uses (default: {DEFAULT_MODEL})")
    p.add_argument("--instances", type=positive_int, default=4, metavar="N",
                   help="instances whose requests are probed (default: 4)")
    p.add_argument("--samples", type=positive_int, default=16, metavar="K",
                   help="samples of each framing per request at the model's knobs (default: 16)")
    p.add_argument("--bounds-instances", type=positive_int, default=60, metavar="N",
                   help="instances of the bounds check, one trial of each design on each (default: 60)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default: 0)")
    p.add_argument("--designs", type=_designs, default=(), metavar="LIST",
                   help="more designs to audit beside the family's own: pattern:variant or file.py:function")
    return p


def _designs(text: str) -> tuple[str, ...]:
    from benchmarks.tasks.variants import check_name

    try:
        return tuple(check_name(t.strip()) for t in text.split(",") if t.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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


def charge_table(audit: Any) -> str:
    """The charge table: a block per decision kind, a line per design."""
    head = (f"  {'decision':<20} {'design':<20} {'made':>5} {'odds':>6} {'decay':>6} {'k':>5} {'residual':>8} "
            f"{'repeats':>7}  key / instruction")
    lines, last = [head], ""
    for c in audit.charges:
        kind = c.kind if c.kind != last else ""
        last = c.kind
        lines.append(f"  {kind:<20} {c.design:<20} {c.made:>5.2f} {c.odds:>6.3f} {c.decay:>6.3f} {c.crowd:>5.2f} "
                     f"{c.residual:>8.3f} {c.repeats:>7.2f}  {c.key[:36]} / {c.instruction[:48]}")
    return "\n".join(lines)


def _charges(family: Any, args: argparse.Namespace, knobs: dict[str, Any]) -> list[str]:
    """Print the family's charge table; the decisions it fails."""
    from benchmarks.studies.charges import audit_family, designs_of

    try:
        audit = audit_family(family, designs_of(family, args.designs), {**knobs, "error_rate": knobs.get(
            "error_rate", 0.1)}, instances=args.instances, seed=args.seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _print_check(f"{audit.family}: what each decision is charged, per design (made: per instance; odds after "
                 "every knob; decay: context_decay's factor; k: decisions in the reply, crowding applied identically "
                 "to every design; residual: odds over what the knobs explain)", charge_table(audit),
                 {"declared": audit.declared, "UNEXPLAINED": audit.failed})
    return audit.failed


def bounds_table(check: Any) -> str:
    """The bounds check of one family: a line per design, the agent first."""
    lines = [f"  {'design':<20} {'trials':>6} {'at bound':>8} {'share':>7}  bounds that ended them"]
    for row in (check.agent, *check.designs):
        ended = "; ".join(f"{b} ×{n}" for b, n in row.bounds) or "—"
        lines.append(f"  {row.design:<20} {row.trials:>6} {row.at_bound:>8} {row.share:>7.1%}  {ended}")
    return "\n".join(lines)


def _bounds(family: Any, args: argparse.Namespace, knobs: dict[str, Any]) -> list[str]:
    """Print the family's bounds check; the designs it fails."""
    from benchmarks.studies.bounds import check_bounds
    from benchmarks.studies.charges import designs_of

    declared = getattr(family, "natural_workflow", None)
    checked = ({declared} if declared else set()) | set(args.designs)
    check = check_bounds(family, designs_of(family, args.designs), knobs, instances=args.bounds_instances,
                         seed=args.seed, checked=checked or None)
    _print_check(f"{check.family}: how often each design ends at its own bound (a loop that ran every round, the "
                 "step limit); the agent, at its limit (the step limit, or a bound it shares with a design's loop)",
                 bounds_table(check), {"short (not a declared comparator)": check.short, "SHORT BOUND": check.failed})
    return list(check.failed)


def _print_check(heading: str, table: str, notes: dict[str, Iterable[str]]) -> None:
    """Print one check of a family: its heading, its table, then each labelled group of lines in order."""
    print(heading)
    print(table)
    for label, lines in notes.items():
        for line in lines:
            print(f"  {label}: {line}")


def run(args: argparse.Namespace) -> int:
    from benchmarks.studies.audit import capability_table, probe
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.registry import load_task

    knobs = _knobs(args.model)
    try:
        families = [load_task(spec) for spec in args.tasks]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    unfair, uneven, short = [], [], []
    for family in families:
        label = task_label(family)
        if failed := _charges(family, args, knobs):
            uneven += [f"{label} {line.split(':', 1)[0]}" for line in failed]
        short += _bounds(family, args, knobs)
        rows = probe(family, knobs=knobs, instances=args.instances, samples=args.samples, seed=args.seed)
        print(f"{label}: mean per request, the same content framed as an agent turn and as a workflow step")
        print(table(rows))
        print("\n" + capability_table(family) + "\n")
        if not all(r.symmetric for r in rows):
            unfair.append(label)
    if uneven:
        print(f"unexplained odds: {', '.join(uneven)} (a decision charged other odds by who asks, beyond the "
              "documented knobs)")
    if unfair:
        print(f"asymmetric: {', '.join(unfair)} (the policy treats the same request differently by where its "
              "instructions sit)")
    if short:
        print("short bounds: " + "; ".join(line.split(" (more than", 1)[0] for line in short))
    if uneven or unfair or short:
        return 1
    print(f"every task is charged and treated the same way whichever design sends the request, and no declared "
          f"comparator is bounded below the agent ({len(families)} checked)")
    return 0
