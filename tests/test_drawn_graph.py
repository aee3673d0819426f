"""The drawn graph compiled into a workflow: what each node's step sends (tools, tool_choice, the shared
conversation), the bounds it enforces, the answer step, and a run end to end on a built-in family."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from benchmarks.criterion.drawability import compile_drawing, fits, from_json, learn_graph, to_json, walk_of
from benchmarks.criterion.drawability.walks import rounds_by_run
from benchmarks.tasks.registry import load_task
from patterns import ScriptedModel, Terminal, ToolSet, message, tool
from patterns.events import Kind
from patterns.result import Result
from patterns.scripted import tool_use_block
from patterns.sim import SimModel
from patterns.workflows import Agent, arun_workflow, draw, run_workflow

matplotlib.use("Agg")


@tool(timeout_s=None)
def a(x: str) -> str:
    """Tool a."""
    return f"a:{x}"


@tool(timeout_s=None)
def b(x: str) -> str:
    """Tool b."""
    return f"b:{x}"


@tool(timeout_s=None)
def c(x: str) -> str:
    """Tool c."""
    return f"c:{x}"


AGENT = Agent(system="You are the agent.", tools=ToolSet([a, b, c]))


def walks(*rounds: str, times: int = 3) -> list[tuple[frozenset[str], ...]]:
    return [tuple(frozenset(r.split("+")) for r in rounds)] * times


def call(*names: str) -> Any:
    return message(*[tool_use_block(n, {"x": "1"}) for n in names])


def offered(request: dict[str, Any]) -> list[str]:
    return [t["name"] for t in request.get("tools", [])]


def text(value: str | list[dict[str, Any]]) -> str:
    """A system prompt's or message's text (prompt caching sends it as blocks with a breakpoint)."""
    return value if isinstance(value, str) else "".join(block.get("text", "") for block in value)


def walked(result: Result) -> tuple[frozenset[str], ...]:
    return walk_of(rounds_by_run([{"run_id": "r", **e.to_dict()} for e in result.events])["r"])


def test_each_node_is_a_step_offered_only_its_tools_with_the_call_forced() -> None:
    drawing = learn_graph(walks("a", "b"))
    model = ScriptedModel([call("a"), call("b"), message("the answer")])
    result = run_workflow(compile_drawing(drawing, AGENT), model, "the task")
    assert result.terminal is Terminal.COMPLETED and result.output == "the answer" and result.steps == 3
    first, second, answer = model.requests
    assert offered(first) == ["a"] and first["tool_choice"] == {"type": "tool", "name": "a"}
    assert offered(second) == ["b"] and second["tool_choice"] == {"type": "tool", "name": "b"}
    # the agent's answer step: its system prompt, its tools listed, no call allowed
    assert answer["tool_choice"] == {"type": "none"} and offered(answer) == ["a", "b", "c"]
    assert {text(r["system"]) for r in model.requests} == {"You are the agent."}
    # one conversation, as the agent's turns share one
    assert [len(r["messages"]) for r in model.requests] == [1, 3, 5]
    assert answer["messages"][0]["role"] == "user" and text(answer["messages"][0]["content"]) == "the task"
    assert [m["role"] for m in answer["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert answer["messages"][4]["content"][0]["type"] == "tool_result" and "b:1" in str(answer["messages"][4])
    assert walked(result) == walks("a", "b", times=1)[0] and fits(drawing, walked(result))


def test_a_branch_point_offers_the_union_of_the_branches_tools_and_the_model_chooses() -> None:
    drawing = learn_graph(walks("a", "b") + walks("a", "c"))
    model = ScriptedModel([call("a"), call("c"), message("done")])
    result = run_workflow(compile_drawing(drawing, AGENT), model, "t")
    assert offered(model.requests[1]) == ["b", "c"] and model.requests[1]["tool_choice"] == {"type": "any"}
    assert [e.name for e in result.events if e.kind is Kind.MODEL_CALL] == ["drawn:a", "drawn:b|c", "drawn:answer"]
    assert walked(result) == walks("a", "c", times=1)[0]


def test_a_loop_is_bounded_by_the_learned_bound_and_code_takes_the_exit() -> None:
    drawing = learn_graph(walks("a", "a", "a") + walks("a"))
    model = ScriptedModel([call("a"), call("a"), call("a"), message("after three")])
    result = run_workflow(compile_drawing(drawing, AGENT), model, "t")
    choices = [r.get("tool_choice") for r in model.requests]
    # a again or the answer: the model may take the exit; after the third `a` the bound leaves only the answer
    assert choices == [{"type": "tool", "name": "a"}, {"type": "auto"}, {"type": "auto"}, {"type": "none"}]
    assert result.output == "after three" and result.tool_calls == 3


def test_the_model_takes_the_exit_where_the_drawing_may_end() -> None:
    drawing = learn_graph(walks("a", "a", "a") + walks("a"))
    model = ScriptedModel([call("a"), message("enough")])
    result = run_workflow(compile_drawing(drawing, AGENT), model, "t")
    assert result.output == "enough" and result.steps == 2
    assert not [e for e in result.events if e.kind is Kind.DECISION]


def test_a_cycle_through_two_nodes_is_bounded_by_the_most_visits_seen() -> None:
    drawing = learn_graph(walks("a+b", "c", "b", "c", "b") + walks("a+b", "c", "b"))
    model = ScriptedModel([call("a", "b"), call("c"), call("b"), call("c"), call("b"), message("fixed")])
    result = run_workflow(compile_drawing(drawing, AGENT), model, "t")
    assert model.requests[0]["tool_choice"] == {"type": "any"} and offered(model.requests[0]) == ["a", "b"]
    assert [r.get("tool_choice", {}).get("type") for r in model.requests] == ["any", "tool", "tool", "auto", "tool",
                                                                               "none"]
    assert result.output == "fixed" and fits(drawing, walked(result))


def test_a_model_that_ignores_a_forced_call_ends_the_run_with_its_answer_and_says_so() -> None:
    model = ScriptedModel([message("no tools for me")])
    result = run_workflow(compile_drawing(learn_graph(walks("a", "b")), AGENT), model, "t")
    assert result.output == "no tools for me" and result.terminal is Terminal.COMPLETED
    assert any("where the drawing calls a" in (e.detail or "") for e in result.events if e.kind is Kind.DECISION)


def test_calls_that_match_no_node_exactly_are_taken_as_the_closest_branch() -> None:
    drawing = learn_graph(walks("a+b", "c"))
    model = ScriptedModel([call("a"), call("c"), message("ok")])
    result = run_workflow(compile_drawing(drawing, AGENT), model, "t")
    assert result.output == "ok" and model.requests[1]["tool_choice"] == {"type": "tool", "name": "c"}
    assert any(e.detail == "called a: taken as a+b" for e in result.events if e.kind is Kind.DECISION)


def test_a_refusal_ends_the_run_as_a_refusal() -> None:
    model = ScriptedModel([message("no", stop_reason="refusal")])
    result = run_workflow(compile_drawing(learn_graph(walks("a")), AGENT), model, "t")
    assert result.terminal is Terminal.REFUSAL


def test_the_drawn_workflow_draws_itself_and_survives_json() -> None:
    drawing = learn_graph(walks("a", "b", "b") + walks("a", "c"))
    spec = compile_drawing(from_json(to_json(drawing)), AGENT)
    g = spec.graph
    assert {"input", "output", "drawn.a", "drawn.b", "drawn.c", "drawn.answer"} == set(g)
    assert g.edges["drawn.b", "drawn.b"]["loop"] and g.nodes["drawn.b"]["label"] == "b (≤2 in a row)"
    assert g.has_edge("input", "drawn.a") and g.has_edge("drawn.answer", "output")
    draw(g)
    model = ScriptedModel([call("a"), call("b"), call("b"), message("x")])
    assert run_workflow(spec, model, "t").output == "x"


async def _run(family: Any, instance: Any, drawing: Any = None) -> tuple[bool, Result]:
    with tempfile.TemporaryDirectory() as tmp:
        env = family.environment(instance, Path(tmp))
        agent = family.design("agent", env)
        spec = agent if drawing is None else compile_drawing(drawing, agent)
        result = await arun_workflow(spec, SimModel(family.policy(), error_rate=0.0, seed=1), instance.prompt)
        return result.terminal is Terminal.COMPLETED and family.grade(instance, env, result.output) >= 1.0, result


@pytest.mark.parametrize("name", ["multihop", "repair", "pipeline"])
def test_drawn_from_ten_instances_it_succeeds_where_the_agent_does_on_ten_others(name: str) -> None:
    async def main() -> None:
        family = load_task(name)
        instances = family.instances(20, 0)
        learned = [walked((await _run(family, i))[1]) for i in instances[:10]]
        drawing = learn_graph(learned)
        for instance in instances[10:]:
            (agent_ok, agent), (drawn_ok, drawn) = await _run(family, instance), await _run(family, instance, drawing)
            assert fits(drawing, walked(agent)), instance.id  # at error rate 0 the drawing covers them all
            assert drawn_ok == agent_ok, instance.id
            assert walked(drawn) == walked(agent) and drawn.steps == agent.steps

    asyncio.run(main())
