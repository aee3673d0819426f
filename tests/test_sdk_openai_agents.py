"""The OpenAI Agents SDK (`openai-agents`) runs a tool-using agent against the sim server, offline.

As the Anthropic side runs the `anthropic` SDK against /v1/messages: nothing is patched, the agent
talks HTTP to /v1/chat/completions on 127.0.0.1, its tool really runs, and the server's account of
the requests (the scripted policy's view) shows what the framework sent. The SDK's own tracing
(which would export to OpenAI) is turned off.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from patterns.sim import Reply

from .sdk_harness import Tapped, say, use

agents = pytest.importorskip("agents")
pytestmark = pytest.mark.timeout(60)
KEY = "sk-openai-agents-dummy-0000"


@agents.function_tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def run_agent_sdk(server: Tapped, prompt: str) -> Any:
    from openai import AsyncOpenAI

    agents.set_tracing_disabled(True)

    async def main() -> Any:
        client = AsyncOpenAI(base_url=f"{server.url}/v1", api_key=KEY, max_retries=0)
        model = agents.OpenAIChatCompletionsModel(model="sim", openai_client=client)
        agent = agents.Agent(name="calculator", instructions="Be terse.", tools=[add], model=model)
        try:
            return await agents.Runner.run(agent, prompt)
        finally:
            await client.close()

    return asyncio.run(main())


def test_an_openai_agents_sdk_agent_calls_its_tool_and_answers() -> None:
    with Tapped(Reply([say("Adding."), use("add", {"a": 2, "b": 3})]), "It is 5.") as server:
        result = run_agent_sdk(server, "What is 2+3?")
    assert result.final_output == "It is 5." and server.script.done and server.posts == 2
    first, second = server.script.requests
    assert first.system == "Be terse." and first.tool_names() == ["add"] and first.last_user_text() == "What is 2+3?"
    [call] = second.tool_uses()
    assert call["name"] == "add" and call["input"] == {"a": 2, "b": 3}
    assert second.last_tool_results() == [{"tool_use_id": call["id"], "content": "5", "is_error": False}]
    usage = result.context_wrapper.usage
    assert usage.requests == 2 and usage.input_tokens == server.usage.prompt_tokens > 0
    assert usage.output_tokens == server.usage.output_tokens


def test_a_server_fault_reaches_the_framework_as_openais_own_error() -> None:
    import openai

    with Tapped("never", overloaded_rate=1.0, retry_after_s=0) as server:
        with pytest.raises(openai.InternalServerError) as info:
            run_agent_sdk(server, "hi")
    assert info.value.status_code == 503 and server.posts == 1 and server.script.requests == []
    assert info.value.body["type"] == "service_unavailable_error"  # type: ignore[index]
