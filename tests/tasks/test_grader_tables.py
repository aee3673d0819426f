"""Each family's grader on the ways a real model writes a right answer (score 1) and on wrong,
ambiguous or inconsistent answers (score 0): `readers.py` and the families' `grade`."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.tasks.base import Environment, Instance
from benchmarks.tasks.fanout import Fanout
from benchmarks.tasks.multihop import Multihop
from benchmarks.tasks.pipeline import Pipeline
from benchmarks.tasks.repair import Repair
from benchmarks.tasks.repair.answers import repair_proposal
from benchmarks.tasks.support import Support
from patterns.tools import ToolSet

NO_ENV = Environment(tools=ToolSet([]))

# --- fanout: L-60 is the cheapest, D-33 the dearest; the stock adds up to 152 -------------------
CATALOG = {"A-17": {"id": "A-17", "name": "Compact Drill", "stock": 100, "price": 20.0},
           "D-33": {"id": "D-33", "name": "Golden Lamp", "stock": 12, "price": 94.9},
           "L-60": {"id": "L-60", "name": "Steel Backpack", "stock": 40, "price": 3.5}}
TRUTH = {"total": "152", "max": "94.90", "cheapest": "Steel Backpack"}

FANOUT_RIGHT = [
    ("max", "ANSWER: D-33 at $94.90"),
    ("max", "ANSWER: $94.90"),
    ("max", "**Answer:** 94.9"),
    ("max", "The highest price is $94.90 (D-33, Golden Lamp).\nLet me know if you need anything else."),
    ("max", "```\nANSWER: 94.90 USD\n```"),
    ("total", "ANSWER: 152"),
    ("total", "Answer: 152 units."),
    ("total", "ANSWER: 100 + 12 + 40 = 152"),
    ("total", "The total stock is **152** units across A-17, D-33 and L-60."),
    ("cheapest", "ANSWER: Steel Backpack (L-60)"),
    ("cheapest", "ANSWER: the Steel Backpack"),
    ("cheapest", "**Answer:** steel backpack."),
    ("cheapest", "The cheapest product is the Steel Backpack at $3.50."),
    ("cheapest", "Final answer: Steel Backpack\n\nHappy to help with anything else!"),
]
FANOUT_WRONG = [
    ("max", "ANSWER: $20.00"),
    ("max", "ANSWER: $94.90 or $20.00"),
    ("max", "ANSWER: A-17 at $94.90"),  # the right price for the wrong product
    ("max", "ANSWER: -33"),
    ("max", "ANSWER: unknown"),
    ("total", "ANSWER: 151"),
    ("total", "ANSWER: 152 or 153"),
    ("total", ""),
    ("cheapest", "ANSWER: Golden Lamp"),
    ("cheapest", "ANSWER: Steel Backpack or Compact Drill"),
    ("cheapest", "ANSWER: Steel Backpack (D-33)"),  # the right name with another product's id
    ("cheapest", "ANSWER: L-60"),  # the question asks for the name
    ("cheapest", "ANSWER: Steel Backpack\nOn second thought:\nANSWER: Golden Lamp"),
]


def _fanout(kind: str) -> Instance:
    return Instance("fanout-t", "?", {"kind": kind, "ids": list(CATALOG), "catalog": CATALOG, "answer": TRUTH[kind]})


@pytest.mark.parametrize(("kind", "output"), FANOUT_RIGHT)
def test_fanout_accepts_a_right_answer_however_written(kind: str, output: str) -> None:
    assert Fanout().grade(_fanout(kind), NO_ENV, output) == 1.0


@pytest.mark.parametrize(("kind", "output"), FANOUT_WRONG)
def test_fanout_rejects_a_wrong_or_ambiguous_answer(kind: str, output: str) -> None:
    assert Fanout().grade(_fanout(kind), NO_ENV, output) == 0.0


# --- multihop: the current owner's office is B-123, desk phone 555-7124 -------------------------
QUOTE = '"Ana Abbott is the current owner of the Falcon project. Her office is B-123 and desk phone is 555-7124."'
MULTIHOP_RIGHT = [
    ("desk phone", "The desk phone is 555-7124."),
    ("desk phone", "555-7124"),
    ("desk phone", "**555-7124**"),
    ("desk phone", f"ANSWER: 555-7124 (from doc-4821: {QUOTE})"),
    ("office", "Answer: B-123"),
    ("office", "answer: b-123."),
    ("office", "**Answer:** `B-123`"),
    ("office", "Ana Abbott is the current owner; her office is B-123.\n\nLet me know if you need more."),
    ("office", "ANSWER: B-123 (desk phone 555-7124)"),
    ("office", "```\nB-123\n```"),
    ("office", "Final answer - B-123"),
]
MULTIHOP_WRONG = [
    ("office", "ANSWER: B-124"),
    ("office", "ANSWER: 555-7124"),  # the other attribute
    ("office", "B-123 or C-456"),
    ("office", f"ANSWER: C-456 (from doc-4821: {QUOTE})"),  # the evidence holds the value, the answer does not
    ("office", "UNKNOWN: doc-4821 does not say"),
    ("office", ""),
    ("desk phone", "555-7125"),
    ("desk phone", "The desk phone is 555-7124 or 555-1234."),
    ("desk phone", "ANSWER: B-123"),
    ("desk phone", "DEAD END: doc-1234 is not about the Falcon project"),
    ("desk phone", "ANSWER: 555-7124\nANSWER: 555-9999"),
]


def _multihop(attribute: str) -> Instance:
    answer = {"office": "B-123", "desk phone": "555-7124"}[attribute]
    return Instance("multihop-t", "?", {"attribute": attribute, "answer": answer})


@pytest.mark.parametrize(("attribute", "output"), MULTIHOP_RIGHT)
def test_multihop_accepts_a_right_answer_however_written(attribute: str, output: str) -> None:
    assert Multihop().grade(_multihop(attribute), NO_ENV, output) == 1.0


@pytest.mark.parametrize(("attribute", "output"), MULTIHOP_WRONG)
def test_multihop_rejects_a_wrong_or_ambiguous_answer(attribute: str, output: str) -> None:
    assert Multihop().grade(_multihop(attribute), NO_ENV, output) == 0.0


# --- pipeline: name, dob, city ------------------------------------------------------------------
LINE = "Smith, John | 1985-03-07 | New York"
PIPELINE_RIGHT = [
    LINE,
    f"**{LINE}**",
    f"{LINE}\n\nLet me know if you need anything else!",
    f"```\n{LINE}\n```",
    f"Answer: {LINE}",
    "Here is the normalised record: Smith, John|1985-03-07|New York.",
    f"| {LINE} |",
    f"`{LINE}`",
    f"Sure! The normalised line is:\n\n> {LINE}",
    "- Smith, John  |  1985-03-07  |  New York",
    f"Record: name: jOHN smith | dob 7/3/1985 | city= new york\nNormalised: {LINE}",
]
PIPELINE_WRONG = [
    "smith, john | 1985-03-07 | new york",
    "Smith, John | 1985-07-03 | New York",
    "John Smith | 1985-03-07 | New York",
    "Smith, John; 1985-03-07; New York",
    "Smith, John | 1985-03-07",
    "Smith, John | New York | 1985-03-07",
    f"{LINE}\nSmith, John | 1985-07-03 | New York",  # two candidate lines
    "",
    "Smith, John | 1985-03-07 | New York City",
    "Smith, Jon | 1985-03-07 | New York",
    f"{LINE} | extra",
]
PIPELINE = Instance("pipeline-t", "?", {"expected": LINE, "fields": ["name", "dob", "city"]})


@pytest.mark.parametrize("output", PIPELINE_RIGHT)
def test_pipeline_accepts_a_right_line_however_written(output: str) -> None:
    assert Pipeline().grade(PIPELINE, NO_ENV, output) == 1.0


@pytest.mark.parametrize("output", PIPELINE_WRONG)
def test_pipeline_rejects_a_wrong_or_ambiguous_line(output: str) -> None:
    assert Pipeline().grade(PIPELINE, NO_ENV, output) == 0.0


# --- support: one question per instance; the db also holds a distractor record of each kind -------
FACTS = {"billing": "$123.45", "shipping": "2024-03-07", "account": "RST-4821", "technical": "KB-9931"}
DB = {"invoices": {"C-12345": {"amount": "$123.45", "due": "2024-04-01"},
                   "C-99999": {"amount": "$98.10", "due": "2024-05-02"}},
      "orders": {"ORD-55555": {"eta": "2024-03-07"}, "ORD-11111": {"eta": "2024-06-09"}},
      "accounts": {"a@x.test": {"reset_code": "RST-4821"}, "b@x.test": {"reset_code": "RST-1111"}},
      "kb": {"Router X200|E-12": {"article": "KB-9931"}, "Camera C9|E-12": {"article": "KB-2222"}}}
SUPPORT_RIGHT = [
    ("billing", "Your latest invoice is **$123.45**, due 2024-04-01."),
    ("billing", "Invoice for C-12345: amount 123.45 USD."),
    ("billing", "Hi Anna,\n\nI looked up your account: the amount due is $123.45.\n\nBest regards"),
    ("shipping", "Your order ORD-55555 should arrive on March 7, 2024."),
    ("shipping", "ETA: 7 March 2024"),
    ("shipping", "Order ORD-55555 is in transit with UPS, expected 2024-03-07."),
    ("shipping", "Your invoice is due 2024-04-01 and your order arrives 2024-03-07."),  # a due date is no ETA
    ("account", "Use reset code `RST-4821` to unlock your account."),
    ("account", "Your reset code is rst 4821."),
    ("technical", "See article KB-9931: hold the reset button for 10 seconds."),
    ("technical", "**KB 9931** explains the fix."),
]
SUPPORT_WRONG = [
    ("billing", "Your invoice is $98.10."),  # the distractor customer's invoice
    ("billing", "Your invoice is $123.45 or $98.10."),
    ("billing", "Your invoice is $123.54."),
    ("billing", "We are looking into it and will get back to you."),
    ("shipping", "Your order arrives on 2024-06-09."),
    ("shipping", "Your order arrives March 8, 2024."),
    ("shipping", "It will arrive on 2024-03-07 or 2024-06-09."),
    ("account", "Your reset code is RST-1111."),
    ("account", "Your reset code is RST-4821 (or RST-1111 if that fails)."),
    ("technical", "See KB-2222."),
    ("technical", ""),
]


def _support(*categories: str) -> Instance:
    issues = [{"category": c, "fact": FACTS[c]} for c in categories]
    return Instance("support-t", "?", {"issues": issues, "facts": [FACTS[c] for c in categories], "db": DB})


@pytest.mark.parametrize(("category", "output"), SUPPORT_RIGHT)
def test_support_accepts_a_right_fact_however_written(category: str, output: str) -> None:
    assert Support().grade(_support(category), NO_ENV, output) == 1.0


@pytest.mark.parametrize(("category", "output"), SUPPORT_WRONG)
def test_support_rejects_a_wrong_or_ambiguous_fact(category: str, output: str) -> None:
    assert Support().grade(_support(category), NO_ENV, output) == 0.0


def test_support_scores_the_fraction_of_questions_answered() -> None:
    reply = "Your invoice is $123.45.\nYour order arrives on 2024-06-09."
    assert Support().grade(_support("billing", "shipping"), NO_ENV, reply) == 0.5


# --- repair: a proposal, applied as the parallel design applies it, then the validator grades ----
def _repair_case(tmp_path: Path) -> tuple[Repair, Instance, Environment, int, str, str]:
    family = Repair(faults="1")
    instance = next(i for i in family.instances(20, seed=5) if i.data["faults"][0]["line"] > 3)
    env = family.environment(instance, tmp_path)
    n = instance.data["faults"][0]["line"]
    return family, instance, env, n, instance.data["original"].splitlines()[n - 1], instance.data["faults"][0]["text"]


def _score_proposal(tmp_path: Path, make: object) -> float:
    family, instance, env, n, right, faulty = _repair_case(tmp_path)
    key = right.split(" = ")[0]
    target = tmp_path / instance.data["path"]
    proposal = repair_proposal(make(n, right, faulty, key))  # type: ignore[operator]
    if proposal is not None:  # what replace_line does; a line number out of range is an error, no edit
        lines = target.read_text(encoding="utf-8").splitlines()
        if 1 <= proposal[0] <= len(lines):
            lines[proposal[0] - 1] = proposal[1]
            target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return family.grade(instance, env, "DONE")


REPAIR_RIGHT = [
    lambda n, r, f, k: f"replace line {n} with: {r}",
    lambda n, r, f, k: f"Replace line {n} with: {r}",
    lambda n, r, f, k: f"REPLACE LINE {n} WITH: {r}",
    lambda n, r, f, k: f"**Replace line {n} with:** `{r}`",
    lambda n, r, f, k: f"replace line {n} with:\n```\n{r}\n```",
    lambda n, r, f, k: f"The port is out of range, so:\n\nReplace line {n} with: {r}",
    lambda n, r, f, k: f"replace line #{n} with: {r}",
    lambda n, r, f, k: f'Replace line {n} with: "{r}"',
    lambda n, r, f, k: f"- replace line {n} with: {r}",
    lambda n, r, f, k: f"Replace line {n} with {r}",
    lambda n, r, f, k: f"```\nreplace line {n} with: {r}\n```",
]
REPAIR_WRONG = [
    lambda n, r, f, k: f"replace line {n} with: {f}",  # the faulty line again
    lambda n, r, f, k: f"replace line {n - 1} with: {r}",  # the wrong line
    lambda n, r, f, k: "nothing to fix",
    lambda n, r, f, k: "",
    lambda n, r, f, k: f"replace line {n} with: {r.upper()}",
    lambda n, r, f, k: f"replace line {n} with: {k} = ",
    lambda n, r, f, k: f"replace line {n} with: {r.replace(' = ', ': ')}",
    lambda n, r, f, k: f"replace line {n} with: {r} # fixed",
    lambda n, r, f, k: f"replace line 0 with: {r}",
    lambda n, r, f, k: f"replace line {n} with: {r}\nor maybe\nreplace line {n} with: {f}",  # two proposals
    lambda n, r, f, k: f"Replace line {n} with: {k.capitalize()} = {r.split(' = ')[1]}",
]


@pytest.mark.parametrize("make", REPAIR_RIGHT)
def test_repair_applies_a_right_proposal_however_written(tmp_path: Path, make: object) -> None:
    assert _score_proposal(tmp_path, make) == 1.0


@pytest.mark.parametrize("make", REPAIR_WRONG)
def test_repair_does_not_pass_a_wrong_or_ambiguous_proposal(tmp_path: Path, make: object) -> None:
    assert _score_proposal(tmp_path, make) == 0.0
