"""The fixed designs of a bug-fixing family on a real project (`tools.py`'s five tools), Agentless-style, so that
a family writes none. The state between steps is JSON: the last test report, the code read, the last reply.

- `oneshot`: run the tests; localize once, off any loop — a traceback frame in the project is read by code, then a
  model call names the lines to read (a wide router, run once) — read them; then repair → validate → retry: a fix
  step (one edit, or NOT HERE), the edit applied and the tests run in code, until they pass or the fixer says the
  bug is not in what it was shown, at most `rounds` tries.
- `survey`: run the tests, code reads every file of the project whole, then the same repair loop with every file
  in the fixer's prompt.
- `fallback`: the one-shot chain; if the tests still fail, the survey's reads and repair loop. Code decides the
  fallback (the test report says whether they pass), so no model picks a next step on any loop.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.codebase.tools import MOST_LINES, frame_of, passed
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, Code, Loop, Route, ToolStep
from patterns.workflows.each import CallEach, Use

LOCATE = "Where is the bug? Reply READ: <path>:<first line>-<last line>"
FIX = "Fix the bug in the code shown with one edit"
WINDOW = 15  # lines either side of the line a read is about
_EDIT = re.compile(r"EDIT (\S+)\n<<<<<<< SEARCH\n(.*?)\n=======\n(.*?)\n>>>>>>> REPLACE", re.S)
_READ = re.compile(r"READ:\s*(\S+?):(\d+)-(\d+)")
_SIZE = re.compile(r"^(\S+) \((\d+) lines\)$", re.M)


def _state(text: str) -> dict[str, Any]:
    return json.loads(text)


def _with(text: str, **changes: Any) -> str:
    return json.dumps({**_state(text), **changes})


class Maybe(ToolStep):
    """A fixed tool call made only when code finds its arguments in the state (else the state passes on)."""

    async def __call__(self, run: Run, text: str) -> str:
        return await super().__call__(run, text) if self.args(text) is not None else text


class Ask(LLM):
    """A model call on the state, its reply kept in the state's `reply`."""

    async def __call__(self, run: Run, text: str) -> str:
        return _with(text, reply=await super().__call__(run, text))


def _prompt(ask: str) -> Any:
    def prompt(text: str, task: str) -> str:
        s = _state(text)
        code = "\n\n".join(s["reads"])
        return f"{task}\n\n{ask}\n\n<test_output>\n{s['report']}\n</test_output>\n\n<code>\n{code}\n</code>"
    return prompt


def _read(text: str, result: str, failed: bool) -> str:
    return _with(text, reads=[*_state(text)["reads"], result])


def _edit_args(text: str) -> dict[str, Any] | None:
    m = _EDIT.search(_state(text).get("reply", ""))
    return {"path": m.group(1), "old": m.group(2), "new": m.group(3)} if m else None


def _window(text: str) -> dict[str, Any]:
    m = _READ.search(_state(text).get("reply", ""))
    return {"path": m.group(1), "start": int(m.group(2)), "end": int(m.group(3))} if m else {"path": "?"}


def _frame_window(text: str) -> dict[str, Any]:
    path, line = frame_of(_state(text)["report"]) or ("?", 1)
    return {"path": path, "start": max(1, line - WINDOW), "end": line + WINDOW}


def _fixed(text: str) -> bool:
    return passed(_state(text)["report"])


def _every_read(text: str) -> list[Use]:
    sizes = [(p, int(n)) for p, n in _SIZE.findall(_state(text)["files"]) if not p.startswith("tests/")]
    return [{"name": "read_file", "id": f"survey_{k}", "input": {"path": p, "start": s}}
            for k, (p, s) in enumerate((p, s) for p, n in sizes for s in range(1, n + 1, MOST_LINES))]


@dataclass(frozen=True)
class Designs:
    """The designs over one trial's tools; each repair loop makes at most `rounds` tries."""

    tools: ToolSet
    rounds: int

    def _tool(self, name: str, tool: str, args: Any, keep: Any) -> ToolStep:
        return Maybe(name, self.tools, tool, args, keep=keep)

    def tries(self, name: str) -> Loop:
        """repair → validate → retry: one edit (or NOT HERE), applied and tested in code, until the tests pass."""
        fix = Ask("fix", _prompt(FIX + ": reply EDIT <path>, a <<<<<<< SEARCH block with the exact old lines, "
                                 "======= and the new lines, then >>>>>>> REPLACE; or NOT HERE if the bug is not in "
                                 "this code."))
        edit = self._tool("edit", "edit", _edit_args, keep=lambda t, r, f: _with(_read(t, r, f), edited=not f))
        validate = self._tool("validate", "run_tests", lambda t: {} if _state(t).get("edited") else None,
                              keep=lambda t, r, f: _with(t, report=r, edited=False))
        return Loop(Chain([fix, edit, validate], name="try"), name=name, max_rounds=self.rounds,
                    until=lambda t: _fixed(t) or "NOT HERE" in _state(t).get("reply", ""))

    def _around(self, *middle: Any) -> Chain:
        begin = self._tool("run_tests", "run_tests", lambda t: {}, keep=lambda t, r, f: json.dumps(
            {"report": r, "reads": [], "reply": ""}))
        return Chain([begin, *middle, Code("report", lambda t: "DONE: the tests pass." if _fixed(t) else "NOT FIXED")])

    def localize(self) -> Route:
        def locate() -> list[Any]:
            return [Ask("locate", _prompt(LOCATE + " (the lines of the project's code to read next).")),
                    self._tool("read", "read_file", _window, _read)]

        frame = Chain([self._tool("read_frame", "read_file", _frame_window, _read), *locate()], name="frame")
        return Route(Code("traceback?", lambda t: "frame" if frame_of(_state(t)["report"]) else "prose"),
                     {"frame": frame, "prose": Chain(locate(), name="prose")}, name="localize")

    def read_all(self) -> Chain:
        """Code lists the project's files, then reads every one whole (in reads of at most `MOST_LINES` lines)."""
        listed = self._tool("list_files", "list_files", lambda t: {}, keep=lambda t, r, f: _with(t, files=r))
        reads = CallEach("read_every_file", ToolSet([self.tools.tools["read_file"]]), _every_read,
                         lambda t, uses, results: _with(t, reads=results), label="read_file on every file")
        return Chain([listed, reads], name="read_all")

    def oneshot(self) -> Chain:
        return self._around(self.localize(), self.tries("repair"))

    def survey(self) -> Chain:
        return self._around(self.read_all(), self.tries("repair"))

    def fallback(self) -> Chain:
        survey = Chain([self.read_all(), self.tries("repair_all")], name="survey")
        rest = Route(Code("fixed?", lambda t: "fixed" if _fixed(t) else "survey"),
                     {"fixed": Code("keep", lambda t: t), "survey": survey}, name="fallback")
        return self._around(self.localize(), self.tries("repair"), rest)
