"""The workflows' own parsers read a real model's formatting as leniently as the graders do: the
evaluator's PASS check, the router's label, multihop's walk steps and vote, repair's proposals,
pipeline's vote, support's NONE, fanout's lookup gate."""

from __future__ import annotations

import pytest

from benchmarks.tasks.fanout.answers import failed_lookups
from benchmarks.tasks.multihop import family as mh
from benchmarks.tasks.repair.answers import proposal_vote, repair_proposal
from benchmarks.tasks.support.answers import is_none
from patterns import ScriptedModel, Terminal, message
from patterns.answers import answer_part, plain, verdict
from patterns.workflows import LLM, Route, accept_pass, run_workflow

PASSES = ["PASS", "**PASS**", "pass", "PASS: the line is right.", "Verdict: PASS", "**Verdict:** Pass.",
          "The line matches the record exactly.\n\nPASS", "✅ PASS", "PASSED", "`PASS`", "# PASS"]
FAILS = ["FAIL: the date is wrong", "**FAIL**", "PASS\nFAIL: wait, the date is wrong", "It does not pass.", "",
         "I would not pass this.", "Verdict: FAIL", "fail", "Passable, but FAIL: the city is wrong", "PASSABLE"]


@pytest.mark.parametrize("reply", PASSES)
def test_the_evaluator_accepts_a_pass_however_written(reply: str) -> None:
    assert verdict(reply) and accept_pass(reply) == (True, reply.strip())


@pytest.mark.parametrize("reply", FAILS)
def test_the_evaluator_rejects_a_fail_or_a_reply_saying_both(reply: str) -> None:
    assert not verdict(reply) and accept_pass(reply)[0] is False


@pytest.mark.parametrize(("reply", "label"), [("billing", "billing"), ("**Tech**", "tech"),
                                              ("Category: billing", "billing"),
                                              ("This is a billing question.", "billing")])
def test_route_finds_the_one_label_a_reply_names(reply: str, label: str) -> None:
    route = Route(LLM("classify"), {"billing": LLM("b"), "tech": LLM("t")})
    res = run_workflow(route, ScriptedModel([message(reply), message("done")]), "x")
    assert res.terminal is Terminal.COMPLETED and res.extra["route"] == label


@pytest.mark.parametrize("reply", ["billing or tech", "gardening", "It is about neither."])
def test_route_still_fails_on_no_label_or_two(reply: str) -> None:
    route = Route(LLM("classify"), {"billing": LLM("b"), "tech": LLM("t")})
    res = run_workflow(route, ScriptedModel([message(reply)]), "x")
    assert res.terminal is Terminal.ERROR and res.errors[0].kind == "UnknownLabel"


def test_plain_and_answer_part() -> None:
    assert plain("```text\n**Answer:** `B-123`\n```\n") == "Answer: B-123"
    assert plain("timeout_s = 30\n- first_last@example.com") == "timeout_s = 30\nfirst_last@example.com"
    assert answer_part("Working...\nANSWER: 42\nThanks!") == "42"
    assert answer_part("**Answer:**\n\nB-123") == "B-123"
    assert answer_part("just 42") == "just 42"


@pytest.mark.parametrize(("reply", "done", "answer"), [
    ("ANSWER: B-123", True, "B-123"),
    ("Answer: B-123", True, "B-123"),
    ("**ANSWER:** b-123", True, "b-123"),
    ("The document names the current owner.\nAnswer: 555-7124", True, "555-7124"),
    ("DEAD END: doc-1 is about another project", True, None),
    ("**Dead end** - not about the question", True, None),
    ("unknown", True, None),
    ("NEXT: doc-4821", False, None),
    ("Next: doc-4821", False, None),
    ("doc-4821: Ana Abbott\nAna Abbott is the current owner of the Falcon project.", False, None),
])
def test_multihop_reads_a_walk_step_however_written(reply: str, done: bool, answer: str | None) -> None:
    assert mh.done(reply) is done
    final = mh.final_answer(reply)
    assert final == answer if answer else final.startswith("UNKNOWN")


@pytest.mark.parametrize(("reply", "doc"), [("NEXT: doc-4821 (from doc-1111)", "doc-4821"),
                                            ("It refers on.\n**Next:** `DOC-4821`", "doc-4821"),
                                            ("Read doc-1111 first. NEXT: doc-4821", "doc-1111"),
                                            ("Follow doc-4821 and report where it leads.", "doc-4821")])
def test_multihop_reads_the_next_document(reply: str, doc: str) -> None:
    assert mh._first_id(reply) == {"doc_id": doc}


def test_multihop_votes_on_values_not_wording() -> None:
    outputs = ["ANSWER: B-123", "NEXT: doc-1", "Answer: b-123.", "ANSWER: C-456"]
    assert mh.vote_answers(outputs) == "B-123"
    assert mh.vote_answers(["NEXT: doc-1", "DEAD END: x"]).startswith("UNKNOWN")


@pytest.mark.parametrize(("reply", "expected"), [
    ("replace line 5 with: port = 80", (5, "port = 80")),
    ("Replace line 5 with: `port = 80`", (5, "port = 80")),
    ("**REPLACE LINE 5 WITH:**\n```\nport = 80\n```", (5, "port = 80")),
    ('I would change it.\nreplace line #5 with: "port = 80"', (5, "port = 80")),
    ("replace line 5 with:", (5, "")),  # an empty line: how a duplicate key is removed
    ('replace line 5 with: port = "80"', (5, 'port = "80"')),  # a value's own quotes are kept
    ("nothing to fix", None),
    ("Line 5 should read port = 80", None),
    ("replace line 5 with: port = 80\nreplace line 6 with: port = 80", None),  # two proposals
])
def test_repair_reads_a_proposal_however_written(reply: str, expected: tuple[int, str] | None) -> None:
    assert repair_proposal(reply) == expected


def test_repair_votes_on_the_edit_not_its_wording() -> None:
    votes = ["replace line 5 with: port = 81", "Replace line 5 with: `port = 80`", "**replace line 5 with:** port = 80"]
    assert repair_proposal(proposal_vote(votes)) == (5, "port = 80")
    assert proposal_vote(["nothing to fix", "Nothing to fix.", "replace line 2 with: x = 1"]) == "nothing to fix"


def test_pipeline_votes_on_the_line_each_draft_gives() -> None:
    from benchmarks.tasks.pipeline import Pipeline

    family = Pipeline()
    x = family.instances(1, seed=0)[0]
    env = family.environment(x, None)  # type: ignore[arg-type]
    vote = family.design("parallel", env).aggregate
    right, wrong = x.data["expected"], x.data["expected"].replace(" | ", " ; ", 1)
    assert vote([wrong, f"**{right}**", f"{right}\n\nAnything else?"]) == f"**{right}**"


@pytest.mark.parametrize(("text", "none"), [("NONE", True), ("None.", True), ("**none**", True),
                                            ("NONE of the invoices match", False), ("Order ORD-1: eta", False)])
def test_support_reads_none_however_written(text: str, none: bool) -> None:
    assert is_none(text) is none


def test_fanout_gate_sees_a_failed_lookup_however_worded() -> None:
    transcript = "A-17: {\"id\": \"A-17\", \"stock\": 3}\nB-03: Error - no product has id 'B-03'\nC-44: not found"
    assert [line.split(":")[0] for line in failed_lookups(transcript)] == ["B-03", "C-44"]
    assert failed_lookups("A-17: {\"id\": \"A-17\", \"name\": \"Blue Lamp\"}") == []
