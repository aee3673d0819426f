"""Shared by the SDK end-to-end tests: a scripted policy, a server that keeps account, and runners.

`AnthropicModel` talks HTTP to a `SimServer`; nothing in the SDK is patched and nothing leaves
the machine. Replies come from `Script`, a policy that returns a fixed list of replies in order
(it never reads the prompt), so each test knows exactly what the model "decides". `Tapped`
counts the POSTs the server received and keeps the JSON bodies it sent, so every test can
check the run's steps, retries and usage against the server's own account.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anthropic

from patterns import Kind, Result, RetryPolicy, ToolSet, Usage, arun_agent, tool
from patterns.model import AnthropicModel
from patterns.replay import RecordingModel
from patterns.sim import Decider, Reply, Request
from patterns.sim.server import SimServer
from patterns.workflows import arun_workflow

from .agent_fixtures import add

CANARY = "sk-ant-canary-e2e-0123456789"
MODEL_ID = "claude-sonnet-4-5"
FAST = RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.001, max_retry_after_s=0.0)




# --- the scripted model and the tapped server -------------------------------------------------------


def say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def use(name: str, tool_input: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "name": name, "input": tool_input}
    if id is not None:
        block["id"] = id
    return block


class Script:
    """A policy whose replies come from a fixed list, in order; it keeps each request it answered."""

    def __init__(self, *replies: Reply | str) -> None:
        self.replies = [Reply([say(r)]) if isinstance(r, str) else r for r in replies]
        self.requests: list[Request] = []
        self._lock = threading.Lock()  # the server answers on several threads at once

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        with self._lock:
            if len(self.requests) >= len(self.replies):
                raise AssertionError(f"Script: no reply scripted for request {len(self.requests) + 1}")
            self.requests.append(request)
            return self.replies[len(self.requests) - 1]

    @property
    def done(self) -> bool:
        return len(self.requests) == len(self.replies)


class Tapped(SimServer):
    """A SimServer that counts the POSTs to /v1/messages and keeps every (status, body) it answered."""

    def __init__(self, *replies: Reply | str, **options: Any) -> None:
        self.script = Script(*replies)
        super().__init__(policies=[self.script], **options)
        self.posts = 0
        self.bodies: list[tuple[int, dict[str, Any]]] = []
        self._tap = threading.Lock()

    def authorised(self, headers: Any) -> bool:  # the first thing every POST /v1/messages meets
        with self._tap:
            self.posts += 1
        return super().authorised(headers)

    def answer(self, params: dict[str, Any], stream: str | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
        status, body, headers = super().answer(params, stream)
        with self._tap:
            self.bodies.append((status, body))
        return status, body, headers

    @property
    def replies(self) -> list[dict[str, Any]]:
        return [body for status, body in self.bodies if status == 200]

    @property
    def usage(self) -> Usage:
        """The usage the server reported, summed over the messages it sent."""
        total = Usage()
        for body in self.replies:
            total = total + Usage.from_api(anthropic.types.Usage.model_validate(body["usage"]))
        return total


def sdk(server: SimServer, body: Callable[[Any], Awaitable[Result]], *, key: str = CANARY,
        cassette: Path | None = None) -> Result:
    """Run `body(model)` with an AnthropicModel on `server`, opened and closed in one event loop."""

    async def main() -> Result:
        client = AnthropicModel(MODEL_ID, base_url=server.url, api_key=key)
        model = RecordingModel(client, cassette) if cassette is not None else client
        try:
            return await body(model)
        finally:
            await client.aclose()

    return asyncio.run(main())


def agent(prompt: str = "go", **kwargs: Any) -> Callable[[Any], Awaitable[Result]]:
    return lambda model: arun_agent(model, prompt, **kwargs)


def workflow(spec: Any, task: str = "the task", **kwargs: Any) -> Callable[[Any], Awaitable[Result]]:
    return lambda model: arun_workflow(spec, model, task, **kwargs)


def kinds(result: Result, kind: Kind) -> list[Any]:
    return [e for e in result.events if e.kind is kind]


def assert_accounted(result: Result, server: Tapped) -> None:
    """The run's steps, usage and retries are exactly what the server saw and reported."""
    assert result.steps == len(server.replies) == len(kinds(result, Kind.MODEL_CALL))
    assert result.usage == server.usage and result.usage.input_tokens > 0
    assert server.posts == result.steps + result.retries + len(kinds(result, Kind.ERROR))
    assert [e.usage.input_tokens for e in kinds(result, Kind.MODEL_CALL)] == \
        [b["usage"]["input_tokens"] for b in server.replies]
    assert result.cost_usd is not None and result.cost_usd > 0  # claude-sonnet-4-5 is priced
    assert CANARY not in json.dumps(result.to_dict(), default=str)


# --- tools -------------------------------------------------------------------------------------------

finished: list[str] = []  # the order the `echo` calls finished in (reset by the test using it)


@tool(timeout_s=5)
async def echo(text: str, delay_ms: int) -> str:
    """Return the text after a delay.

    Args:
        text: what to return
        delay_ms: how long to wait first
    """
    await asyncio.sleep(delay_ms / 1000)
    finished.append(text)
    return text.upper()


@tool(timeout_s=None)
def page(n: int) -> str:
    """Return page n of a long document.

    Args:
        n: the page number
    """
    return f"page {n}: " + "lorem ipsum " * 100


TOOLS = ToolSet([add, echo, page])
