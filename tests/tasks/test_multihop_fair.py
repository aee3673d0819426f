"""`multihop` is fair by construction: its policy treats the same content the same way whichever design sends
it (the same decisions, under the same keys), and its declared chain retries a misread id and backtracks
from a dead end as the agent does, within bounds that cover the family's range and the agent's own."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.studies.audit import probe, step_framed
from benchmarks.tasks.multihop import AGENT_SYSTEM, Multihop
from benchmarks.tasks.multihop.backtrack import rounds
from benchmarks.tasks.multihop.family import AGENT_RETRIES
from benchmarks.tasks.multihop.prompts import follow_prompt
from benchmarks.tasks.registry import load_task
from patterns import Limits, RequestOptions, ScriptedModel, message
from patterns.sim import Decider, Request, SimModel
from patterns.workflows import run_workflow

FAMILY = Multihop(hops="2", distractors=2)
X = FAMILY.instances(1, seed=0)[0]
DOCS, START, PATH = X.data["documents"], X.data["start"], X.data["path"]
OFF = next(d for d in DOCS if d in DOCS[START] and d not in (START, PATH[0]))  # a distractor the start refers to
BAD = "doc-0000"
ERROR = f"Error: LookupError: no document '{BAD}' in the knowledge base; check the id (ids look like doc-4821)"
TOOLS = FAMILY.environment(X, Path(".")).tools.params


def agent_params(*reads: tuple[str, str, bool]) -> dict[str, Any]:
    """The agent's request after reading each (id asked for, content shown, is_error), in order."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": X.prompt}]
    for i, (doc_id, content, failed) in enumerate(reads):
        use = {"type": "tool_use", "id": f"t{i}", "name": "read_document", "input": {"doc_id": doc_id}}
        messages += [{"role": "assistant", "content": [{"type": "text", "text": "Reading."}, use]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": content,
                                                   "is_error": failed}]}]
    return {"system": AGENT_SYSTEM, "messages": messages, "tools": TOOLS, "max_tokens": 1024}


def follow_params(doc_id: str, tried: list[str]) -> dict[str, Any]:
    """The declared walk's follow step on a document, with what was tried from it quoted."""
    prompt = follow_prompt(DOCS[doc_id], X.prompt, tried)
    return {"messages": [{"role": "user", "content": prompt}], "max_tokens": 1024}


def decide(params: dict[str, Any], u: float = 0.5, e: float = 0.1, c: float = 0.1,
           seed: int = 0) -> tuple[list[tuple[str, str]], Decider, dict[str, Any]]:
    """The policy on one request, every draw `u`: the (kind, key) of each draw, the counts, the reply."""
    keys: list[tuple[str, str]] = []

    def draws(kind: str, key: str) -> float:
        keys.append((kind, key))
        return u

    request = Request(system=params.get("system", ""), messages=params["messages"], tools=params.get("tools", []),
                      max_tokens=params["max_tokens"])
    decider = Decider(random.Random(seed), e, c, draws=draws)
    reply = FAMILY.policy().respond(request, decider)
    return keys, decider, {"blocks": [b["type"] for b in reply.content],
                           "read": [b["input"]["doc_id"] for b in reply.content if b["type"] == "tool_use"],
                           "text": reply.content[0].get("text", "")}


CASES = {
    "read the start": agent_params(),
    "decide at a document": agent_params((START, DOCS[START], False)),
    "notice a page off the question": agent_params((START, DOCS[START], False), (OFF, DOCS[OFF], False)),
    "re-decide after a failed read": agent_params((START, DOCS[START], False), (BAD, ERROR, True)),
}


@pytest.mark.parametrize("u", [0.0, 0.5, 0.99])
@pytest.mark.parametrize("case", CASES)
def test_each_capability_is_the_same_agent_framed_and_step_framed(case: str, u: float) -> None:
    keys, counts, reply = decide(CASES[case], u)
    framed = step_framed(CASES[case])
    assert "system" not in framed and AGENT_SYSTEM in framed["messages"][0]["content"]
    keys2, counts2, reply2 = decide(framed, u)
    assert (keys, counts.decisions, counts.judgements, reply) == (keys2, counts2.decisions, counts2.judgements, reply2)
    assert keys  # every capability makes a decision, and it is keyed


