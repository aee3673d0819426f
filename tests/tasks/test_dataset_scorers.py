"""Each scorer of a task file, with a table of outputs it must accept and outputs it must reject."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.tasks.base import Instance
from benchmarks.tasks.dataset.designs import accept_verdict, vote_majority
from benchmarks.tasks.dataset.scorers import parse_scorer
from benchmarks.tasks.dataset.text import parse_verdict

TABLES: dict[str, tuple[str, list[str], list[str]]] = {
    "exact": ("Paris", ["Paris", "paris", "**Paris**", "Answer: Paris", "ANSWER: paris.", "`Paris`", " Paris \n",
                        "The capital is in France.\n\n**Answer:** Paris", "# Paris", "Final answer - Paris!"],
              ["Paris, France", "Lyon", "Paris or Lyon", "", "Answer: Lyon\n(Paris?)", "Parisian",
               "It is not Paris", "Answer: Paris\nAnswer: Lyon", "P a r i s", "Pariss"]),
    "includes": ("RST-5135", ["Your reset code is RST-5135.", "**RST-5135**", "code: rst-5135", "`RST-5135`",
                              "Answer: RST-5135", "RST-5135", "The code (RST-5135) works.", "reset code\nRST-5135",
                              "> RST-5135", "Use RST-5135 now"],
                 ["RST-51350", "RST-513", "XRST-5135", "RST 5135", "", "no code", "RST-5136", "RST-51",
                  "5135", "code RST-5135X"]),
    "number": ("94.9", ["94.9", "$94.90", "Answer: D-33 at $94.90", "The total is 94.90.", "**94.9**",
                        "ANSWER: 94.9 USD", "It costs 94.9", "Answer: 94.90\nchecked 3 items", "9.49e1",
                        "= 94.9"],
               ["94.8", "$95", "Answer: 94.9 or 95.0", "D-33", "", "ninety-four", "94.9 and 12", "-94.9",
                "1,094.9", "Answer: unknown"]),
    "number:0.5": ("1200", ["1,200", "1200.4", "Answer: 1199.6", "about 1200", "$1,200.00", "1.2e3", "1200",
                            "total: 1,200.5", "**1200**", "1199.5"],
                   ["1201", "1,100", "12,000", "120", "1198", "", "A-1200", "1200 or 1300", "twelve hundred",
                    "1,2000"]),
    "regex:^RST-\\d{4}$": ("", ["RST-1234", "RST-0000", "RST-9999", "RST-5135", "RST-1111", "RST-2222",
                                "RST-3333", "RST-4444", "RST-5555", "RST-6666"],
                           ["rst-1234", "RST-123", "x RST-1234", "RST-12345", "", "RST-abcd", "RST 1234",
                            "RST-1234 ", "Code: RST-1234", "RST--1234"]),
    "choice": ("B", ["B", "(B)", "B) Paris", "b", "Answer: B", "**B**", "The answer is B.", "Option B",
                     "I think the answer is B", "B."],
               ["A", "C) Lyon", "A or B", "Answer: A", "", "The answer is D", "Both A and B", "Option C",
                "(A)", "E."]),
}


@pytest.mark.parametrize("spec", list(TABLES))
def test_each_scorer_accepts_and_rejects_its_table(spec: str) -> None:
    target, accepted, rejected = TABLES[spec]
    assert len(accepted) >= 10 and len(rejected) >= 10
    scorer = parse_scorer(spec, Path("."))
    row = Instance("r", "q", {"target": target, "fields": {}})
    assert [o for o in accepted if scorer(row, o) != 1.0] == []
    assert [o for o in rejected if scorer(row, o) != 0.0] == []


def test_choice_accepts_an_option_text_target() -> None:
    scorer = parse_scorer("choice", Path("."))
    row = Instance("r", "q", {"target": "Paris", "fields": {}})
    assert [scorer(row, o) for o in ("Paris", "B) Paris", "Answer: **paris**", "Lyon", "B) Lyon")] == [1, 1, 1, 0, 0]


def test_a_regex_may_quote_the_target() -> None:
    scorer = parse_scorer("regex:(?i)code is {target}\\b", Path("."))
    row = Instance("r", "q", {"target": "RST-1.5", "fields": {}})
    assert scorer(row, "Your code is rst-1.5.") == 1.0
    assert scorer(row, "Your code is RST-105.") == 0.0  # the target's '.' is literal


def test_a_python_scorer_is_called_with_the_instance_and_the_output(tmp_path: Path) -> None:
    (tmp_path / "score.py").write_text("def length_ok(instance, output):\n    return float(len(output) <= 5)\n")
    scorer = parse_scorer("score.py:length_ok", tmp_path)
    assert scorer(Instance("r", "q", {}), "short") == 1.0 and scorer(Instance("r", "q", {}), "too long") == 0.0
    assert not scorer.needs_target


@pytest.mark.parametrize(("reply", "score"), [
    ("PASS", 1.0), ("**PASS** - it quotes the code", 1.0), ("Pass.", 1.0), ("Verdict: correct", 1.0),
    ("Yes, it meets the rubric.", 1.0), ("Score: 8/10", 0.8), ("score = 0.25", 0.25), ("7/10", 0.7),
    ("FAIL: no code", 0.0), ("fail", 0.0), ("Incorrect: wrong date", 0.0), ("This is not correct.", 0.0),
    ("No.", 0.0), ("WRONG", 0.0), ("Score: 0", 0.0),
])
def test_the_grader_verdict_is_read_leniently(reply: str, score: float) -> None:
    assert parse_verdict(reply) == pytest.approx(score)


@pytest.mark.parametrize("reply", ["", "I am not sure.", "The answer mentions the order."])
def test_a_reply_without_a_verdict_gives_none(reply: str) -> None:
    assert parse_verdict(reply) is None


def test_the_evaluator_and_the_vote_read_answers_leniently() -> None:
    assert accept_verdict("**PASS**\nfine")[0] and not accept_verdict("FAIL: the date is missing")[0]
    votes = ["Answer: **2025-01-02**", "It is due.\nAnswer: 2025-01-02.", "Answer: 2025-03-04"]
    assert vote_majority(votes) == votes[0]


@pytest.mark.parametrize("spec", ["exactly", "regex:(", "number:x", "number:-1", "model:", "includes:x y", "nope:1"])
def test_an_unknown_or_malformed_scorer_is_one_line(spec: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_scorer(spec, Path("."))
    assert "\n" not in str(info.value)
