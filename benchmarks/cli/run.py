"""`wva run PATTERN TASK`: one pattern on one task instance, shown in full."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.cli._common import (
    PROMPT_CACHE_HELP,
    CommandFailed,
    UsageError,
    add_prices_option,
    apply_prices,
    build_model,
    model_spec,
    nonneg_int,
    on_off,
)
from benchmarks.names import DEFAULT_MODEL


def design_name(text: str) -> str:
    from benchmarks.tasks.variants import check_name

    try:
        return check_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from benchmarks.names import PATTERNS

    p: argparse.ArgumentParser = subparsers.add_parser(
        "run", help="run one pattern on one task instance and show what happened",
        description="Run one pattern on one instance of a task; print the terminal reason, output, steps, "
        "tool calls, tokens, cost and modelled latency (or the whole Result as JSON).")
    p.add_argument("pattern", type=design_name, metavar="PATTERN",
                   help=f"one of: {', '.join(PATTERNS)}; or pattern:variant (route:ladder), or file.py:function")
    p.add_argument("task", metavar="TASK", help="a task spec: NAME[:key=value,...] ('wva tasks' lists them)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"model spec (default: {DEFAULT_MODEL}; 'wva models' lists the forms)")
    p.add_argument("--grader-model", type=model_spec, default=None, metavar="SPEC",
                   help="the model that grades a task file's model:<rubric> scorer (default: --model)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed (default: 0)")
    p.add_argument("--instance", type=nonneg_int, default=0, metavar="I", help="instance index (default: 0)")
    p.add_argument("--prompt-cache", type=on_off, default=True, metavar="on|off", help=PROMPT_CACHE_HELP)
    add_prices_option(p)
    p.add_argument("--json", action="store_true", help="print the Result as one JSON document")
    return p


def run(args: argparse.Namespace) -> int:
    import sys

    from benchmarks.cli._tables import fmt_cost
    from benchmarks.harness.preflight import preflight
    from benchmarks.harness.trial import TrialSpec, trial_model, uncached_cost
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.dataset import sim_warning
    from patterns.options import on_off as on_off_text

    apply_prices(args)
    family, instance = _task_and_instance(args)
    if warning := sim_warning(args.model, [family]):
        print(f"wva: warning: {warning}", file=sys.stderr)
    # The trial's stream is keyed by the task's label (name + non-default parameters), as a sweep keys it, never
    # by the spec as typed: the same task file gives the same run from any folder or checkout, and `wva run`
    # replays trial 0 of the sweep's instance (a simulated model's outcome once hung on the file's absolute path).
    spec = TrialSpec(args.pattern, task_label(family), family, instance, 0, args.model, args.seed)
    model = trial_model(build_model(args.model), spec, family.policy())
    grader = model if args.grader_model is None else trial_model(build_model(args.grader_model), spec, family.policy())

    async def one() -> tuple[Any, float, Any]:
        await preflight(model, args.model)  # a paid model: a missing or rejected key is one line, not a traceback
        return await _trial(args, family, instance, model, grader)

    result, score, graded = _run_checked(one)
    grader_cost = graded.cost_usd if graded is not None else None
    if args.json:
        from benchmarks.cli.json_out import emit, schema

        emit({"schema": schema("run"), **result.to_dict(), "instance": instance.id, "task": args.task, "score": score,
              "grader_cost_usd": grader_cost, "uncached_cost_usd": uncached_cost(model, result)})
        return 0
    u = result.usage
    print(f"task:       {args.task} / {instance.id}\n{instance.prompt}\n")
    print(f"pattern:    {args.pattern} on {args.model}")
    print(f"terminal:   {result.terminal}{' — ' + result.detail if result.detail else ''}")
    print(f"output:     {result.output.strip()[:500]}")
    print(f"score:      {score:g}")
    print(f"steps:      {result.steps} model calls, {result.tool_calls} tool calls, {result.retries} retries")
    print(f"tokens:     {u.input_tokens} in, {u.output_tokens} out, {u.cache_read_tokens} cache read, "
          f"{u.cache_write_tokens} cache write"
          + (f" (estimated for {result.estimated_calls} calls whose reply had no usage)" if result.estimated_calls
             else ""))
    print(f"cost:       {fmt_cost(result.cost_usd)}"
          + (f" (+ {fmt_cost(grader_cost)} grading, apart)" if graded is not None else "")
          + f"; {fmt_cost(uncached_cost(model, result))} with every prompt token billed as input "
          f"(prompt cache {on_off_text(args.prompt_cache)})")
    print(f"latency:    {result.latency_s:.2f} s ({'modelled' if getattr(model, 'clock', None) else 'measured'})")
    return 0


async def _trial(args: argparse.Namespace, family: Any, instance: Any, model: Any,
                 grader: Any) -> tuple[Any, float, Any]:
    """(result, score, the grader's run) of one trial in a temporary folder; a bug in the task's code is one line."""
    import tempfile
    from pathlib import Path

    from benchmarks.harness.trial import grade_output
    from benchmarks.tasks.variants import design_for
    from patterns.options import RequestOptions
    from patterns.workflows import arun_workflow

    with tempfile.TemporaryDirectory(prefix="wva-run-") as workdir:
        try:
            env = family.environment(instance, Path(workdir))
            design = design_for(family, args.pattern, env)
        except Exception as exc:
            raise task_bug("the task's environment or design", exc) from None
        result = await arun_workflow(design, model, instance.prompt, seed=args.seed,
                                     options=RequestOptions(prompt_cache=args.prompt_cache))
        try:
            score, graded = await grade_output(family, instance, env, result.output, grader, seed=args.seed)
        except Exception as exc:
            raise task_bug("the task's scorer", exc) from None
        return result, score, graded


def task_bug(what: str, exc: Exception) -> CommandFailed:
    """One line for an exception in the task's own code: what raised, where, and that it is not the model."""
    from benchmarks.harness.code_errors import location

    where = location(exc)
    return CommandFailed(f"{what} raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                         f"{f' ({where})' if where else ''} — a bug in the task's code, not a model failure")


def _run_checked(one: Any) -> Any:
    """`asyncio.run(one())`, a refused pre-flight request a UsageError (exit 2), an unreachable provider exit 1."""
    import asyncio

    from benchmarks.harness.errors import SweepRefused, SweepStopped

    try:
        return asyncio.run(one())
    except SweepRefused as exc:
        raise UsageError(str(exc)) from None
    except SweepStopped as exc:
        raise CommandFailed(str(exc)) from None


def _task_and_instance(args: argparse.Namespace) -> tuple[Any, Any]:
    """The task and the chosen instance; a pattern the task does not offer, or no such instance, is a UsageError."""
    from benchmarks.tasks.registry import load_task

    try:
        family = load_task(args.task)
        from benchmarks.harness.plan import not_offered

        reason = not_offered(family, (args.pattern,)).get(args.pattern)
        if reason:
            raise ValueError(f"{args.pattern} is not offered for task {family.name!r}: {reason}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    rows = family.instances(args.instance + 1, args.seed)
    if args.instance >= len(rows):
        raise UsageError(f"--instance {args.instance} is out of range: task {family.name!r} has {len(rows)} instances")
    return family, rows[args.instance]
