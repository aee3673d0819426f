"""One definition of "drawn" (`patterns.workflows.choices`): who decides the next step, traced by data flow. A model
decision among more than K next steps on a loop (offered, routed through a tree counted by its leaves, or named by
the model and dispatched by code) is agent-like and refused; off a loop a router may have any number of branches;
code dispatch on a tool's or the input's field is drawn, however many tools it reaches."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import networkx as nx
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
    Parallel,
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


def _follow(text: str) -> tuple[str, dict[str, str]] | None:
    """Code's reading of a `next` field (a tool's JSON result, or a model's reply copying one)."""
    nxt = json.loads(text[text.find("{"):]).get("next") if "{" in text else None
    return (nxt["tool"], {"key": nxt["key"]}) if nxt else None


def test_a_loop_whose_model_picks_among_more_than_k_tools_is_refused_as_agent_like() -> None:
    with pytest.raises(AgentLike, match=r"agent-like: at step 'step' the model picks 1 of 10 next steps") as caught:
        Loop(LLM("step", "{input}", tools=TEN), until=lambda t: True, max_rounds=8)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300  # one whole line
    with pytest.raises(AgentLike, match="agent-like"):
        EvaluateOptimize(LLM("generate", "{input}", tools=TEN), LLM("review", "{input}"), max_rounds=3)


def test_a_loop_with_a_model_router_of_at_most_k_tools_is_a_workflow() -> None:
    assert K == 3
    spec = Loop(LLM("step", "{input}", tools=THREE), until=lambda t: True, max_rounds=8)
    assert agent_like(spec) is None
    [choice] = model_choices(spec.graph)
    assert (choice.branches, choice.on_loop, choice.how, choice.label) == (3, True, "offered", "step")


def test_a_tree_of_routers_counts_as_its_leaves() -> None:
    """A 3-way model router whose branches are each offered 3 tools: a 9-way choice, inside a loop refused."""
    handlers = {f"h{i}": LLM(f"h{i}", "{input}", tools=THREE) for i in range(3)}
    tree = Route(LLM("classify", "{input}"), handlers)
    [root] = model_choices(tree.graph)
    assert (root.branches, root.on_loop) == (9, False)
    assert agent_like(tree) is None  # once, not on a loop: a routing table
    with pytest.raises(AgentLike, match="1 of 9 next steps"):
        Loop(tree, until=lambda t: True, max_rounds=4)


def test_a_router_off_a_loop_may_have_any_number_of_branches_even_after_a_lookup() -> None:
    """Look up the order, then the model routes to 1 of 10 actions, then reply: the chapter's routing."""
    routes = {f"r{i}": ToolStep(f"r{i}", TEN, f"place_{i}", lambda t: {"key": t}) for i in range(10)}
    before = Chain([Route(LLM("classify", "{input}"), routes), LLM("answer", "{input}")])
    after = Chain([ToolStep("lookup", TEN, "place_0", lambda t: {"key": t}), Route(LLM("classify", "{input}"), routes),
                   LLM("reply", "{input}")])
    offered = Chain([ToolStep("lookup", TEN, "place_0", lambda t: {"key": t}), LLM("act", "{input}", tools=TEN)])
    for spec in (before, after, offered):
        assert agent_like(spec) is None
        assert [(c.branches, c.on_loop) for c in model_choices(spec.graph)] == [(10, False)]


def test_code_dispatch_on_a_tools_field_is_drawn_however_many_tools_it_reaches() -> None:
    spec = Loop(Dispatch("follow", TEN, _follow, field="next.tool"), until=lambda t: "note 4" in t, max_rounds=12)
    assert agent_like(spec) is None and model_choices(spec.graph) == []
    result = run_workflow(spec, ScriptedModel([]), json.dumps({"next": {"tool": "place_0", "key": "k"}}),
                          options=BUILT)
    assert result.terminal is Terminal.COMPLETED and json.loads(result.output)["found"] == "note 4"
    assert result.steps == 0 and result.tool_calls == 5  # five calls, no model call: code read every step

    coded = Route(Code("status", lambda t: "a" if "a" in t else "b"), {"a": LLM("a", "{input}", tools=TEN),
                                                                     "b": LLM("b", "{input}")})
    assert [c.branches for c in model_choices(coded.graph)] == [10]  # code picked the branch, the model the tool