def test_what_the_agent_decides_the_follow_step_decides_under_the_same_keys() -> None:
    for u in (0.0, 0.99):  # every decision and judgement wrong; every one right
        at_start = decide(agent_params((START, DOCS[START], False)), u)
        assert at_start[0] == decide(follow_params(START, []), u)[0] == [("decide", f"multihop|choose|{START}")]
        # a failed read: the agent's next turn, and the follow step sent back with the tool's error quoted
        agent = decide(agent_params((START, DOCS[START], False), (BAD, ERROR, True)), u)
        step = decide(follow_params(START, [f'read_document("{BAD}") failed: {ERROR}']), u)
        assert agent[0] == step[0] == at_start[0] and agent[2]["read"] == [step[2]["text"].split(": ")[1]]
    # a page off the question: judged (noticed at u=0.99), then one re-decision at the start, the page excluded
    agent = decide(agent_params((START, DOCS[START], False), (OFF, DOCS[OFF], False)), 0.99, seed=3)
    dead = decide(follow_params(OFF, []), 0.99)
    again = decide(follow_params(START, [f"{OFF} did not fit: {dead[2]['text'].split(': ', 1)[1]}"]), 0.99, seed=3)
    assert dead[2]["text"].startswith("DEAD END")
    assert agent[0] == dead[0] + again[0] == [("judge", f"multihop|fits|{OFF}"), ("decide", f"multihop|choose|{START}")]
    assert agent[2]["read"] == [PATH[0]] and again[2]["text"] == f"NEXT: {PATH[0]}"


def test_a_wrong_re_decision_avoids_the_rejected_page_in_both_designs() -> None:
    for seed in range(20):
        agent = decide(agent_params((START, DOCS[START], False), (OFF, DOCS[OFF], False)), 0.05, e=0.1, c=0.0,
                       seed=seed)  # the judgement right (c=0), the re-decision wrong
        again = decide(follow_params(START, [f"{OFF} did not fit: off the question"]), 0.05, c=0.0, seed=seed)
        picked = agent[2]["read"][0] if agent[2]["read"] else agent[2]["text"]
        assert picked != OFF and again[2]["text"].split(": ", 1)[1] == picked


def test_a_repeated_decision_in_an_agent_conversation_is_correlated_as_the_workflow_retry() -> None:
    first, retry = agent_params((START, DOCS[START], False)), agent_params((START, DOCS[START], False),
                                                                            (BAD, ERROR, True))
    assert decide(first)[0] == decide(retry)[0] == decide(follow_params(START, [f"read_document: {ERROR}"]))[0]

    def outcomes(correlation: float) -> list[tuple[int, int]]:
        base = SimModel(policy=FAMILY.policy(), error_rate=0.5, error_correlation=correlation, context_decay=0)
        pairs = []
        for trial in range(60):
            model = base.fork(f"trial-{trial}")
            asyncio.run(model.create(**first))
            once = model.mistakes
            asyncio.run(model.create(**retry))
            pairs.append((once, model.mistakes - once))
        return pairs

    assert all(a == b for a, b in outcomes(1.0))  # the agent's re-decision repeats the first, right or wrong
    assert any(a != b for a, b in outcomes(0.0))


def test_the_declared_graph_has_the_read_the_loop_and_the_way_back() -> None:
    env = FAMILY.environment(X, Path("."))
    graph = FAMILY.design("chain", env).graph
    labels = {d["label"]: d["kind"] for _, d in graph.nodes(data=True)}
    assert labels["read_document"] == "tool" and labels["follow"] == "llm"
    assert labels["back to the last fitting document"] == "code" and labels["start id from the question"] == "code"
    assert labels[f"done? (≤{rounds(FAMILY.depth, AGENT_RETRIES)} rounds)"] == "code"
    assert [d for _, _, d in graph.edges(data="loop") if d] == [True]
    plain = Multihop(hops="2", distractors=2, plain="true").design("chain", env).graph
    plain_labels = {d["label"] for _, d in plain.nodes(data=True)}
    assert f"follow_{FAMILY.depth}" in plain_labels and "back to the last fitting document" not in plain_labels
    assert not any(d for _, _, d in plain.edges(data="loop"))  # read → follow, depth + 1 times, no way back


