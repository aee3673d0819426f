"""The two compaction stages of the agent loop, with a scripted model: the exact requests, in order.

Stage 1 clears old tool results; stage 2 is one model call (`compaction`) whose summary, with the
task, replaces the conversation. Every request sent must be a valid conversation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from patterns import Kind, Limits, RequestOptions, ScriptedModel, Terminal, ToolSet, message, run_agent, tool
from patterns.agent import CONTINUE_NUDGE
from patterns.compaction import CLEARED
from patterns.compaction_summary import CLIPPED, OMITTED, SUMMARY_HEADER, SUMMARY_INSTRUCTION
from patterns.conversation import validate_conversation
from patterns.scripted import tool_use_block

from .helpers import api_error, prompt_too_long

# Prompt caching (when this checkout has it) adds breakpoints to every request; these tests are about content.
NO_CACHE = RequestOptions(prompt_cache=False)  # the requests exactly as the loop built them


@tool(timeout_s=None)
def page(n: int) -> str:
    """Return page n of a long document.

    Args:
        n: the page number
    """
    return f"page {n}: " + "lorem ipsum " * 30


TOOLS = ToolSet([page])
SUMMARY = "Task: read pages. Done: pages 1-3. Facts: lorem. Next: answer."


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(n: int) -> dict[str, Any]:
    return tool_use_block("page", {"n": n}, id=f"t{n}")


def result(n: int, cleared: bool = False) -> dict[str, Any]:
    content = CLEARED if cleared else f"page {n}: " + "lorem ipsum " * 30
    return {"type": "tool_result", "tool_use_id": f"t{n}", "content": content}


def rounds(ns: range, cleared: set[int] = frozenset()) -> list[dict[str, Any]]:  # type: ignore[assignment]
    out: list[dict[str, Any]] = []
    for n in ns:
        out += [{"role": "assistant", "content": [use(n)]}, {"role": "user", "content": [result(n, n in cleared)]}]
    return out


def summary_call(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with the fixed instruction as the last user turn's final block."""
    last = messages[-1]
    content = [text(last["content"])] if isinstance(last["content"], str) else last["content"]
    return [*messages[:-1], {"role": "user", "content": [*content, text(SUMMARY_INSTRUCTION)]}]


def summarised(task: str, summary: str = SUMMARY) -> dict[str, Any]:
    return {"role": "user", "content": [text(task), text(f"{SUMMARY_HEADER}\n{summary}")]}


def run(script: list[Any], prompt: str = "Read the pages.", **limits: Any) -> tuple[Any, list[dict[str, Any]]]:
    model = ScriptedModel(script)
    res = run_agent(model, prompt, tools=TOOLS, limits=Limits(**limits), options=NO_CACHE)
    for request in model.requests:
        assert validate_conversation(request["messages"]) == [], request["messages"]
    assert validate_conversation(res.messages) == []
    return res, model.requests


def stages(res: Any) -> list[str]:
    return [e.name for e in res.events if e.kind is Kind.COMPACTION]


def test_stage_1_alone_is_enough_when_clearing_old_results_fits() -> None:
    res, sent = run([message(use(1)), message(use(2)), prompt_too_long(1010, 1000), message("done")])
    assert res.terminal is Terminal.COMPLETED and res.output == "done" and res.steps == 3
    task = {"role": "user", "content": "Read the pages."}
    assert [r["messages"] for r in sent] == [
        [task], [task, *rounds(range(1, 2))], [task, *rounds(range(1, 3))], [task, *rounds(range(1, 3), {1})]]
    assert stages(res) == ["collapse"] and res.recoveries == 1
    assert "stage 1 (prompt is too long): cleared 1 tool results" in res.events[-2].detail


def test_stage_1_not_enough_then_a_summary_call_keeps_the_task_and_the_latest_round() -> None:
    script = [*(message(use(n)) for n in range(1, 7)), prompt_too_long(2000, 1000), message(SUMMARY), message("ok")]
    res, sent = run(script)
    task = {"role": "user", "content": "Read the pages."}
    collapsed = [task, *rounds(range(1, 7), {1, 2, 3, 4, 5})]
    assert [r["messages"] for r in sent[6:]] == [
        [task, *rounds(range(1, 7))],  # too long
        summary_call(collapsed),  # stage 2, on what stage 1 left
        [summarised("Read the pages."), *rounds(range(6, 7))],  # the task, the summary, the latest round
    ]
    assert sent[7]["tools"] == TOOLS.params and sent[7]["tool_choice"] == {"type": "none"}
    assert res.terminal is Terminal.COMPLETED and res.output == "ok"
    assert stages(res) == ["collapse", "summary"] and res.recoveries == 2
    calls = [e for e in res.events if e.kind is Kind.MODEL_CALL]
    assert [e.name for e in calls] == [""] * 6 + ["compaction", ""] and res.steps == 8  # it counts as a step
    assert res.usage.input_tokens == 8 * 10  # and its usage is in the total


def test_nothing_clearable_goes_to_stage_2_at_once_and_a_long_task_keeps_its_head_and_tail() -> None:
    prompt = "HEAD " + "x" * 3000 + " TAIL"
    res, sent = run([prompt_too_long(2000, 1000), message(SUMMARY), message("ok")], prompt=prompt)
    assert [r["messages"] for r in sent[:2]] == [[{"role": "user", "content": prompt}],
                                                 summary_call([{"role": "user", "content": prompt}])]
    first = sent[2]["messages"]
    assert len(first) == 1 and first[0]["content"][1] == text(f"{SUMMARY_HEADER}\n{SUMMARY}")
    kept = first[0]["content"][0]["text"]
    marker = CLIPPED.split("{")[0]
    assert kept.startswith("HEAD xxx") and kept.endswith("xxx TAIL") and marker in kept and len(kept) < len(prompt)
    assert res.terminal is Terminal.COMPLETED and stages(res) == ["summary"]


