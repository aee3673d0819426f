"""How `SimModel` behaves on the `repair` family's prompts: a fixer that acts on validator reports.

It sees what a model sees: the prompt, the tools, the tool results so far. It learns the faults
only from the validator's reports in the conversation (never from the file's ground truth) and
does not guess problems by reading the file, so each validation reveals one fault to it. It tells a
step by its header anywhere in the request's instructions (`Request.instructions()`: system prompt
and first user turn; the first header found), never by where the header sits; a request with no
step header is the task itself (an agent's turn, or a single call's only round).

Decisions (each one a draw keyed by what is decided, so a decision made again in a trial is
correlated at `error_correlation` whichever design makes it; a wrong one is a plausible mistake):
- a fix of line N (agent turn, chain/generator/worker/specialist step, vote proposal; key: the file
  and the line): right, the line passes; wrong, a near miss that still breaks the rule (`"80"`
  quoted, `Warn`, `True`, `port: 80`, `Port = 80`) — the next validation reports the same line
  again, so a loop can notice and try again (the same decision again: correlated);
- classifier: the report's kind (syntax / key / value); wrong, another label, whose specialist
  changes nothing;
- planner: one decision per planned subtask; wrong, the subtask quotes a wrong line number;
- evaluator, when the validator fails: FAIL with the report; wrong, a lenient PASS (a judgement, at
  `checker_error_rate`, `patterns.sim.policy.doubts`).
No other judgement: the task and the system prompt say to validate again after every fix and never
to claim the file valid without validating, and the model does what it is told, as every family's
agent follows its procedure for free; so after an edit it validates again at no decision cost. (An
earlier version let only the agent "claim DONE without validating" at `checker_error_rate` after an
edit, which no workflow's code-run validation could mirror.) Mistakes stay in the content decisions
(the fix, the classification, the plan) and in the judgements of results. Reading a validator's
report, or reporting a tool's result, makes no decision; every design sees the same reports.

Crowding: a call making k decisions at once errs on each with probability
`min(1, e * (1 + crowding * (k - 1)))` (`patterns.sim.policy.crowded`); with crowding 0 that is k plain draws.
Here only the planner can make several decisions in one call, and since the validator reveals
one fault at a time it plans one subtask, so crowding has no effect with these designs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.base import marked
from benchmarks.tasks.repair.prompts import (
    CLASSIFY,
    EVALUATE,
    FIX,
    LABELS,
    MARK,
    NO_EDIT,
    PLAN,
    PROPOSE,
    SPECIALIST,
    SYNTHESIZE,
)
from benchmarks.tasks.repair.skills import Fix, Report, fix_for, kind_of, parse_reports
from patterns.sim.policy import CROWDING, Decider, Reply, Request, crowded, doubts

_PATH = re.compile(r"`([^`\s]+)`")


def _text(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _calls(text: str, *uses: tuple[str, dict[str, Any]]) -> Reply:
    return Reply([{"type": "text", "text": text}] + [{"type": "tool_use", "name": n, "input": i} for n, i in uses])


def _named(request: Request, results: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, result) for each of `results`, named by the call it answers."""
    names = {u.get("id"): str(u.get("name", "")) for u in request.tool_uses()}
    return [(names.get(r["tool_use_id"], ""), r) for r in results]


