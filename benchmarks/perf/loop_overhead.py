"""The agent loop's own overhead: `arun_agent` against the textbook loop, on the same scripted model.

    python -m benchmarks.perf.loop_overhead [--reps-scale 1.0] [--tool sync|inline|async]
                                            [--fake prebuilt|parsed]

The model is an object whose `async def create(**params)` returns prebuilt `anthropic.types.Message`
objects: a `tool_use` reply on calls 1..N-1 and an `end_turn` on call N (`--fake parsed`: the same
replies, each built from its JSON on every call, as a client builds every real reply).
One trivial tool (`fake_model.py`). Both loops
run in this process, one after the other, N = 10, 100, 1000 model turns; the figure is the median
wall time of a whole run divided by N (µs per step, setup included). `arun_agent` runs with
everything on: events, usage and cost, limits (max_steps = N + 1), the retry policy, and prompt
caching's breakpoints (on by default); one more row, with the inline tool, has them off
(`RequestOptions(prompt_cache=False)`), to show what placing them costs a step.

Peak memory is measured in a separate run under `tracemalloc` (which slows code down, so it is not
timed), at N = 1000, and compared with the conversation's own size: the *deep `sys.getsizeof`* of the
final `messages` list (every dict, list, string and number reachable from it, each object counted
once; pydantic blocks counted with their `__dict__`). The JSON length of the conversation is printed
too, for reference.

A third loop, `floor` (`loop_floor.py`; leave it out with `--no-floor`), is a yardstick: `arun_agent`'s bookkeeping
written into one function with nothing between the pieces, the least any loop recording as much can
cost. Last, each piece of one agent step's bookkeeping is timed alone (the best of five repeats), and
their sum is set against what "at most 2.5x the textbook loop" (`BOUND`) leaves for them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

from anthropic.types import Message

from benchmarks.perf.fake_model import FAKES, PRICED, TOOLS, Fake, add, script
from benchmarks.perf.loop_floor import breakdown, floor, reply_build_us
from patterns import Limits, RequestOptions, RetryPolicy, ToolSet, arun_agent, tool
from patterns.schema import checker

NS = (10, 100, 1000)
BOUND = 2.5  # an agent step may cost at most this many textbook steps (issue 18), at every N
async def textbook(model: Fake, prompt: str, tools: list[dict[str, Any]], fns: dict[str, Any]) -> list[Any]:
    """The ~10-line loop over the SDK's types."""
    messages: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        reply = await model.create(model=PRICED, max_tokens=1024, messages=messages, tools=tools)
        messages.append({"role": "assistant", "content": reply.content})
        if reply.stop_reason != "tool_use":
            return messages
        results = [{"type": "tool_result", "tool_use_id": b.id, "content": str(fns[b.name](**b.input))}
                   for b in reply.content if b.type == "tool_use"]
        messages.append({"role": "user", "content": results})


Loop = Callable[[Fake], Awaitable[list[Any]]]


def loops(kinds: list[str], with_floor: bool = False) -> dict[str, Loop]:
    """The textbook loop, `arun_agent` with each kind of tool, and (with_floor) the yardstick `floor`."""
    params = [tool(add).param]
    out: dict[str, Loop] = {"textbook": lambda model: textbook(model, "add things", params, {"add": add})}
    if with_floor:
        fits = checker(tool(add).input_schema)
        out["floor: the same bookkeeping in one function"] = lambda model: floor(model, "add things", params, add,
                                                                                fits)
    variants = [(kind, True) for kind in kinds]
    if "inline" in kinds:
        variants.append(("inline", False))  # what the cache breakpoints cost a step
    for kind, cache in variants:
        toolset = ToolSet([TOOLS[kind]()])

        async def ours(model: Fake, toolset: ToolSet = toolset, cache: bool = cache) -> list[Any]:
            n = len(model.replies)
            result = await arun_agent(model, "add things", tools=toolset, retry=RetryPolicy(),
                                      limits=Limits(max_steps=n + 1), options=RequestOptions(prompt_cache=cache))
            assert result.terminal == "completed" and result.steps == n, (result.terminal, result.detail)
            assert result.tool_calls == n - 1 and not result.errors and not result.messages[2]["content"][0].get(
                "is_error"), result.messages[2]
            return result.messages

        out[f"arun_agent ({kind} tool{'' if cache else ', prompt_cache=False'})"] = ours
    return out


async def per_step_us(runs: dict[str, Loop], replies: list[Message], reps: int,
                      fake: type[Fake] = Fake) -> dict[str, tuple[float, float]]:
    """(wall, CPU) median µs per step of each loop. The loops take turns, so that they share the machine's
    noise; CPU time (`time.process_time`, all threads) does not count the time this process was not running."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(reps):
        for name, run in runs.items():
            model = fake(replies)
            w0, c0 = time.perf_counter(), time.process_time()
            await run(model)
            times[name].append((time.perf_counter() - w0, time.process_time() - c0))
    n = len(replies)
    return {name: (statistics.median(w for w, _ in t) / n * 1e6, statistics.median(c for _, c in t) / n * 1e6)
            for name, t in times.items()}


def deep_size(obj: Any, seen: set[int] | None = None) -> int:
    """sys.getsizeof of obj and everything reachable from it, each object once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, list | tuple | set | frozenset):
        size += sum(deep_size(v, seen) for v in obj)
    elif hasattr(obj, "__dict__"):
        size += deep_size(vars(obj), seen)
    return size


