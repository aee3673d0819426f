"""How SimModel behaves on `pipeline` prompts: it reads the record in the prompt, never the truth.

It does the work a model would do — find each labelled value in the messy record, normalise it,
lay the line out — with code, and makes each decision that a model could get wrong through the
`Decider`, keyed by what is decided (`review.keys_of`: the record, the values, the line), so the same
decision made twice in a trial is correlated (`error_correlation`) whichever design makes it. It tells
the steps apart by a phrase anywhere in the request's instructions (`Request.instructions()`: system
prompt and first user turn), never by where the phrase sits or which pattern sent it.

Decisions per call (one draw each):
- chain `extract` / `normalise` / `format` step: 1 each. Mistakes: extract copies one value
  wrongly (surname and first name swapped, year digits transposed, a city's last word dropped or
  the wrong segment taken, two phone digits swapped, a dot lost from an email); normalise gets
  one value wrong (a d/m/y date read as m/d/y when that is a valid date, a value left as written
  or in the wrong case); format lays the line out wrongly (name as First Last, `;` separators,
  two fields swapped). Only extract slips and m/d/y dates survive `check_format`;
- a whole pipeline in one call (single, vote branch, generator, a first turn with check_format):
  the same 3 decisions at once, crowded, under the same keys as the chain's three steps;
- classifier 1 (answers `clean` for a messy record); planner 1 (drops a field, or a malformed
  JSON plan, which gets one repair call); worker 2 (extract + normalise of its field, crowded);
  synthesizer 1 (a format slip).
Second looks (`review`), the same wherever they are asked for:
- a fix of a line check_format called INVALID: 1 decision (a new format slip). It is asked for by
  the report itself, as a tool result after the model's own check_format call, or quoted in a step's
  prompt (`Fix the layout of the line below`); with the instruction to fix "until it is valid" the
  fixed line is checked again (within `max_checks` checks), without it (or under `tool_choice` `none`,
  which asks for the answer now) the fix is the answer;
- a judgement of a line against the record: 1 judgement at `checker_error_rate` (a wrong one passes a
  wrong line or fails a right one). An evaluator step asks for it (`Evaluate the candidate line`);
  the instruction to "check your line against the record before replying" asks for it of a line
  check_format has just called VALID, in the same call, while checks remain;
- a redo steered by a judgement's note: the named field's extract + normalise, 2 crowded decisions
  (a note naming no field: the whole line, 3). A step asks for it with the note quoted (`Redo the
  line below`); the self-check above makes it in the same call after its own doubt, then checks again.
A fix does real work from the line: re-reading a mis-laid line and laying it out again (which also
repairs values left unnormalised, but never a wrong value). The one-round designs (single) have no
second look after their fix.

Crowding: a call that makes k decisions at once errs on each with probability
`min(1, e * (1 + crowding * (k - 1)))` (`crowded`); with crowding 0 it is e, one
`decide.correct()` per decision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from benchmarks.tasks.base import marked
from benchmarks.tasks.pipeline import prompts as pt
from benchmarks.tasks.pipeline import review as rv
from benchmarks.tasks.pipeline.prompts import FIELDS, MARK
from benchmarks.tasks.pipeline.skills import (
    FIELD_LINE,
    extract,
    fields_of,
    format_line,
    lay_out,
    normalise,
    record_of,
    reparse,
)
from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text.strip() or "(no answer)"}])


def _quoted(text: str, label: str) -> str:
    """What a step's prompt quotes after `label` (`Line: ...`), spaces standardised."""
    m = re.search("^" + re.escape(label) + r" ?(.*)$", text, re.M)
    return " ".join((m.group(1) if m else "").split())


def _check(line: str, note: str) -> Reply:
    use = {"type": "tool_use", "name": "check_format", "input": {"line": line}}
    return Reply([{"type": "text", "text": note}, use])


