"""Prompt caching through the REAL `anthropic` SDK, against the sim server on 127.0.0.1 (see sdk_harness)."""

from __future__ import annotations

import anthropic
import pytest

from patterns import RequestOptions, Terminal
from patterns.sim import Reply

from .sdk_harness import CANARY, FAST, MODEL_ID, TOOLS, Tapped, agent, assert_accounted, say, sdk, use

pytestmark = pytest.mark.timeout(60)

LONG_SYSTEM = "Answer with the exact figure the tools return, and nothing else. " * 80  # about 1,300 tokens


def cache_usage(server: Tapped) -> list[tuple[int, int, int]]:
    """(input, cache write, cache read) of every reply the server sent, as the SDK received them."""
    return [(b["usage"]["input_tokens"], b["usage"]["cache_creation_input_tokens"],
             b["usage"]["cache_read_input_tokens"]) for b in server.replies]


def test_an_agent_through_the_sdk_writes_its_prefix_then_reads_it_back() -> None:
    with Tapped(Reply([say("Adding."), use("add", {"a": 2, "b": 3})]), "It is 5.") as server:
        res = sdk(server, agent("What is 2+3?", system=LONG_SYSTEM, tools=TOOLS, retry=FAST))
    assert res.terminal is Terminal.COMPLETED and res.output == "It is 5."
    assert_accounted(res, server)  # the run's usage is exactly what the server reported
    (in1, write1, read1), (in2, write2, read2) = cache_usage(server)
    assert read1 == 0 and write1 > 1024  # tools + system + the prompt, written once
    assert read2 == write1 and write2 > 0  # turn 2 reads turn 1's prefix and writes only what is new
    assert in1 == in2 == 3  # the breakpoint is on the last message: only the request's overhead is uncached
    assert res.usage.cache_read_tokens == read2 and res.usage.cache_write_tokens == write1 + write2


def test_with_the_cache_off_the_server_bills_every_prompt_token_as_input() -> None:
    with Tapped(Reply([say("Adding."), use("add", {"a": 2, "b": 3})]), "It is 5.") as server:
        res = sdk(server, agent("What is 2+3?", system=LONG_SYSTEM, tools=TOOLS, retry=FAST,
                                options=RequestOptions(prompt_cache=False)))
    assert res.terminal is Terminal.COMPLETED
    assert [u[1:] for u in cache_usage(server)] == [(0, 0), (0, 0)]
    assert_accounted(res, server)


def test_a_plain_sdk_client_marking_its_own_system_prompt_sees_cache_usage() -> None:
    with Tapped("one", "two", "three") as server:
        client = anthropic.Anthropic(base_url=server.url, api_key=CANARY, max_retries=0)
        system = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]
        replies = [client.messages.create(model=MODEL_ID, max_tokens=20, system=system,  # type: ignore[arg-type]
                                          messages=[{"role": "user", "content": f"question {k}"}]) for k in range(3)]
        client.close()
    usage = [r.usage for r in replies]
    assert usage[0].cache_creation_input_tokens and usage[0].cache_creation_input_tokens > 1024
    assert [u.cache_read_input_tokens for u in usage] == [0, *[usage[0].cache_creation_input_tokens] * 2]
    assert [u.cache_creation_input_tokens for u in usage[1:]] == [0, 0]
    assert len({u.input_tokens for u in usage}) == 1  # the unmarked question and overhead, billed as input