def test_a_step_the_model_names_and_code_dispatches_is_the_models_decision() -> None:
    """The model reads the note and writes which place comes next; code calls that place. On a loop over ten
    places that is the agent's 10-way pick re-coded, and refused as such; a step between them changes nothing."""
    named = Chain([LLM("read", "{input}"), Dispatch("go", TEN, _follow, field="the reply")])
    assert [(c.how, c.branches, c.label) for c in model_choices(named.graph)] == [("named", 10, "go")]
    assert agent_like(named) is None  # once: routing
    with pytest.raises(AgentLike, match=r"at step 'go' the model picks 1 of 10 next steps \(a step it names"):
        Loop(named, until=lambda t: True, max_rounds=10)
    parsed = Chain([LLM("read", "{input}"), Code("parse", str.strip), Dispatch("go", TEN, _follow)])
    with pytest.raises(AgentLike, match="agent-like"):
        Loop(parsed, until=lambda t: True, max_rounds=10)
    places = {f"p{i}": ToolStep(f"p{i}", TEN, f"place_{i}", dict) for i in range(5)}
    worded = Chain([LLM("read", "{input}"), Route(Code("label", str.strip), places)])
    with pytest.raises(AgentLike, match="1 of 5 next steps"):  # code parses the label the model wrote
        Loop(worded, until=lambda t: True, max_rounds=10)
    looked = Chain([LLM("read", "{input}"), ToolStep("look", TEN, "place_0", lambda t: {"key": t}),
                    Dispatch("go", TEN, _follow)])
    assert agent_like(Loop(looked, until=lambda t: True, max_rounds=10)) is None  # the tool's field: code's


def test_a_handler_reads_the_routes_input_not_the_classifiers_reply() -> None:
    """A dispatch inside a model route's handler reads what the route was given (a tool's result): code's."""
    handler = Dispatch("go", TEN, _follow)
    spec = Loop(Chain([ToolStep("look", TEN, "place_0", lambda t: {"key": t}),
                       Route(LLM("classify", "{input}"), {"go": handler, "stop": Code("stop", str)})]),
                until=lambda t: True, max_rounds=10)
    assert agent_like(spec) is None
    assert [(c.how, c.branches) for c in model_choices(spec.graph)] == [("routed", 2)]


def test_a_survey_of_every_option_is_a_workflow() -> None:
    """Code calls all ten places each round and the model only reads: no model decision, whatever the breadth."""
    survey = Parallel(branches=[ToolStep(f"p{i}", TEN, f"place_{i}", lambda t: {"key": t}) for i in range(10)],
                      aggregate="\n".join)
    spec = Loop(Chain([survey, LLM("read", "{input}")]), until=lambda t: True, max_rounds=5)
    assert agent_like(spec) is None and model_choices(spec.graph) == []


def test_a_learned_graph_is_read_by_the_same_rule() -> None:
    """Drawability's graphs mark a model's pick on the edge: four picks back into a loop are agent-like."""
    def learned(width: int) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_node("start", kind="io", label="start")
        g.add_node("hub", kind="tool", label="hub", tools=("hub",))
        g.add_edge("start", "hub", code=True)
        for i in range(width):
            g.add_node(f"t{i}", kind="tool", label=f"t{i}", tools=(f"t{i}",))
            g.add_edge("hub", f"t{i}", model=True)
            g.add_edge(f"t{i}", "hub", code=True)
        return g

    assert agent_like(learned(3)) is None
    assert "at step 'hub' the model picks 1 of 4" in (agent_like(learned(4)) or "")
    once = learned(4)
    once.remove_edges_from([(f"t{i}", "hub") for i in range(4)])
    assert agent_like(once) is None  # picked once, never again: routing


def test_a_dispatch_to_a_tool_outside_its_drawing_is_a_typed_failure() -> None:
    spec = Dispatch("follow", THREE, lambda t: ("place_7", {"key": "k"}), field="next.tool")
    result = run_workflow(spec, ScriptedModel([]), "x", options=BUILT)
    assert result.terminal is Terminal.ERROR and result.errors[0].kind == "UnknownTool"
    assert "place_0, place_1, place_2" in result.errors[0].message


def test_running_an_agent_like_workflow_is_refused_before_any_call() -> None:
    """An agent step with more than K tools inside a chain (its own loop): refused by `arun_workflow` (a ValueError)
    before the model is called; the agent pattern itself is never refused."""
    model = ScriptedModel([message("never")])
    spec = Chain([ToolStep("first", TEN, "place_0", lambda t: {"key": t}), Agent(tools=TEN)])
    with pytest.raises(AgentLike, match="agent-like"):
        asyncio.run(arun_workflow(spec, model, "task"))
    assert model.requests == []
    check_drawn(Agent(tools=TEN))  # the agent is the agent
