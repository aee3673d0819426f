"""What an agent step costs at the least: the yardstick loop `floor`, and each piece of bookkeeping timed alone.

Used by `loop_overhead`, which prints both beside its comparison of `arun_agent` with the textbook loop.
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from typing import Any

from anthropic.types import Message

from benchmarks.perf.fake_model import PRICED, Fake, add, script
from patterns import Event, Kind, Limits, RetryPolicy, Run, ToolSet, Usage, tool
from patterns.blocks import block_params, sendable
from patterns.caching import MarkCounter, with_breakpoints
from patterns.pricing import cost_usd
from patterns.schema import checker
from patterns.tools import result_text


async def floor(model: Fake, prompt: str, tools: list[dict[str, Any]], fn: Callable[..., Any],
                fits: Callable[[Any], bool]) -> list[Any]:
    """A yardstick, not a usable loop: what `arun_agent` does per step beyond the textbook loop (a step
    limit, the request's cache breakpoints, usage and its sum, cost, a model-call and a tool-call event,
    the reply's blocks as params, the tool input checked, the result as text), with the same primitives,
    written into one function with nothing between them (no `Run`, hooks, retry structure, recovery or
    error handling). No loop that does as much can be cheaper than this, whatever its structure."""
    messages: list[Any] = [{"role": "user", "content": prompt}]
    events: list[Any] = []
    total, cost, steps, t0, marks = Usage(), 0.0, 0, time.monotonic(), MarkCounter()
    while steps < 100_000:
        start = time.monotonic() - t0
        request = with_breakpoints({"model": PRICED, "max_tokens": 1024, "messages": messages, "tools": tools},
                                   counter=marks)  # prompt caching is on by default in arun_agent
        reply = await model.create(**request)
        usage = Usage.from_api(reply.usage)
        total, price = total + usage, cost_usd(reply.model, usage) or 0.0
        cost += price
        events.append(Event(kind=Kind.MODEL_CALL, start=start, end=time.monotonic() - t0, model=reply.model,
                            usage=usage, cost_usd=price, stop_reason=reply.stop_reason, position=steps))
        steps += 1
        messages.append({"role": "assistant", "content": [block_params(b) for b in reply.content]})
        if reply.stop_reason != "tool_use":
            return messages
        results = []
        for b in reply.content:
            if b.type == "tool_use":
                start = time.monotonic() - t0
                text = result_text(fn(**b.input)) if fits(b.input) else "Error: invalid input"
                events.append(Event(kind=Kind.TOOL_CALL, start=start, end=time.monotonic() - t0, name=b.name,
                                    tool_name=b.name, tool_use_id=b.id))
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": text})
        messages.append({"role": "user", "content": results})
    raise RuntimeError("step limit")


def _drive(coro: Any) -> Any:
    """Run a coroutine that never suspends to its end, outside any event loop."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("the coroutine suspended")


def breakdown(number: int = 20_000) -> list[tuple[str, float]]:
    """µs of each piece of bookkeeping one agent step does (a tool_use turn, one inline tool),
    each timed alone on the same reply (the best of 5 repeats): what the loop costs at the least."""
    reply = script(2)[0]
    block = reply.content[0]
    toolset = ToolSet([tool(add, timeout_s=None)])
    run = Run(Fake([reply]), limits=Limits(max_steps=10), retry=RetryPolicy())
    usage = Usage.from_api(reply.usage)
    outcome = _drive(toolset.execute("add", block.input))
    fits = checker(toolset.tools["add"].input_schema)
    request = {"max_tokens": 1024, "tools": toolset.params, "messages": [
        {"role": "user", "content": "add things"}, {"role": "assistant", "content": sendable(reply.content)[0]},
        {"role": "user", "content": [outcome.block(block.id)]}]}
    marks = MarkCounter()
    pieces: dict[str, Callable[[], Any]] = {
        "limits and abort check (Run.check)": run.check,
        "four clock reads (Run.elapsed)": lambda: (run.elapsed(), run.elapsed(), run.elapsed(), run.elapsed()),
        "cache breakpoints on the request (with_breakpoints)": lambda: with_breakpoints(request, counter=marks),
        "usage read from the reply (Usage.from_api)": lambda: Usage.from_api(reply.usage),
        "usage summed (Usage +)": lambda: usage + usage,
        "cost (cost_usd)": lambda: cost_usd(PRICED, usage),
        "model-call event": lambda: Event(kind=Kind.MODEL_CALL, start=0.0, end=1.0, model=reply.model, usage=usage,
                                          cost_usd=0.1, stop_reason=reply.stop_reason, position=3),
        "reply blocks -> params, and its tool_use blocks": lambda: sendable(reply.content),
        "tool input checked against its schema": lambda: fits(block.input),
        "tool run (ToolSet.execute: lookup, schema, call, text)": lambda: _drive(toolset.execute("add", block.input)),
        "tool-call event": lambda: Event(kind=Kind.TOOL_CALL, start=1.0, end=2.0, name="add", tool_name="add",
                                         tool_use_id=block.id),
        "tool_result block": lambda: outcome.block(block.id),
        "for reference: the bare tool call the textbook makes": lambda: str(add(**block.input)),
    }
    return [(label, min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6) for label, fn in pieces.items()]


def reply_build_us(number: int = 5_000) -> dict[str, float]:
    """µs to build one tool_use reply from its JSON: what a real call costs a client before any loop runs."""
    body = script(2)[0].model_dump(mode="json", exclude_unset=True)
    builders: dict[str, Callable[[], Any]] = {"Message.model_validate": lambda: Message.model_validate(body)}
    try:  # what AsyncAnthropic does with every response body (a private function, so optional here)
        from anthropic._models import construct_type

        builders["the SDK's construct_type"] = lambda: construct_type(type_=Message, value=body)
    except ImportError:
        pass
    return {label: min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6 for label, fn in builders.items()}
