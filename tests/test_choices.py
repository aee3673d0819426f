"""One definition of "drawn" (`patterns.workflows.choices`): a workflow's model choices after a tool has answered
have at most K branches (a tree of routers counted by its leaves); a loop in which the model picks freely among
more tools is an agent in disguise, refused as a workflow; code dispatch is drawn, however many tools it reaches."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from patterns import RequestOptions, ScriptedModel, Terminal, ToolSet, message, tool
from patterns.workflows import (
    LLM,
    Agent,
    AgentLike,
    Chain,
    Code,
    Dispatch,
    EvaluateOptimize,
    K,
    Loop,
    Route,
    ToolStep,
    agent_like,
    arun_workflow,
    check_drawn,
    model_choices,
    run_workflow,
)

BUILT = RequestOptions(prompt_cache=False)


def _tool(i: int) -> Any:
    def look(key: str) -> str:
        return json.dumps({"found": f"note {i}", "next": {"tool": f"place_{(i + 1) % 10}", "key": key}})

    look.__name__ = f"place_{i}"
    look.__doc__ = f"Look in place {i}.\n\nArgs:\n    key: what to look up\n"
    return tool(timeout_s=None)(look)


TEN = ToolSet([_tool(i) for i in range(10)])
THREE = ToolSet([TEN.tools[f"place_{i}"] for i in range(3)])


def test_a_loop_whose_model_picks_among_more_than_k_tools_is_refused_as_agent_like() -> None:
    with pytest.raises(AgentLike, match=r"agent-like: .* chooses among 10 next steps"):
        Loop(LLM("step", "{input}", tools=TEN), until=lambda t: True, max_rounds=8)
    with pytest.raises(AgentLike, match="agent-like"):
        EvaluateOptimize(LLM("generate", "{input}", tools=TEN), LLM("review", "{input}"), max_rounds=3)


def test_a_loop_with_a_model_router_of_at_most_k_tools_is_a_workflow() -> None:
    assert K == 3
    spec = Loop(LLM("step", "{input}", tools=THREE), until=lambda t: True, max_rounds=8)
    assert agent_like(spec) is None
    [choice] = model_choices(spec.graph)
    assert (choice.branches, choice.after_tool) == (3, True)


def test_a_tree_of_routers_counts_as_its_leaves() -> None:
    """A 3-way model router whose branches are each offered 3 tools: a 9-way choice, inside a loop refused."""
    handlers = {f"h{i}": LLM(f"h{i}", "{input}", tools=THREE) for i in range(3)}
    tree = Route(LLM("classify", "{input}"), handlers)
    [root] = model_choices(tree.graph)
    assert root.branches == 9
    assert agent_like(tree) is None  # on the task's input, before any tool answers: a routing table
    with pytest.raises(AgentLike, match="among 9 next steps"):
        Loop(tree, until=lambda t: True, max_rounds=4)


def test_a_router_on_the_input_may_have_any_number_of_branches() -> None:
    routes = {f"r{i}": ToolStep(f"r{i}", TEN, f"place_{i}", lambda t: {"key": t}) for i in range(10)}
    spec = Chain([Route(LLM("classify", "{input}"), routes), LLM("answer", "{input}")])
    assert agent_like(spec) is None
    after = Chain([ToolStep("first", TEN, "place_0", lambda t: {"key": t}), Route(LLM("classify", "{input}"), routes)])
    assert "among 10 next steps" in (agent_like(after) or "")


def test_code_dispatch_is_drawn_however_many_tools_it_reaches() -> None:
    def pick(text: str) -> tuple[str, dict[str, str]] | None:
        nxt = json.loads(text).get("next")
        return (nxt["tool"], {"key": nxt["key"]}) if nxt else None

    spec = Loop(Dispatch("follow", TEN, pick, field="next.tool"), until=lambda t: "note 4" in t, max_rounds=12)
    assert agent_like(spec) is None and model_choices(spec.graph) == []
    result = run_workflow(spec, ScriptedModel([]), json.dumps({"next": {"tool": "place_0", "key": "k"}}),
                          options=BUILT)
    assert result.terminal is Terminal.COMPLETED and json.loads(result.output)["found"] == "note 4"
    assert result.steps == 0 and result.tool_calls == 5  # five calls, no model call: code read every step

    coded = Route(Code("status", lambda t: "a" if "a" in t else "b"), {"a": LLM("a", "{input}", tools=TEN),
                                                                     "b": LLM("b", "{input}")})
    assert [c.branches for c in model_choices(coded.graph)] == [10]  # code picked the branch, the model the tool


def test_a_dispatch_to_a_tool_outside_its_drawing_is_a_typed_failure() -> None:
    spec = Dispatch("follow", THREE, lambda t: ("place_7", {"key": "k"}), field="next.tool")
    result = run_workflow(spec, ScriptedModel([]), "x", options=BUILT)
    assert result.terminal is Terminal.ERROR and result.errors[0].kind == "UnknownTool"
    assert "place_0, place_1, place_2" in result.errors[0].message


def test_running_an_agent_like_workflow_is_refused_before_any_call() -> None:
    """An agent step with more than K tools inside a chain, after a tool has answered: refused by
    `arun_workflow` (a ValueError) before the model is called; the agent pattern itself is never refused."""
    model = ScriptedModel([message("never")])
    spec = Chain([ToolStep("first", TEN, "place_0", lambda t: {"key": t}), Agent(tools=TEN)])
    with pytest.raises(AgentLike, match="agent-like"):
        asyncio.run(arun_workflow(spec, model, "task"))
    assert model.requests == []
    check_drawn(Agent(tools=TEN))  # the agent is the agent