def _last_round(request: Request) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, result) for each tool call of the previous assistant turn."""
    return _named(request, request.last_tool_results())


def _answer_now(request: Request, path: str) -> Reply:
    """Told to answer now (`tool_choice` `none`, a drawn workflow's answer step): what the last validation in the
    conversation said, never the lead-in of a call it may not make ("Fixing line 7.", "Let me validate again.")."""
    done = _named(request, request.tool_results())
    checks = [r for name, r in done if name == "validate"]
    passed = bool(checks) and not checks[-1]["is_error"] and checks[-1]["content"].startswith("OK")
    if passed and done[-1][0] == "validate":  # nothing edited since the validator passed
        return _text(f"DONE: the validator passes on {path}.")
    said = f": {_first_line(checks[-1]['content'])}" if checks else ""
    return _text(f"NOT FIXED: the file has not passed the validator since its last edit{said}")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "(empty)"


@dataclass(frozen=True)
class RepairPolicy:
    """See the module docstring."""

    crowding: float = CROWDING

    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        prompt = request.instructions()
        steps = {FIX: self._fix, SPECIALIST: self._fix, CLASSIFY: self._classify, PLAN: self._plan,
                 EVALUATE: self._evaluate, PROPOSE: self._propose, SYNTHESIZE: self._synthesize}
        found = [(prompt.find(header), header) for header in steps if header in prompt]
        if found:  # the step the instructions name first (a quoted report never carries a header)
            return steps[min(found)[1]](request, decide, prompt, self._path(prompt))
        return self._agent(request, decide, prompt, self._path(prompt))

    @staticmethod
    def _path(prompt: str) -> str:
        match = _PATH.search(prompt)
        return match.group(1) if match else "app.conf"

    def _one(self, decide: Decider, key: str) -> bool:
        return crowded(decide, [key], self.crowding)[0]

    def _edit(self, fix: Fix, path: str, decide: Decider) -> str:
        """The new text of the line a report names: one decision about that line of that file."""
        if fix.right == fix.wrong:
            return fix.right
        return fix.right if self._one(decide, f"repair|fix|{path}|line {fix.line}") else fix.wrong

    def _agent(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        """The task prompt, as an agent's turn (or a single call's only round)."""
        if not request.may_call():  # told to answer now (`none`): no read, edit or check it may not make
            return _answer_now(request, path)
        if not request.tool_uses():
            return _calls("I'll read the file and run the validator.", ("read_file", {"path": path}),
                          ("validate", {"path": path}))
        done = _last_round(request)
        checked = [r for name, r in done if name == "validate"]
        if checked:
            return self._after_validation(checked[-1], path, decide)
        return _calls("Let me validate again.", ("validate", {"path": path}))  # as told: after every edit

    def _after_validation(self, result: dict[str, Any], path: str, decide: Decider) -> Reply:
        content = result["content"]
        if result["is_error"]:
            return _text(f"NOT FIXED: the validator could not run: {_first_line(content)}")
        if content.startswith("OK"):
            return _text(f"DONE: the validator passes on {path}.")
        reports = parse_reports(content)
        fix = fix_for(reports[0]) if reports else None
        if fix is None:
            return _text(f"NOT FIXED: I cannot fix this with a line edit: {_first_line(content)}")
        edit = {"path": path, "line_no": fix.line, "text": self._edit(fix, path, decide)}
        return _calls(f"Fixing line {fix.line}.", ("replace_line", edit))

    def _fix(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        """Fix the last problem quoted in the prompt with one replace_line call, then say what changed."""
        if request.tool_uses():
            result = request.last_tool_results()[-1]
            if result["is_error"]:
                return _text(f"The edit failed: {_first_line(result['content'])}")
            return _text(f"Done: {result['content']}")
        reports = parse_reports(prompt)
        if not reports:
            return _text("Nothing to fix: the validator reports no problem.")
        report = reports[-1]
        label = re.search(r"\[repair\] Specialist fix \((\w+)\)", prompt)
        if label and kind_of(report) != label.group(1):
            return _text(f"This is not a {label.group(1)} problem; I changed nothing.")
        fix = fix_for(report)
        if fix is None:
            return _text(f"I cannot fix this with one line edit: {report.text()}")
        edit = {"path": path, "line_no": fix.line, "text": self._edit(fix, path, decide)}
        return _calls(f"Fixing line {fix.line}.", ("replace_line", edit))

    def _classify(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        reports = parse_reports(prompt)
        if not reports:
            return _text("none")
        true = kind_of(reports[-1])
        right = self._one(decide, f"repair|classify|{reports[-1].text()}")
        return _text(true if right else decide.rng.choice([x for x in LABELS if x != true]))

    def _plan(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        if not request.tool_uses():
            return _calls("I'll run the validator first.", ("validate", {"path": path}))
        result = request.last_tool_results()[-1]
        reports = [] if result["is_error"] else parse_reports(result["content"])
        subtasks = []
        keys = [f"repair|plan|{path}|{report.text()}" for report in reports]
        for report, ok in zip(reports, crowded(decide, keys, self.crowding), strict=True):
            line = report.line
            if not ok and line is not None:  # misquoting the line number: the worker then edits the wrong line
                line = line + 1 if line == 1 or decide.rng.random() < 0.5 else line - 1
            subtasks.append(f"Fix this problem in `{path}`: {Report(line, report.message).text()}")
        return _text(json.dumps(subtasks))

    def _evaluate(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        if not request.tool_uses():
            return _calls("Running the validator.", ("validate", {"path": path}))
        result = request.last_tool_results()[-1]
        if not result["is_error"] and result["content"].startswith("OK"):
            return _text("PASS: the validator passes.")
        reports = parse_reports(result["content"])
        if not doubts(decide, False, f"repair|judge|{path}|{_first_line(result['content'])}"):
            return _text("PASS: the change looks right to me.")
        return _text(f"FAIL: {reports[0].text() if reports else _first_line(result['content'])}")

    def _propose(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        reports = parse_reports(prompt)
        fix = fix_for(reports[-1]) if reports else None
        if fix is None:
            return _text(NO_EDIT)
        return _text(f"replace line {fix.line} with: {self._edit(fix, path, decide)}")

    def _synthesize(self, request: Request, decide: Decider, prompt: str, path: str) -> Reply:
        if not request.tool_uses():
            return _calls("Checking the result.", ("validate", {"path": path}))
        result = request.last_tool_results()[-1]
        if not result["is_error"] and result["content"].startswith("OK"):
            return _text(f"DONE: the validator passes on {path}.")
        return _text(f"NOT FIXED: {_first_line(result['content'])}")
