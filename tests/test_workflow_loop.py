"""The pieces a workflow drawn in advance is made of beyond the six patterns: a bounded `Loop`, a
`Route` decided in code, and a `ToolStep` that keeps its input and its errors for the next step."""

from __future__ import annotations

import networkx as nx

from patterns import RequestOptions, ScriptedModel, Terminal, ToolSet, message, tool
from patterns.workflows import LLM, Chain, Code, Loop, Route, ToolStep, run_workflow

BUILT = RequestOptions(prompt_cache=False)


@tool(timeout_s=None)
def check(line: str) -> str:
    """Check a line.

    Args:
        line: the line
    """
    if line == "bad":
        raise ValueError("INVALID: the line is bad")
    return "VALID"


TOOLS = ToolSet([check])


def _kept(text: str, result: str, failed: bool) -> str:
    return f"{text}|{'ERR' if failed else 'OK'}|{result}"


def test_a_loop_repeats_its_body_until_done_and_stops_there() -> None:
    model = ScriptedModel([message("draft 1"), message("draft 2"), message("DONE 3"), message("never")])
    spec = Loop(LLM("fix", "{input}"), until=lambda t: t.startswith("DONE"), max_rounds=5)
    result = run_workflow(spec, model, "task", options=BUILT)
    assert result.terminal is Terminal.COMPLETED and result.output == "DONE 3"
    assert len(model.requests) == 3
    assert [m["messages"][0]["content"] for m in model.requests] == ["task", "draft 1", "draft 2"]
    assert "loop_exhausted" not in result.extra


def test_a_loop_stops_at_its_bound_and_says_so() -> None:
    model = ScriptedModel([message(f"draft {i}") for i in range(1, 4)])
    spec = Loop(LLM("fix", "{input}"), until=lambda t: False, max_rounds=3, name="fixes")
    result = run_workflow(spec, model, "task", options=BUILT)
    assert result.output == "draft 3" and len(model.requests) == 3
    assert result.extra["loop_exhausted"] == ["fixes"]


def test_a_loop_draws_as_a_bounded_cycle() -> None:
    graph = Loop(LLM("fix", "{input}"), until=lambda t: True, max_rounds=4).graph
    loops = [(u, v) for u, v, is_loop in graph.edges(data="loop") if is_loop]
    assert loops == [("loop.until", "fix")]
    assert "≤4" in graph.nodes["loop.until"]["label"]
    assert nx.has_path(graph, "input", "output")


def test_a_route_decided_in_code_makes_no_model_call() -> None:
    model = ScriptedModel([message("fixed it")])
    spec = Route(Code("valid?", lambda t: "valid" if t.endswith("VALID") and "INVALID" not in t else "invalid"),
                 {"valid": Code("keep", str.upper), "invalid": LLM("fix", "fix: {input}")})
    assert run_workflow(spec, ScriptedModel([]), "x VALID", options=BUILT).output == "X VALID"
    result = run_workflow(spec, model, "x INVALID", options=BUILT)
    assert result.output == "fixed it" and model.requests[0]["messages"][0]["content"] == "fix: x INVALID"


def test_a_tool_step_with_keep_passes_its_input_result_and_error_on() -> None:
    step = ToolStep("check", TOOLS, "check", lambda t: {"line": t}, keep=_kept)
    ok = run_workflow(Chain([step]), ScriptedModel([]), "good", options=BUILT)
    bad = run_workflow(Chain([step]), ScriptedModel([]), "bad", options=BUILT)
    assert ok.output == "good|OK|VALID" and ok.terminal is Terminal.COMPLETED
    assert bad.terminal is Terminal.COMPLETED and bad.output.startswith("bad|ERR|") and "INVALID" in bad.output
    plain = run_workflow(Chain([ToolStep("check", TOOLS, "check", lambda t: {"line": t})]), ScriptedModel([]), "bad",
                         options=BUILT)
    assert plain.terminal is Terminal.ERROR and plain.errors[0].kind == "ToolError"
