"""How SimModel behaves on `pipeline` prompts: it reads the record in the prompt, never the truth.

It does the work a model would do — find each labelled value in the messy record, normalise it,
lay the line out — with code, and makes each decision that a model could get wrong through the
`Decider`. Decisions per call (one draw each):
- chain `extract` / `normalise` / `format` step: 1 each. Mistakes: extract copies one value
  wrongly (surname and first name swapped, year digits transposed, a city's last word dropped or
  the wrong segment taken, two phone digits swapped, a dot lost from an email); normalise gets
  one value wrong (a d/m/y date read as m/d/y when that is a valid date, a value left as written
  or in the wrong case); format lays the line out wrongly (name as First Last, `;` separators,
  two fields swapped). Only extract slips and m/d/y dates survive `check_format`;
- a whole pipeline in one call (single, vote branch, generator, agent's first turn): the same 3
  decisions at once, crowded;
- classifier 1 (answers `clean` for a messy record); planner 1 (drops a field, or a malformed
  JSON plan, which gets one repair call); worker 2 (extract + normalise of its field, crowded);
  synthesizer 1 (a format slip); evaluator 1 (a wrong verdict: PASS for a wrong line, FAIL with a
  made-up complaint for a right one); a fix after an INVALID check 1 (a new format slip).
A fix does real work from the prompt and the line: re-reading a mis-laid line and laying it out
again (which also repairs values left unnormalised, but never a wrong value).

Feedback (the same rule for every pattern, `patterns.sim.policy.doubts`): a judgement of a line
is one decision at `checker_error_rate`. The evaluator's review makes it (a right judgement
names the first field that differs, never its right value; a wrong one passes a wrong line or
fails a right one); the agent makes the same judgement of its own line once `check_format`
says VALID, and if it doubts the line redoes the whole pipeline (3 crowded decisions) and
checks again, within `max_checks`. The one-round designs (single) have no second look.

Crowding: a call that makes k decisions at once errs on each with probability
`min(1, e * (1 + crowding * (k - 1)))` (`crowded`); with crowding 0 it is e, one
`decide.correct()` per decision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

from ..base import marked
from . import prompts as pt
from .prompts import FIELDS, MARK, layout_of
from .skills import FIELD_LINE, extract, fields_of, format_line, lay_out, normalise, record_of, reparse, whole


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text.strip() or "(no answer)"}])


def _check(line: str, note: str) -> Reply:
    use = {"type": "tool_use", "name": "check_format", "input": {"line": line}}
    return Reply([{"type": "text", "text": note}, use])


@dataclass(frozen=True)
class PipelinePolicy:
    """See the module docstring. `max_checks` bounds the agent's check-and-fix loop."""

    crowding: float = CROWDING
    max_checks: int = 4

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        prompt, rng = request.first_user_text(), decide.rng
        if pt.EVALUATE in prompt:
            return _text(self._evaluate(prompt, decide))
        if pt.PLAN in prompt:
            return _text(self._plan(prompt, decide))
        if pt.WORKER in prompt:
            return _text(self._work(prompt, decide))
        if pt.SYNTH in prompt:
            values = dict(re.findall(r"->\s*(" + "|".join(FIELDS) + r"):\s*(.*)$", prompt, re.M))
            return _text(lay_out(values, fields_of(prompt), decide.correct(), rng))
        if pt.CLASSIFY in prompt:
            labels = ("clean", "messy") if self._looks_clean(prompt) else ("messy", "clean")
            return _text(labels[0] if decide.correct() else labels[1])
        if pt.EXTRACT in prompt:
            raw = extract(record_of(prompt), fields_of(prompt), decide.correct(), rng)
            return _text("\n".join(f"{f}: {v}" for f, v in raw.items()))
        if pt.NORMALISE in prompt:
            values = normalise(dict(FIELD_LINE.findall(prompt)), decide.correct(), rng)
            return _text("\n".join(f"{f}: {v}" for f, v in values.items()))
        if pt.FORMAT in prompt:
            values = dict(FIELD_LINE.findall(prompt))
            return _text(lay_out(values, list(values), decide.correct(), rng))
        if request.tools:
            return self._checked(request, prompt, decide, loop=pt.AGENT_HINT in request.system)
        return _text(whole(prompt, crowded(decide, 3, self.crowding), rng))

    def _checked(self, request: Request, prompt: str, decide: Decider, *, loop: bool) -> Reply:
        uses = [u for u in request.tool_uses() if u.get("name") == "check_format"]
        if not uses:
            return _check(whole(prompt, crowded(decide, 3, self.crowding), decide.rng), "Checking the layout first.")
        line = str((uses[-1].get("input") or {}).get("line", ""))
        results = request.tool_results()
        if results and not results[-1]["is_error"] and results[-1]["content"].startswith("VALID"):
            right = line == whole(prompt, [True, True, True], decide.rng)
            if loop and len(uses) < self.max_checks and doubts(decide, right):
                redo = whole(prompt, crowded(decide, 3, self.crowding), decide.rng)
                return _check(redo, "Redoing it from the record.")
            return _text(line)
        if loop and len(uses) >= self.max_checks:
            return _text(line)  # give up fixing: answer the last line
        values, fields = reparse(line, fields_of(prompt)), fields_of(prompt)
        fixed = lay_out(values, fields, decide.correct(), decide.rng)
        return _check(fixed, "Fixing the layout.") if loop else _text(fixed)

    def _looks_clean(self, prompt: str) -> bool:
        record, fields = record_of(prompt).strip(), fields_of(prompt)
        return len(record.split(" | ")) == len(fields) and format_line(reparse(record, fields), fields) == record

    def _evaluate(self, prompt: str, decide: Decider) -> str:
        m = re.search(r"^Candidate: ?(.*)$", prompt, re.M)
        candidate = " ".join((m.group(1) if m else "").split())
        fields = fields_of(prompt)
        truth = whole(prompt, [True, True, True], decide.rng)
        right = candidate == truth
        if not doubts(decide, right):
            return "PASS"
        if right:  # a right line doubted: a made-up complaint
            return f"FAIL: the {decide.rng.choice(fields)} does not match the record."
        got, want = candidate.split(" | "), truth.split(" | ")
        if len(got) != len(want):
            return f"FAIL: the layout is wrong; use {layout_of(fields)} with ' | ' between fields."
        i = next(i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b)
        return f"FAIL: the {fields[i]} is wrong ({got[i]!r} does not match the record)."

    def _plan(self, prompt: str, decide: Decider) -> str:
        fields = fields_of(prompt)
        if not decide.correct():
            if len(fields) > 1 and decide.rng.random() < 0.5:
                forgotten = decide.rng.choice(fields)
                fields = [f for f in fields if f != forgotten]
            else:
                text = json.dumps([f"normalise the {f} field" for f in fields])
                return text[: len(text) // 2]  # cut off mid-array: malformed
        return json.dumps([f"normalise the {f} field" for f in fields])

    def _work(self, prompt: str, decide: Decider) -> str:
        m = re.search(re.escape(pt.WORKER) + r" ?(.*)$", prompt, re.M)
        found = re.search(r"\b(" + "|".join(FIELDS) + r")\b", m.group(1) if m else "")
        if not found:
            return "I cannot tell which field this subtask is about."
        field = found.group(1)
        ok_extract, ok_normalise = crowded(decide, 2, self.crowding)
        raw = extract(record_of(prompt), [field], ok_extract, decide.rng)
        return f"{field}: {normalise(raw, ok_normalise, decide.rng)[field]}"

