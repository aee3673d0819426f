"""Property-based invariants of the agent loop, for any sequence of replies a model can give.

Whatever the model says (text, any number of tool_use blocks with any input, any stop_reason, API
errors), the conversation the loop builds stays valid for the Messages API, usage totals equal the
sum over events, `steps` counts the model-call events, and no run exceeds its limits.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import anthropic
import pytest
from anthropic.types import Message, TextBlock, ToolUseBlock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patterns import Kind, Limits, RetryPolicy, ScriptedModel, ToolSet, Usage, message, run_agent, tool
from patterns.conversation import validate_conversation
from patterns.sim import SimModel

from .helpers import api_error, prompt_too_long, timeout_error

# Malformed tool_use inputs are built on purpose; pydantic warns when it serialises them.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

STOP_REASONS = ["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal",
                "model_context_window_exceeded", None]
FAST = RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)
_ids = itertools.count()


@tool(timeout_s=None)
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: first
        b: second
    """
    return a + b


TOOLS = ToolSet([add])

tool_inputs = st.one_of(
    st.fixed_dictionaries({"a": st.integers(-5, 5), "b": st.integers(-5, 5)}),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.one_of(st.integers(), st.text(max_size=3)), max_size=3),
    st.lists(st.integers(), max_size=2), st.text(max_size=5), st.none(),
)
blocks = st.one_of(
    st.builds(lambda t: TextBlock(type="text", text=t), st.text(max_size=12)),
    st.builds(lambda name, inp: ToolUseBlock.model_construct(type="tool_use", id=f"toolu_p{next(_ids)}", name=name,
                                                              input=inp),
              st.sampled_from(["add", "nope", "we!rd name", ""]), tool_inputs),
)


def _reply(content: list[Any], stop: str | None, tokens: int) -> Message:
    return Message.model_construct(
        id=f"msg_p{next(_ids)}", type="message", role="assistant", model="prop", content=content, stop_reason=stop,
        stop_sequence=None, usage=anthropic.types.Usage(input_tokens=tokens, output_tokens=3),
    )


replies = st.one_of(
    st.builds(_reply, st.lists(blocks, max_size=3), st.sampled_from(STOP_REASONS), st.integers(1, 400)),
    st.sampled_from(["429", "500", "529", "401", "too_long", "timeout"]),
)
_ERRORS = {"429": lambda: api_error(429), "500": lambda: api_error(500), "529": lambda: api_error(529),
           "401": lambda: api_error(401), "too_long": prompt_too_long, "timeout": timeout_error}


def _script(items: list[Any]) -> list[Any]:
    script = [_ERRORS[i]() if isinstance(i, str) else i for i in items]
    return script + [message("done") for _ in range(60)]  # whatever the loop still asks for ends it


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(replies, min_size=1, max_size=10), st.integers(1, 8), st.one_of(st.none(), st.integers(50, 2000)))
def test_the_loop_keeps_its_invariants_for_any_replies(items: list[Any], max_steps: int, budget: int | None) -> None:
    model = ScriptedModel(_script(items))
    res = run_agent(model, "go", tools=TOOLS, retry=FAST, limits=Limits(max_steps=max_steps, token_budget=budget))

    assert validate_conversation(res.messages) == [], res.messages
    calls = [e for e in res.events if e.kind is Kind.MODEL_CALL]
    assert res.steps == len(calls) <= max_steps
    assert sum((e.usage for e in calls), Usage()) == res.usage
    if budget is not None:
        spent = Usage()
        for e in calls:  # a call is only made while the budget is not yet reached
            assert spent.total_tokens < budget
            spent = spent + e.usage
    sent_inputs = [b["input"] for m in res.messages if m["role"] == "assistant" and isinstance(m["content"], list)
                   for b in m["content"] if b["type"] == "tool_use"]
    assert all(isinstance(i, dict) for i in sent_inputs)
    for request in model.requests:  # every request actually sent was valid too
        assert validate_conversation(request["messages"]) == []


def test_a_built_conversation_is_accepted_by_the_simulated_api() -> None:
    uses = [ToolUseBlock(type="tool_use", id="t1", name="add", input={"a": 1, "b": 2}),
            ToolUseBlock(type="tool_use", id="t2", name="nope", input={})]
    res = run_agent(ScriptedModel([_reply(uses, "tool_use", 5), _reply([], "pause_turn", 5), message("3")]), "go",
                    tools=TOOLS)
    asyncio.run(SimModel().create(messages=[*res.messages, {"role": "user", "content": "thanks"}], max_tokens=16))
