"""A tool, a fixed policy and a tiny agent loop shared by the SimModel tests."""
from __future__ import annotations

import asyncio
from typing import Any

import anthropic

from patterns.sim import Decider, Reply, Request, SimModel

ADD = {
    "name": "add", "description": "Add two numbers.",
    "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                     "required": ["a", "b"]},
}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class Fixed:
    """A policy returning one fixed reply: for the shaping tests."""

    def __init__(self, content: list[dict[str, Any]], stop_reason: str | None = None) -> None:
        self.reply = Reply(content, stop_reason)
        self.requests: list[Request] = []

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        self.requests.append(request)
        return self.reply


async def tool_round(model: SimModel, prompt: str, *, retry_faults: bool = False) -> list[Any]:
    """A tiny agent loop (tool call, result, answer); returns every reply or error as JSON-able data."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    trace: list[Any] = []
    for _ in range(4):
        try:
            reply = await model.create(messages=messages, tools=[ADD], max_tokens=200)
        except anthropic.APIError as exc:
            trace.append(("error", type(exc).__name__, str(exc)))
            if retry_faults:
                continue
            return trace
        trace.append(reply.model_dump(mode="json"))
        if reply.stop_reason != "tool_use":
            return trace
        content = [b.to_dict() for b in reply.content]
        results = [{"type": "tool_result", "tool_use_id": b["id"],
                    "content": str(b["input"].get("a", 0) + b["input"].get("b", 0))}
                   for b in content if b["type"] == "tool_use"]
        messages += [{"role": "assistant", "content": content}, {"role": "user", "content": results}]
    return trace
