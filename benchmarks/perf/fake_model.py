"""The fake model and the one tool the loop benchmarks share (`loop_overhead`, `loop_floor`).

The model is an object whose `async def create(**params)` returns `anthropic.types.Message`s: a
`tool_use` reply on calls 1..N-1 and an `end_turn` on call N, either prebuilt (`Fake`, the issue's
fake) or built from their JSON on every call (`Parsed`).
"""

from __future__ import annotations

from typing import Any

from anthropic.types import Message

from patterns import tool
from patterns.scripted import message, tool_use_block

PRICED = "claude-sonnet-4-5"  # a priced model id, so cost is computed on every step


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


async def add_async(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


TOOLS = {  # the kinds of tool the loop treats differently
    "sync": lambda: tool(add),  # the default: a sync tool with a timeout runs in a worker thread
    "inline": lambda: tool(add, timeout_s=None),  # a sync tool without a timeout runs inline
    "async": lambda: tool(add_async, name="add"),  # an async tool with a timeout: asyncio.timeout
}


def script(n: int) -> list[Message]:
    """N prebuilt replies: n - 1 tool_use turns, then end_turn."""
    replies = [message(tool_use_block("add", {"a": i, "b": 1}, id=f"toolu_{i:06d}"), model=PRICED)
               for i in range(n - 1)]
    return [*replies, message("done", model=PRICED)]


class Fake:
    """The scripted model both loops call: returns the prebuilt replies in order (the issue's fake)."""

    def __init__(self, replies: list[Message]) -> None:
        self.replies = replies
        self.i = 0

    async def create(self, **params: Any) -> Message:
        reply = self.replies[self.i]
        self.i += 1
        return reply


class Parsed(Fake):
    """`--fake parsed`: each reply is built from the API's JSON on every call, as a client must build
    every real reply. `Message.model_validate` is the cheapest way to do it; the SDK itself builds a
    response with `construct_type`, which is slower still, so this is a lower bound on a real call."""

    def __init__(self, replies: list[Message]) -> None:
        super().__init__(replies)
        self.bodies = [reply.model_dump(mode="json", exclude_unset=True) for reply in replies]

    async def create(self, **params: Any) -> Message:
        body = self.bodies[self.i]
        self.i += 1
        return Message.model_validate(body)


FAKES: dict[str, type[Fake]] = {"prebuilt": Fake, "parsed": Parsed}
