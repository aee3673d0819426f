"""`wva bench`: the main job — every pattern on every task, recorded and summarised."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.cli._common import (
    PROMPT_CACHE_HELP,
    CommandFailed,
    UsageError,
    add_prices_option,
    apply_prices,
    at_most,
    model_spec,
    on_off,
    positive_int,
    seconds,
    task_list,
)
from benchmarks.cli.paid_options import add_paid_options, paid_settings
from benchmarks.cli.repeats import add_repeats_flags, check_repeats, repeats_step
from benchmarks.cli.until_decided import add_until_decided, designs, start_notes
from benchmarks.cli.verdict_options import add_verdict_options, verdict_options
from benchmarks.names import DEFAULT_INSTANCES, DEFAULT_MODEL, DEFAULT_TRIALS, MAX_INSTANCES, MAX_TRIALS


def csv_list(text: str) -> tuple[str, ...]:
    items = tuple(filter(None, (t.strip() for t in text.split(","))))
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from benchmarks.names import DEFAULT_TASKS, PATTERNS

    p: argparse.ArgumentParser = subparsers.add_parser(
        "bench", help="run every pattern on every task and write results/ (the main job)",
        description="Sweep patterns × tasks × instances × trials on one model and write runs.csv, events.jsonl, "
        "summary.csv and manifest.json to --out. Safe to interrupt: --resume runs only the missing trials.")
    p.add_argument("--patterns", type=csv_list, default=PATTERNS, metavar="LIST",
                   help=f"comma-separated designs (default: all: {','.join(PATTERNS)}): a pattern, a family's variant "
                   "pattern:variant (route:ladder; 'wva tasks' lists them) or a design of yours, file.py:function "
                   "(function(family, env) -> a workflow spec); the agent runs once whatever else is named")
    p.add_argument("--tasks", type=task_list, default=DEFAULT_TASKS, metavar="LIST",
                   help="comma-separated task specs: NAME[:key=value,...], module.path:Class or a task file "
                   "path.toml (default: all five; 'wva tasks' lists them). A 'key=value' after a comma continues "
                   "the spec before it (multihop:hops=1-6,depth=3,support is two tasks); ';' also separates")
    p.add_argument("--instances", type=at_most(MAX_INSTANCES, "instances per task"), default=None, metavar="N",
                   help=f"instances per task. Not given: every design runs on a pilot of {DEFAULT_INSTANCES} and the "
                   "verdicts are decided past it (below). Given: one fixed-size run of N, as asked (with "
                   "--max-instances M, N is the pilot and M the cap)")
    p.add_argument("--trials", type=at_most(MAX_TRIALS, "trials per instance"), default=DEFAULT_TRIALS, metavar="K",
                   help=f"trials per instance (default: {DEFAULT_TRIALS}; --trials 3 for pass^k, the chance that "
                   "all of an instance's trials succeed)")
    p.add_argument("--model", type=model_spec, default=DEFAULT_MODEL, metavar="SPEC",
                   help=f"model spec (default: {DEFAULT_MODEL}; 'wva models' lists the forms)")
    p.add_argument("--grader-model", type=model_spec, default=None, metavar="SPEC",
                   help="the model that grades a task file's model:<rubric> scorer (default: the run's --model)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed for instances and the model (default: 0)")
    p.add_argument("--prompt-cache", type=on_off, default=True, metavar="on|off", help=PROMPT_CACHE_HELP)
    p.add_argument("--concurrency", type=positive_int, default=16, metavar="C",
                   help="trials in flight (default: 16)")
    p.add_argument("--out", type=Path, default=Path("results"), metavar="DIR", help="output folder (default: results)")
    p.add_argument("--resume", action="store_true",
                   help="keep the finished trials in --out and run only the missing ones (the folder's settings and "
                   "code must be this sweep's)")
    p.add_argument("--overwrite", action="store_true",
                   help="start again in an --out that holds finished trials (the project's files in it are removed)")
    p.add_argument("--allow-mixed", action="store_true",
                   help="with --resume: accept the folder's trials although they came from another code version or "
                   "package versions (the manifest lists every version)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="processes to shard the sweep across (default: all cores for a sim model, at most one per "
                   "500 trials; 1 otherwise). --concurrency and --max-in-flight are divided between them")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local processes, or Ray tasks on a Ray cluster (pip install 'workflow-vs-agent[ray]')")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --executor ray: the cluster (auto, ray://host:10001; default: a local Ray instance)")
    p.add_argument("--otel", action="store_true",
                   help="export OpenTelemetry spans per trial (pip install 'workflow-vs-agent[otel]'): OTLP to "
                   "OTEL_EXPORTER_OTLP_ENDPOINT, or the console (stderr); runs the sweep in this process")
    p.add_argument("--otel-content", action="store_true",
                   help="with --otel: include prompt and completion text in the spans (off by default)")
    p.add_argument("--score-timeout", type=seconds, default=60.0, metavar="S",
                   help="seconds a scorer's own code may take per trial (default: 60); past it the trial is "
                   "recorded as ScorerError:Timeout")
    add_paid_options(p)  # what a sweep on a paid model may take: time per call, money
    add_verdict_options(p)  # how the verdicts printed at the end are reached
    add_end_options(p)
    add_until_decided(p)
    return p


def add_end_options(p: argparse.ArgumentParser) -> None:
    """The drawn and repeats phases, the prices and the JSON summary."""
    p.add_argument("--no-drawn", action="store_true",
                   help="skip the drawn phase, which runs after the sweep: the graph drawn from the agent's walks on "
                   "10 instances, run as a workflow on each task's other instances into OUT/drawn/ (the comparator "
                   "'drawn'; about an eighth more trials). 'python -m benchmarks.studies.run_drawn OUT' runs it later")
    add_repeats_flags(p)
    add_prices_option(p)
    p.add_argument("--json", action="store_true",
                   help="print the summary, the verdicts and the totals as one JSON document (docs/json.md)")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import sys

    from benchmarks.cli import bench_end
    from benchmarks.cli.decided import decided_step
    from benchmarks.cli.drawn import drawn_step
    from benchmarks.cli.progress import Progress
    from benchmarks.harness.bench import run_bench
    from benchmarks.harness.errors import SweepRefused, SweepStopped
    from benchmarks.studies.until_decided import run_until_decided
    from patterns.replay import ReplayMismatch

    def warn(text: str) -> None:
        print(f"wva: warning: {text}", file=sys.stderr)

    looks, decided = designs(args)  # --until-decided's looks, the default run's decided phase (None: not run)
    check_repeats(args)
    apply_prices(args)
    config, families, close_tracing = configure(args)  # every flag and task checked before a word is said
    for note in start_notes(args, decided):
        print(f"wva: {note}", file=sys.stderr)
    notes = task_notes(families, args.patterns, args.model)
    for line in notes["warnings"]:
        warn(line)
    progress: dict[str, Progress] = {}
    from benchmarks.cli.estimate_text import estimate_printer

    estimates: list[Any] = []  # the estimate printed before the first trial, for --json
    callbacks = {"on_start": progress_starter(progress, args.quiet, args.model), "on_warning": warn,
                 "on_trial": on_each_trial(progress), "on_estimate": estimate_printer(args.quiet, estimates)}
    try:
        if looks is None:
            outcome, stopped = asyncio.run(run_bench(config, **callbacks)), []
        else:
            outcome, stopped = asyncio.run(sweep_until_decided(config, looks, args, progress, callbacks))
        if decided is not None:
            outcome, stopped = decided_step(config, decided, outcome, args, progress, callbacks, run_until_decided)
        outcome, repeated = repeats_step(config, outcome, args, callbacks, run_bench)  # where drawability is read
    except ReplayMismatch as exc:
        raise UsageError(f"the replay cassette does not match this sweep: {exc}") from None
    except SweepRefused as exc:
        raise UsageError(str(exc)) from None
    except SweepStopped as exc:
        raise CommandFailed(str(exc)) from None
    finally:
        if "bar" in progress:
            progress["bar"].close()
    drawn, extra = drawn_step(args, config, outcome, warn, run_bench)
    close_tracing()  # flushes the spans still queued for the exporter
    extra += [*(["", *repeated] if repeated else []), *end_lines(args, decided is not None, stopped)]
    if args.json:
        doc = bench_end.json_report(outcome, notes, verdict_options(args), args.model, extra, drawn,
                                    estimates[0] if estimates else None)
        return bench_end.finish(doc, outcome)
    bench_end.report(outcome, notes, verdict_options(args), args.model, extra)
    return bench_end.finish(None, outcome)


def end_lines(args: argparse.Namespace, decided: bool, stopped: list[str]) -> list[str]:
    """The lines after the verdicts: where each task stopped, and what a reader of the figures must know."""
    from benchmarks.cli.until_decided import paid_note

    lines = []
    if stopped:
        lines += ["", "decided: where each task stopped" if decided else "--until-decided: where each task stopped",
                  *(f"  {line}" for line in stopped)]
    if getattr(args, "message_batches", False):  # the latencies above are not comparable with an interactive run's
        lines += ["", "--message-batches: each latency is batch queue time, not the model's; costs are at the batch "
                  "price (half)"]
    if note := paid_note(args):  # said at the end, beside the verdicts it concerns (a pre-flight error comes first)
        lines += ["", note]
    return lines


def progress_starter(progress: dict[str, Any], quiet: bool, model: str) -> Callable[[int, int], None]:
    """`on_start`: a new progress line for each sweep (each look of `--until-decided` starts one)."""

    def start(total: int, done: int) -> None:
        from benchmarks.cli.progress import sweep_progress

        if "bar" in progress:  # the sweep of the next look
            progress["bar"].close()
        progress["bar"] = sweep_progress(total, done, quiet, model)

    return start


def on_each_trial(progress: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """What the sweep calls as each trial ends: the progress bar, and one line for the first bug in the task's code
    (said at once, not after a paid sweep)."""
    from benchmarks.harness.code_errors import FirstCodeError

    first_code_error = FirstCodeError()

    def on_trial(row: dict[str, Any]) -> None:
        progress["bar"].trial(row)
        if line := first_code_error(row):
            progress["bar"].message(f"wva: {line}")

    return on_trial


def configure(args: argparse.Namespace) -> tuple[Any, list[Any], Callable[[], None]]:
    """(the sweep's BenchConfig, its task families, what ends tracing); every mistake a UsageError."""
    from benchmarks.harness.bench import BenchConfig
    from benchmarks.tasks.registry import load_task
    from patterns.options import RequestOptions

    try:
        config = BenchConfig(patterns=args.patterns, tasks=tuple(args.tasks), instances=args.instances,
                             trials=args.trials, model=args.model, seed=args.seed, concurrency=args.concurrency,
                             max_in_flight=args.max_in_flight, out=args.out, resume=args.resume,
                             overwrite=args.overwrite, allow_mixed=args.allow_mixed,
                             workers=args.workers, executor=args.executor, address=args.address,
                             grader_model=getattr(args, "grader_model", None), score_timeout_s=args.score_timeout,
                             **paid_settings(args),
                             options=RequestOptions(prompt_cache=args.prompt_cache))
        families = [load_task(spec) for spec in args.tasks]  # every task spec checked before anything is written
        from benchmarks.harness.drawn_check import check_user_designs

        check_user_designs(families, config.patterns)  # an agent-like design of yours: one line, exit 2
        config, close_tracing = with_tracing(config, args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.executor == "ray":  # connected now, before anything is written, or one line and exit 2 (ClusterError)
        from benchmarks.harness.ray_cluster import connect

        connect(args.address)
    return config, families, close_tracing


def task_notes(families: list[Any], patterns: tuple[str, ...], model: str) -> dict[str, list[str]]:
    """What to tell the user about these tasks: the sim warning (once) and the patterns not offered."""
    from benchmarks.harness.plan import not_offered
    from benchmarks.tasks.base import task_label
    from benchmarks.tasks.dataset import sim_warning

    warning = sim_warning(model, families)
    skipped = [f"{pattern}: not offered for {task_label(f)}: {reason}"
               for f in families for pattern, reason in not_offered(f, patterns).items() if pattern in patterns]
    return {"warnings": [warning] if warning else [], "not_offered": skipped}


def with_tracing(config: Any, args: argparse.Namespace) -> tuple[Any, Callable[[], None]]:
    """(config, what to call at the end: it shuts the tracer provider down) for `--otel`.

    The spans are exported from this process, so --otel runs the sweep here (one worker)."""
    from dataclasses import replace

    if getattr(args, "otel_content", False) and not args.otel:
        raise ValueError("--otel-content needs --otel")
    if not args.otel:
        return config, lambda: None
    if (args.workers or 1) > 1 or args.executor != "local":
        raise ValueError("--otel exports spans from this process: drop --workers N > 1 and --executor ray")
    from patterns.otel import Tracing, tracer_from_env

    tracer, provider = tracer_from_env()
    return replace(config, workers=1, tracing=Tracing(tracer, content=args.otel_content)), provider.shutdown


async def sweep_until_decided(config: Any, looks: Any, args: argparse.Namespace, progress: dict[str, Any],
                              callbacks: dict[str, Any]) -> tuple[Any, list[str]]:
    """(the last look's outcome, a line per task saying where it stopped); a line per look as it is decided."""
    from benchmarks.criterion.sequential import look_text
    from benchmarks.criterion.verdict import Options
    from benchmarks.studies.until_decided import run_until_decided

    def on_look(decisions: list[Any]) -> None:
        if not args.quiet and "bar" in progress:
            said = "; ".join(f"{x.task} {x.verdict}{', stops' if x.stop else ''}" for x in decisions)
            progress["bar"].message(f"wva: look {decisions[0].look} ({decisions[0].instances} instances): {said}")

    result = await run_until_decided(config, looks, Options(**verdict_options(args)), on_look=on_look, **callbacks)
    return result.outcome, [look_text(r) for r in result.stopped().values()]
