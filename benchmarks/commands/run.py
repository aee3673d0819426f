"""`wva run PATTERN TASK`: one pattern on one task instance, shown in full."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.names import DEFAULT_MODEL

from ._common import UsageError, build_model, model_spec, nonneg_int


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from benchmarks.names import PATTERNS

    p: argparse.ArgumentParser = subparsers.add_parser(
        "run", help="run one pattern on one task instance and show what happened",
        description="Run one pattern on one instance of a task; print the terminal reason, output, steps, "
        "tool calls, tokens, cost and modelled latency (or the whole Result as JSON).")
    p.add_argument("pattern", choices=PATTERNS, metavar="PATTERN", help=f"one of: {', '.join(PATTERNS)}")
    p.add_argument("task", metavar="TASK", help="a task spec: NAME[:key=value,...] ('wva tasks' lists them)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"model spec (default: {DEFAULT_MODEL}; 'wva models' lists the forms)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed (default: 0)")
    p.add_argument("--instance", type=nonneg_int, default=0, metavar="I", help="instance index (default: 0)")
    p.add_argument("--json", action="store_true", help="print the Result as one JSON document")
    return p


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json
    import tempfile
    from pathlib import Path

    from benchmarks.tasks.registry import load_task
    from benchmarks.trial import TrialSpec, trial_model
    from patterns.workflows import execute

    from ._tables import fmt_cost

    try:
        family = load_task(args.task)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    instance = family.instances(args.instance + 1, args.seed)[args.instance]
    spec = TrialSpec(args.pattern, args.task, family, instance, 0, args.model, args.seed)
    model = trial_model(build_model(args.model), spec, family.policy())
    with tempfile.TemporaryDirectory(prefix="wva-run-") as workdir:
        env = family.environment(instance, Path(workdir))
        result = asyncio.run(execute(family.design(args.pattern, env), model, instance.prompt, seed=args.seed))
        score = family.grade(instance, env, result.output)
    if args.json:
        print(json.dumps({**result.to_dict(), "instance": instance.id, "task": args.task, "score": score},
                         default=str, ensure_ascii=False))
        return 0
    u = result.usage
    print(f"task:       {args.task} / {instance.id}\n{instance.prompt}\n")
    print(f"pattern:    {args.pattern} on {args.model}")
    print(f"terminal:   {result.terminal}{' — ' + result.detail if result.detail else ''}")
    print(f"output:     {result.output.strip()[:500]}")
    print(f"score:      {score:g}")
    print(f"steps:      {result.steps} model calls, {result.tool_calls} tool calls, {result.retries} retries")
    print(f"tokens:     {u.input_tokens} in, {u.output_tokens} out, {u.cache_read_tokens} cache read, "
          f"{u.cache_write_tokens} cache write")
    print(f"cost:       {fmt_cost(result.cost_usd)}")
    print(f"latency:    {result.latency_s:.2f} s ({'modelled' if getattr(model, 'clock', None) else 'measured'})")
    return 0