def json_len(messages: list[Any]) -> int:
    return len(json.dumps(messages, default=lambda o: o.model_dump(mode="json")))


async def peak_memory(run: Loop, replies: list[Message], fake: type[Fake] = Fake) -> tuple[int, list[Any]]:
    model = fake(replies)  # built before tracing: the fake's own bodies are not the loop's memory
    gc.collect()
    tracemalloc.start()
    messages = await run(model)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, messages


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", choices=sorted(TOOLS), action="append",
                        help="the kind(s) of tool to run arun_agent with (default: all)")
    parser.add_argument("--reps-scale", type=float, default=1.0, help="scale the number of repetitions")
    parser.add_argument("--no-floor", action="store_true",
                        help="leave out the yardstick: arun_agent's bookkeeping written into one function")
    parser.add_argument("--fake", choices=sorted(FAKES), default="prebuilt",
                        help="prebuilt: replies built once (the issue's fake); parsed: each reply built from "
                             "its JSON on every call, as every real reply is")
    args = parser.parse_args(argv)
    kinds = args.tool or list(TOOLS)
    fake = FAKES[args.fake]
    runs = loops(kinds, with_floor=not args.no_floor)
    scripts = {n: script(n) for n in NS}
    reps = {n: max(5, int(args.reps_scale * 20_000 / n)) for n in NS}
    for run in runs.values():  # warm up
        await run(fake(scripts[10]))
    by_n = {n: await per_step_us(runs, scripts[n], reps[n], fake) for n in NS}
    mem = {name: await peak_memory(run, scripts[1000], fake) for name, run in runs.items()}
    pieces = breakdown(max(100, int(args.reps_scale * 20_000)))
    builds = reply_build_us(max(100, int(args.reps_scale * 5_000)))
    mib = 1024 * 1024
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"{args.fake} fake; median of {', '.join(f'{reps[n]} runs at N={n}' for n in NS)}")
    print("| loop | µs per step, N=10 | N=100 | N=1000 | CPU µs per step, N=10 | N=100 | N=1000 "
          "| peak memory at N=1000 | its conversation: deep sizeof / JSON |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in runs:
        peak, messages = mem[name]
        wall = " | ".join(f"{by_n[n][name][0]:,.1f}" for n in NS)
        cpu = " | ".join(f"{by_n[n][name][1]:,.1f}" for n in NS)
        print(f"| {name} | {wall} | {cpu} | {peak / mib:.2f} MiB | {deep_size(messages) / mib:.2f} MiB / "
              f"{json_len(messages) / mib:.2f} MiB |")
    print()
    for name in list(runs)[1:]:
        for i, clock in enumerate(("wall", "CPU")):
            ratios = [by_n[n][name][i] / by_n[n]["textbook"][i] for n in NS]
            flat = by_n[1000][name][i] / by_n[10][name][i]
            against = ", ".join(f"N={n} {r:.2f}x" for n, r in zip(NS, ratios, strict=True))
            print(f"{name}, {clock}: vs textbook {against}"
                  + f" (<= {BOUND:g}x: {verdict(max(ratios) <= BOUND)}); N=1000 / N=10 {flat:.2f}x (<= 1.5x: "
                  f"{verdict(flat <= 1.5)})")
        peak, messages = mem[name]
        ratio = peak / deep_size(messages)
        print(f"{name}: peak memory / conversation deep size at N=1000 {ratio:.2f}x (<= 3x: {verdict(ratio <= 3)})")
    print()
    print_pieces(pieces, builds, by_n[100]["textbook"][1])


def print_pieces(pieces: list[tuple[str, float]], builds: dict[str, float], textbook: float) -> None:
    """The step's bookkeeping piece by piece, against what the bound leaves for it at N=100 (CPU µs)."""
    print("| one agent step's bookkeeping, each piece timed alone | µs |")
    print("|---|---|")
    for label, us in pieces:
        print(f"| {label} | {us:.2f} |")
    timed = dict(pieces)
    bare = timed["for reference: the bare tool call the textbook makes"]
    extra = sum(timed.values()) - timed["tool input checked against its schema"] - 2 * bare  # both are in the tool run
    room = (BOUND - 1) * textbook
    print(f"| all of it, beyond the bare tool call (the schema check counted once, in the tool run) | {extra:.2f} |")
    print(f"\nAt N=100 the textbook step costs {textbook:.2f} CPU µs: at most {BOUND:g}x leaves {room:.2f} µs a step "
          f"for everything the textbook loop does not do; these pieces alone take {extra:.2f} µs, before any "
          "call or await between them.")
    print("For scale, building one such reply from its JSON (as a client must for every real call): "
          + ", ".join(f"{label} {us:.1f} µs" for label, us in builds.items()) + ".")


if __name__ == "__main__":
    asyncio.run(main())
