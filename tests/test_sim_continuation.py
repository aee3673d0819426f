"""SimModel under max_tokens: a cut reply is continued when asked, and a cut tool_use is returned unfinished."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from benchmarks.tasks.registry import load_task
from patterns import Kind, RequestOptions, run_agent
from patterns.sim import Decider, Reply, Request, SimModel
from patterns.sim.continuation import remainder, split
from patterns.workflows import run_workflow


class Says:
    """A policy that always gives the same long answer, and a tool call after it when tools are offered."""

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        text = {"type": "text", "text": "The answer, in full, is forty-two; nothing more to add here."}
        if request.tools and not request.tool_results():
            return Reply([text, {"type": "tool_use", "name": "look", "input": {"q": "x" * 200}}])
        return Reply([text])


def test_a_cut_reply_asked_to_continue_goes_on_from_the_cut() -> None:
    res = run_agent(SimModel(Says()), "question", options=RequestOptions(max_tokens=4))
    assert res.output == "The answer, in full, is forty-two; nothing more to add here."
    assert [e.kind for e in res.events].count(Kind.RECOVERY) >= 1


def test_a_tool_use_cut_after_text_is_returned_unfinished() -> None:
    model = SimModel(Says())
    tools = [{"name": "look", "description": "Look.", "input_schema": {"type": "object"}}]
    msg = asyncio.run(model.create(messages=[{"role": "user", "content": "q"}], tools=tools, max_tokens=20))
    assert msg.stop_reason == "max_tokens"
    assert [b.type for b in msg.content] == ["text", "tool_use"] and msg.content[1].input == {}


def test_continuation_detection_and_remainder() -> None:
    convo = [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": "Hel"}]},
             {"role": "user", "content": "Continue exactly where you stopped."}]
    assert split(convo) == (1, "Hel")
    again = [*convo, {"role": "assistant", "content": [{"type": "text", "text": "lo"}]}, convo[2]]
    assert split(again) == (1, "Hello")  # continuations in a row fold into one
    assert split([*convo[:2], {"role": "user", "content": "A new question?"}]) is None
    blocks = [{"type": "text", "text": "Hello"}, {"type": "tool_use", "id": "t", "name": "n", "input": {}}]
    assert remainder(blocks, "Hel") == [{"type": "text", "text": "lo"}, blocks[1]]
    assert remainder(blocks, "Bye") is None


def test_a_small_max_tokens_no_longer_corrupts_a_multihop_answer() -> None:
    family = load_task("multihop:hops=2")
    for instance in family.instances(5, 0):
        with tempfile.TemporaryDirectory() as workdir:
            env = family.environment(instance, Path(workdir))
            res = run_workflow(family.design("agent", env), SimModel(family.policy()), instance.prompt,
                               options=RequestOptions(max_tokens=12))
            assert family.grade(instance, env, res.output) == 1.0, res.output