@dataclass(frozen=True)
class PipelinePolicy:
    """See the module docstring. `max_checks` bounds the check-and-fix loop a request asks for ("until it is
    valid"): the agent's bound, which the declared chain's loop matches."""

    crowding: float = CROWDING
    max_checks: int = 4

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        text, rng = request.instructions(), decide.rng
        record = record_of(text).strip()
        if pt.FIX in text:
            return _text(rv.fix(_quoted(text, pt.LINE), fields_of(text), decide))
        if pt.REDO in text:
            return _text(rv.redo(text, _quoted(text, pt.LINE), text.split(pt.NOTE, 1)[-1], decide, self.crowding))
        if pt.EVALUATE in text:
            m = re.search(r"^Candidate: ?(.*)$", text, re.M)
            return _text(rv.judgement(text, " ".join((m.group(1) if m else "").split()), decide) or "PASS")
        if pt.PLAN in text:
            return _text(self._plan(text, decide))
        if pt.WORKER in text:
            return _text(self._work(text, decide))
        if pt.SYNTH in text:
            values = dict(re.findall(r"->\s*(" + "|".join(FIELDS) + r"):\s*(.*)$", text, re.M))
            return _text(lay_out(values, fields_of(text), decide.correct(f"pipeline|format|{rv.listing(values)}"),
                                 rng))
        if pt.CLASSIFY in text:
            labels = ("clean", "messy") if self._looks_clean(text) else ("messy", "clean")
            return _text(labels[0] if decide.correct(f"pipeline|classify|{record}") else labels[1])
        if pt.EXTRACT in text:
            raw = extract(record, fields_of(text), decide.correct(f"pipeline|extract|{record}"), rng)
            return _text("\n".join(f"{f}: {v}" for f, v in raw.items()))
        if pt.NORMALISE in text:
            given = dict(FIELD_LINE.findall(text))
            values = normalise(given, decide.correct(f"pipeline|normalise|{rv.listing(given)}"), rng)
            return _text("\n".join(f"{f}: {v}" for f, v in values.items()))
        if pt.FORMAT in text:
            values = dict(FIELD_LINE.findall(text))
            return _text(lay_out(values, list(values), decide.correct(f"pipeline|format|{rv.listing(values)}"), rng))
        if request.tools or self._checks(request):
            return self._checked(request, text, decide)
        return _text(rv.whole_pipeline(text, decide, self.crowding))

    def _checked(self, request: Request, text: str, decide: Decider) -> Reply:
        """A request offering check_format, or after its checks: write the line and check it, then act on the
        report. Told to answer now (`none`, no tools offered: a drawn workflow's answer step) the line it would
        have checked is the answer; it had laid the whole record out again, crowded (drawn 66% vs agent 96%)."""
        uses = self._checks(request)
        may_call = request.may_call()  # told to answer now (`none`): the line it would check is the answer
        if not uses:
            line = rv.whole_pipeline(text, decide, self.crowding)
            return _check(line, "Checking the layout first.") if may_call else _text(line)
        loop, checks_left = pt.UNTIL_VALID in text and may_call, len(uses) < self.max_checks
        line = str((uses[-1].get("input") or {}).get("line", ""))
        results = request.tool_results()
        if results and not results[-1]["is_error"] and results[-1]["content"].startswith("VALID"):
            note = rv.judgement(text, line, decide) if pt.SELF_CHECK in text and checks_left else None
            if note is None:
                return _text(line)
            redone = rv.redo(text, line, note, decide, self.crowding)
            return _check(redone, f"I doubt it ({note}); redoing that from the record.") if loop else _text(redone)
        if loop and not checks_left:
            return _text(line)  # give up fixing: answer the last line
        fixed = rv.fix(line, fields_of(text), decide)
        return _check(fixed, "Fixing the layout.") if loop else _text(fixed)

    @staticmethod
    def _checks(request: Request) -> list[dict]:
        return [u for u in request.tool_uses() if u.get("name") == "check_format"]

    def _looks_clean(self, prompt: str) -> bool:
        record, fields = record_of(prompt).strip(), fields_of(prompt)
        return len(record.split(" | ")) == len(fields) and format_line(reparse(record, fields), fields) == record

    def _plan(self, prompt: str, decide: Decider) -> str:
        fields = fields_of(prompt)
        if not decide.correct(f"pipeline|plan|{record_of(prompt).strip()}"):
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
        record = record_of(prompt).strip()
        ok_extract, ok_normalise = crowded(decide, [f"pipeline|extract|{record}|{field}",
                                                    f"pipeline|normalise|{record}|{field}"], self.crowding)
        raw = extract(record, [field], ok_extract, decide.rng)
        return f"{field}: {normalise(raw, ok_normalise, decide.rng)[field]}"

