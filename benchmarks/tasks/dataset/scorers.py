"""Scorers for a dataset task: `spec -> Scorer`, each `score(target, output) -> float` in [0, 1].

Every scorer reads what a capable model writes: markdown emphasis, code fences, headings and
quotes are dropped, case and whitespace are ignored, and when the output has a line labelled
`Answer:` (`**Answer:**`, `Final answer -`) that line is the answer. They still reject a wrong or
an ambiguous answer (two different numbers, two options):

- `exact`: the answer equals the target (normalised; trailing punctuation ignored);
- `includes`: the target appears in the output as a whole token run (`42` is not in `425`);
- `number` / `number:TOL`: the answer's number is within TOL (absolute, default 1e-9) of the
  target; `1,234.5` and `$94.90` read as numbers, `D-33` is an identifier, not -33; several
  different numbers and no `Answer:` line is ambiguous (0);
- `regex:<pattern>`: `re.search` in the output (`{target}` in the pattern is the escaped target);
- `choice`: the target is an option letter (A-J) or the option's text; the output's letter
  (`B`, `(B)`, `B) Paris`, `Answer: b`, `The answer is B`) must be that one, and only that one;
- `model:<rubric>` is graded by a model (`model_grader.py`); `file.py:function` or
  `package.module:function` is a Python callable `(instance, output) -> float`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.tasks.dataset.modules import load_callable
from benchmarks.tasks.dataset.text import final_answer, normalise, strip_markdown

_NUMBER = re.compile(r"(?<![\w.\-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])"
                     r"|(?<![\w.\-])-?\.\d+(?![\w])")
_LETTER_WORDS = re.compile(r"(?i)\b(?:answer|option|choice)\s*(?:is\s*)?[:\-]?\s*\(?([a-j])\)?(?![a-z])")
_LEADING_LETTER = re.compile(r"^\(?([A-Ja-j])(?:[).:]|\s*$)")
SIMPLE = ("exact", "includes", "number", "regex", "choice")


def numbers_in(text: str) -> list[float]:
    return [float(m.group().replace(",", "")) for m in _NUMBER.finditer(strip_markdown(text))]


def score_exact(target: str, output: str) -> float:
    return float(normalise(target) in (normalise(final_answer(output)), normalise(output)))


def score_includes(target: str, output: str) -> float:
    want = normalise(target)
    if not want:
        return 0.0
    pattern = (r"(?<!\w)" if want[0].isalnum() else "") + re.escape(want) + (r"(?!\w)" if want[-1].isalnum() else "")
    return float(re.search(pattern, " ".join(strip_markdown(output).casefold().split())) is not None)


def score_number(target: str, output: str, tol: float = 1e-9) -> float:
    wanted = numbers_in(str(target))
    if len(wanted) != 1:
        raise ValueError(f"target {target!r} is not one number")
    answer = final_answer(output)
    found = set(numbers_in(answer))
    if len(found) != 1:  # none, or several different values: no single answer to judge
        return 0.0
    return float(math.isclose(found.pop(), wanted[0], rel_tol=0.0, abs_tol=tol))


def choice_letter(output: str) -> str | None:
    """The one option letter the output picks, or None (none, or two different ones)."""
    answer = " ".join(strip_markdown(final_answer(output)).split())
    whole = _LEADING_LETTER.match(answer)
    if whole:
        return whole.group(1).upper()
    picked = {m.upper() for m in _LETTER_WORDS.findall(answer)}
    return picked.pop() if len(picked) == 1 else None


def score_choice(target: str, output: str) -> float:
    want = str(target).strip()
    if _LEADING_LETTER.match(want) and len(normalise(want)) == 1:
        return float(choice_letter(output) == want.strip("()").upper())
    text = normalise(final_answer(output))
    text = re.sub(r"^\(?[a-j][).:]\s*", "", text)  # "B) Paris" names the option by its text too
    return float(text == normalise(want))


@dataclass(frozen=True)
class Scorer:
    """A parsed scorer spec. `rubric` is set for a model-graded one (graded in `model_grader.py`)."""

    spec: str
    fn: Callable[[Any, str], float] | None = None  # (instance, output) -> float, for the non-model kinds
    rubric: str | None = None
    needs_target: bool = True

    def __call__(self, instance: Any, output: str) -> float:
        if self.fn is None:
            raise TypeError(f"scorer {self.spec!r} is graded by a model: use model_grader.grade_with_model")
        return float(self.fn(instance, output))


def _target(fn: Callable[[str, str], float]) -> Callable[[Any, str], float]:
    return lambda instance, output: fn(str(instance.data["target"]), output)


def parse_scorer(spec: str, base: Path) -> Scorer:
    """`spec` as a Scorer; an unknown or malformed one is a one-line ValueError."""
    kind, sep, arg = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "model":
        if not arg.strip():
            raise ValueError("scorer 'model:' needs a rubric: model:<what a correct answer must do>")
        return Scorer(spec, rubric=arg.strip(), needs_target=False)
    if kind == "regex" and sep:
        try:
            re.compile(arg.replace("{target}", "x"))
        except re.error as exc:
            raise ValueError(f"scorer {spec!r}: bad regular expression: {exc}") from None
        return Scorer(spec, _regex(arg), needs_target="{target}" in arg)
    if kind == "number":
        tol = _tolerance(spec, arg) if sep else 1e-9
        return Scorer(spec, _target(lambda t, o: score_number(t, o, tol)))
    simple = {"exact": score_exact, "includes": score_includes, "choice": score_choice}
    if kind in simple and not sep:
        return Scorer(spec, _target(simple[kind]))
    if sep and arg.strip().isidentifier():  # module:function
        fn = load_callable(spec, base, "scorer")
        return Scorer(spec, fn, needs_target=False)
    raise ValueError(f"unknown scorer {spec!r}: use exact, includes, number[:tolerance], regex:<pattern>, choice, "
                     "model:<rubric> or file.py:function")


def _tolerance(spec: str, text: str) -> float:
    try:
        tol = float(text)
    except ValueError:
        raise ValueError(f"scorer {spec!r}: the tolerance must be a number, e.g. number:0.01") from None
    if not tol >= 0 or math.isinf(tol):
        raise ValueError(f"scorer {spec!r}: the tolerance must be a finite number >= 0")
    return tol


def _regex(pattern: str) -> Callable[[Any, str], float]:
    def score(instance: Any, output: str) -> float:
        target = str(instance.data.get("target", ""))
        return float(re.search(pattern.replace("{target}", re.escape(target)), output) is not None)

    return score