def test_still_too_long_after_stage_2_is_a_context_overflow_and_no_loop() -> None:
    res, sent = run([prompt_too_long(), message(SUMMARY), prompt_too_long(), message("never sent")])
    assert res.terminal is Terminal.ERROR and [e.kind for e in res.errors] == ["ContextOverflow"]
    assert len(sent) == 3 and sent[2]["messages"] == [summarised("Read the pages.")]
    assert stages(res) == ["summary"] and res.steps == 1


def test_a_summary_call_that_is_too_long_itself_is_retried_once_on_a_truncated_middle() -> None:
    script = [*(message(use(n)) for n in range(1, 4)), prompt_too_long(4000, 1000), prompt_too_long(1100, 1000),
              message(SUMMARY), message("ok")]
    res, sent = run(script)
    task = {"role": "user", "content": "Read the pages."}
    collapsed = [task, *rounds(range(1, 4), {1, 2})]
    assert sent[4]["messages"] == summary_call(collapsed)
    truncated = [{"role": "user", "content": [text("Read the pages."), text(OMITTED.format(n=4))]},
                 *summary_call(rounds(range(3, 4)))]
    assert sent[5]["messages"] == truncated  # the first message, a marker, the latest round
    assert sent[6]["messages"] == [summarised("Read the pages.")]
    assert res.terminal is Terminal.COMPLETED and stages(res) == ["collapse", "summary"]
    errors = [e for e in res.events if e.kind is Kind.ERROR]
    assert [e.name for e in errors] == ["", "compaction"]


def test_a_summary_call_still_too_long_when_truncated_ends_the_run() -> None:
    res, sent = run([prompt_too_long(), prompt_too_long(), prompt_too_long(), message("never sent")])
    assert res.terminal is Terminal.ERROR and [e.kind for e in res.errors] == ["ContextOverflow"]
    assert len(sent) == 3 and res.steps == 0


def test_another_400_on_the_summary_call_is_that_error() -> None:
    res, _ = run([prompt_too_long(), api_error(400, "messages: text content blocks must be non-empty")])
    assert res.terminal is Terminal.ERROR and [e.kind for e in res.errors] == ["BadRequestError"]


def test_context_window_exceeded_keeps_its_text_then_both_stages() -> None:
    partial = "partial " * 300  # the reply that filled the window is the bulk: clearing two pages is not enough
    filled = message(partial, stop_reason="model_context_window_exceeded", input_tokens=3000, output_tokens=100)
    res, sent = run([*(message(use(n)) for n in range(1, 4)), filled, message(SUMMARY), message(" rest")])
    task = {"role": "user", "content": "Read the pages."}
    nudge = [{"role": "assistant", "content": [text(partial)]},
             {"role": "user", "content": CONTINUE_NUDGE}]
    assert sent[4]["messages"] == summary_call([task, *rounds(range(1, 4), {1, 2}), *nudge])
    assert sent[5]["messages"] == [summarised("Read the pages.")]  # the partial turn does not fit; the output keeps it
    assert res.terminal is Terminal.COMPLETED and res.output == partial + " rest"
    assert stages(res) == ["collapse", "summary"]
    assert all("model_context_window_exceeded" in e.detail for e in res.events if e.kind is Kind.COMPACTION)


def test_compact_at_tokens_compacts_before_the_next_call_without_a_400() -> None:
    script = [message(use(1)), message(use(2), input_tokens=50), message(use(3), input_tokens=5000),
              message(SUMMARY), message("ok")]
    res, sent = run(script, compact_at_tokens=1000)
    task = {"role": "user", "content": "Read the pages."}
    assert sent[3]["messages"] == summary_call([task, *rounds(range(1, 4), {1, 2})])
    assert sent[4]["messages"][0] == summarised("Read the pages.")
    assert res.terminal is Terminal.COMPLETED and [e for e in res.events if e.kind is Kind.ERROR] == []
    assert stages(res) == ["collapse", "summary"]
    assert all("compact_at_tokens" in e.detail for e in res.events if e.kind is Kind.COMPACTION)


def test_compact_at_tokens_is_off_by_default_and_checked() -> None:
    assert Limits().compact_at_tokens is None
    with pytest.raises(ValueError, match="compact_at_tokens"):
        Limits(compact_at_tokens=0)


def test_the_summary_call_counts_toward_max_steps() -> None:
    res, sent = run([message(use(1)), prompt_too_long(), message(SUMMARY), message("never sent")], max_steps=2)
    assert res.terminal is Terminal.MAX_STEPS and res.steps == 2 and len(sent) == 3  # the third call is not made
    assert [e.name for e in res.events if e.kind is Kind.MODEL_CALL] == ["", "compaction"]


def test_a_multihop_agent_finishes_after_a_stage_2_compaction_with_the_same_answer(tmp_path: Path) -> None:
    from benchmarks.tasks.multihop import AGENT_SYSTEM, Multihop
    from patterns.sim import SimModel

    family = Multihop(hops="6")
    instance = family.instances(1, 1)[0]
    outputs = []
    for window in (200_000, 900):  # 900 tokens: below this walk's longest prompt (about 1,300)
        env = family.environment(instance, tmp_path)
        model = SimModel(family.policy(), context_window=window)
        res = run_agent(model, instance.prompt, system=AGENT_SYSTEM, tools=env.tools, options=NO_CACHE)
        assert res.terminal is Terminal.COMPLETED
        outputs.append((res.output, stages(res)))
    (plain, none), (small, both) = outputs
    assert none == [] and "summary" in both and small == plain
