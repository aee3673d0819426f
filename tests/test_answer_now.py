"""The simulated model under `tool_choice` `none` (a drawn workflow's answer step) answers now, from what it has:
`pipeline` the line it would have checked, `support` what its lookups found; never the lead-in of a call it may
not make."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from benchmarks.tasks.registry import load_task
from patterns.sim import SimModel
from patterns.workflows.steps import render


def ask(tool_choice: dict[str, Any] | None, result: str, seed: int, where: Path) -> Any:
    """The agent's conversation after one check_format call that answered `result`, asked again."""
    family = load_task("pipeline")
    instance = family.instances(seed + 1, seed)[seed]
    agent = family.design("agent", family.environment(instance, where))
    messages = [{"role": "user", "content": render(agent.prompt, instance.prompt, instance.prompt)},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "check_format",
                                                   "input": {"line": "Smith; Ann; 1990-01-02"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": result}]}]
    params: dict[str, Any] = {"messages": messages, "tools": agent.tools.params, "max_tokens": 500}
    if agent.system:
        params["system"] = agent.system
    if tool_choice is not None:
        params["tool_choice"] = tool_choice
    return asyncio.run(SimModel(policy=family.policy(), error_rate=0.0).create(**params))


def test_after_an_invalid_check_the_model_fixes_and_checks_again_or_answers_the_fix_when_none(tmp_path: Path) -> None:
    report = "INVALID: the line must read 'Last, First | date | city'."
    again = ask(None, report, 0, tmp_path)
    assert again.stop_reason == "tool_use"  # the agent fixes and checks again (`until it is valid`)
    line = next(b.input["line"] for b in again.content if b.type == "tool_use")
    now = ask({"type": "none"}, report, 0, tmp_path)
    texts = [b.text for b in now.content if b.type == "text"]
    assert now.stop_reason == "end_turn" and all(b.type == "text" for b in now.content)
    assert texts == [line]  # the fixed line itself is the answer, not "Fixing the layout."


def test_after_a_valid_check_the_answer_now_is_a_line_not_the_lead_in_of_a_redo(tmp_path: Path) -> None:
    """The line checked is not the record's: the self-check doubts it and redoes it; told `none`, the redone line
    is the answer (the agent would check it again), where the API's `none` had left "I doubt it …"."""
    now = ask({"type": "none"}, "VALID: the line has the required layout.", 0, tmp_path)
    (text,) = [b.text for b in now.content if b.type == "text"]
    assert now.stop_reason == "end_turn" and text.count(" | ") == 2 and "doubt" not in text


def test_support_told_to_answer_now_after_a_failed_lookup_answers_what_it_has(tmp_path: Path) -> None:
    """With tools, a failed lookup is retried ("That lookup failed; trying again."); told `none`, the model answers
    from its lookups instead of leaving that lead-in as the answer."""
    family = load_task("support")
    instance = family.instances(1, 0)[0]
    agent = family.design("agent", family.environment(instance, tmp_path))
    model = SimModel(policy=family.policy(), error_rate=0.0)
    params: dict[str, Any] = {"messages": [{"role": "user", "content": render(agent.prompt, instance.prompt,
                                                                               instance.prompt)}],
                              "tools": agent.tools.params, "max_tokens": 500, "system": agent.system}
    first = asyncio.run(model.create(**params))
    uses = [b for b in first.content if b.type == "tool_use"]
    failed = [{"type": "tool_result", "tool_use_id": u.id, "content": "Error: the service timed out",
               "is_error": True} for u in uses]
    params["messages"] += [{"role": "assistant", "content": [u.model_dump() for u in uses]},
                           {"role": "user", "content": failed}]
    again = asyncio.run(model.create(**params))
    assert again.stop_reason == "tool_use"  # the agent retries
    now = asyncio.run(model.create(**params, tool_choice={"type": "none"}))
    (text,) = [b.text for b in now.content if b.type == "text"]
    assert now.stop_reason == "end_turn" and "trying again" not in text and text.strip()


def first_turn(task: str, tool_choice: dict[str, Any] | None, where: Path) -> Any:
    """The agent's first turn on `task`'s first instance, with or without `tool_choice`."""
    family = load_task(task)
    instance = family.instances(1, 0)[0]
    agent = family.design("agent", family.environment(instance, where))
    params: dict[str, Any] = {"messages": [{"role": "user", "content": render(agent.prompt, instance.prompt,
                                                                               instance.prompt)}],
                              "tools": agent.tools.params, "max_tokens": 500, "system": agent.system or ""}
    if tool_choice is not None:
        params["tool_choice"] = tool_choice
    return asyncio.run(SimModel(policy=family.policy(), error_rate=0.0).create(**params))


@pytest.mark.parametrize(("task", "lead_in", "answer"), [("explore", "Looking in", "UNKNOWN"),
                                                        ("repair", "I'll read the file", "NOT FIXED")])
def test_the_trails_and_repair_told_to_answer_now_say_what_they_know(task: str, lead_in: str, answer: str,
                                                                    tmp_path: Path) -> None:
    """A trail not yet at its end, a file not yet validated: with tools the first turn looks or reads; told
    `none`, the answer says the trail or the file is unfinished, not the lead-in of the look."""
    assert first_turn(task, None, tmp_path).stop_reason == "tool_use"
    now = first_turn(task, {"type": "none"}, tmp_path)
    (text,) = [b.text for b in now.content if b.type == "text"]
    assert text.startswith(answer) and lead_in not in text