@pytest.mark.parametrize("plain", ["false", "true"])
def test_the_declared_chain_and_its_plain_variant_solve_the_default_range_at_error_0(plain: str) -> None:
    family = load_task(f"multihop:plain={plain}")
    instances = family.instances(24, seed=0)
    assert {x.data["hops"] for x in instances} == set(range(1, 7))
    for i, x in enumerate(instances):
        env = family.environment(x, Path("."))
        result = run_workflow(family.design("chain", env), SimModel(policy=family.policy(), seed=i), x.prompt)
        assert family.grade(x, env, result.output) == 1.0, (x.data["hops"], result.output)


def _scripted(family: Multihop, replies: list[str]) -> tuple[str, list[str]]:
    x = family.instances(1, seed=0)[0]
    model = ScriptedModel([message(r) for r in replies])
    result = run_workflow(family.design("chain", family.environment(x, Path("."))), model, x.prompt,
                          options=RequestOptions(prompt_cache=False))
    return result.output, [r["messages"][0]["content"] for r in model.requests]


def test_the_walk_quotes_the_error_and_the_rejected_page_and_goes_back() -> None:
    family = Multihop(hops="2", distractors=2)
    output, prompts = _scripted(family, ["NEXT: doc-0000", f"NEXT: {OFF}", "DEAD END: not about it",
                                         f"NEXT: {PATH[0]}", f"NEXT: {PATH[1]}", f"ANSWER: {X.data['answer']}"])
    assert output == X.data["answer"]
    assert [DOCS[START] in p for p in prompts] == [True, True, False, True, False, False]
    assert "<tried>" not in prompts[0] and f'- read_document("doc-0000") failed: {ERROR.replace(BAD, "doc-0000")}' \
        in prompts[1]
    assert DOCS[OFF] in prompts[2] and f"- {OFF} did not fit: not about it" in prompts[3]
    assert DOCS[PATH[0]] in prompts[4] and "<tried>" not in prompts[4]


def test_the_walk_gives_up_at_its_bounds() -> None:
    output, prompts = _scripted(Multihop(hops="2", retries=1), [f"NEXT: {BAD}", "NEXT: doc-0001"])
    assert output.startswith("UNKNOWN") and "gave up after 1 retries" in output and len(prompts) == 2
    # depth 1: the second reference is read only to be rejected; an answer from there is not taken
    answer = f"ANSWER: {X.data['answer']}"
    output, prompts = _scripted(Multihop(hops="2", depth=1), [f"NEXT: {PATH[0]}", f"NEXT: {PATH[1]}", answer])
    assert output.startswith("UNKNOWN") and "longer than 1 references" in output and len(prompts) == 3
    off = next(d for d in DOCS if d in DOCS[PATH[0]] and d not in (START, PATH[1]))
    output, prompts = _scripted(Multihop(hops="2", depth=1), [f"NEXT: {PATH[0]}", f"NEXT: {off}", "DEAD END: no",
                                                              "ANSWER: B-123"])
    assert output == "B-123" and f"- {off} did not fit: no" in prompts[3]  # a wrong turn there is undone


def test_the_loop_bound_never_cuts_the_walk_before_its_own_bounds() -> None:
    family = Multihop(hops="1-4", depth=4, retries=2)
    for i, x in enumerate(family.instances(40, seed=1)):
        env = family.environment(x, Path("."))
        model = SimModel(policy=family.policy(), error_rate=0.5, seed=i)
        result = run_workflow(family.design("chain", env), model, x.prompt)
        assert "loop_exhausted" not in result.extra
        assert result.steps <= family.depth + 2 * family.retries + 3


def test_the_retry_bound_covers_what_the_agent_gets() -> None:
    # the agent's bound is the run's step limit: the start's read, one hop and the answer leave it this many
    assert AGENT_RETRIES == Limits().max_steps - 3 == Multihop().retries
    assert f"`retries` ({AGENT_RETRIES})" in (Multihop.__doc__ or "")
    assert f"{Limits().max_steps} calls" in (Multihop.__doc__ or "")


def test_the_audit_probe_is_symmetric() -> None:
    rows = probe(Multihop(hops="1-3"), knobs={"error_rate": 0.2}, instances=2, samples=3)
    assert [row.setting for row in rows] == ["strict", "default"]
    assert all(row.symmetric for row in rows), rows
