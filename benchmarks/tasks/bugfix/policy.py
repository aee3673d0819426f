"""SimModel's behaviour on `bugfix`'s prompts: a model that knows the stdlib well enough to recognise the seeded
bug when it sees its line, and to guess where it is from a failing test, at the family's error odds.

Blind to the pattern: what a request asks is read from its instructions (AGENT, LOCATE, FIX), and what the model
has seen is read from the request's text wherever it sits (a tool result or a step's prompt): the numbered
listings of `read_file` and `edit` (the latest text of each line wins) and the last test report. Its world
knowledge is the bug the issue tag names (`know`): file, line, original text. Two decisions:
- **where to look** (`bugfix|locate|<tag>`, at error_rate), when no listing seen shows the bug and no
  traceback frame in the project is unread: right, a window around the bug; wrong, a window elsewhere in the
  project. A traceback's frame is read as code would read it: its window, no decision;
- **which edit** (`bugfix|edit|<file>:<line>`, at error_rate), when a listing shows the buggy line: right,
  the original line back; wrong, an edit that leaves the bug (a comment added). Deciding again is correlated.
Reading a report (pass or fail) and seeing that a listing does not show the bug are free.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.base import marked
from benchmarks.tasks.bugfix.modules import CATALOGUE
from benchmarks.tasks.codebase.designs import FIX, LOCATE, WINDOW
from benchmarks.tasks.codebase.tools import frame_of, last_report, listings
from benchmarks.tasks.trail.knowledge import _READING, NotAModel, reading
from patterns.sim.policy import Decider, Reply, Request

MARK = "[bugfix]"
AGENT = "You fix a bug in a Python project"


def tag_of(entry: dict[str, Any], m: dict[str, Any]) -> str:
    return "BF-" + hashlib.sha256(f"{entry['module']}|{m['file']}|{m['line']}|{m['mutated']}".encode()).hexdigest()[:6]


def know(text: str) -> dict[str, Any] | None:
    """The bug an issue tag in `text` is about (file, line, original, mutated, and the project's files with their
    lengths): the simulated model's world knowledge (the trail families' guard: only inside a policy's call)."""
    if not _READING.get():
        raise NotAModel("bugfix: only the simulated model's policy knows where the bug is")
    found = re.search(r"\bBF-[0-9a-f]{6}\b", text)
    return _bugs().get(found.group()) if found else None


@functools.cache
def _bugs() -> dict[str, dict[str, Any]]:
    return {tag_of(entry, m): {**m, "sizes": entry["sizes"]} for entry, m in CATALOGUE.mutations()}


@dataclass(frozen=True)
class Seen:
    """What a request shows the model: the bug it knows, the listings, the last report."""

    bug: dict[str, Any]
    lines: dict[str, dict[int, str]]
    report: str

    def shown(self) -> str | None:
        """The buggy line's text as last shown, if a listing shows it unfixed."""
        text = self.lines.get(self.bug["file"], {}).get(self.bug["line"])
        return text if text is not None and text != self.bug["original"] else None


def _say(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


def _use(name: str, **args: Any) -> Reply:
    return Reply([{"type": "tool_use", "name": name, "input": args}])


@dataclass(frozen=True)
class BugfixPolicy:
    def accepts(self, request: Request) -> bool:
        return marked(request, MARK)

    def respond(self, request: Request, decide: Decider) -> Reply:
        said = request.instructions()
        text = "\n".join([request.first_user_text(), *(r["content"] for r in request.tool_results())])
        with reading():
            bug = know(said)
        if bug is None:
            return _say("UNKNOWN: no issue tag I know.")
        seen = Seen(bug, listings(text), last_report(text))
        if FIX in said:
            return self._edit(seen, decide, as_tool=False) if seen.shown() is not None else _say("NOT HERE")
        if LOCATE in said:
            path, start, end = self.look(seen, decide, said)
            return _say(f"READ: {path}:{start}-{end}")
        if AGENT in said:
            return self._agent(request, seen, decide)
        return _say("UNKNOWN: I do not know what this step asks for.")

    def look(self, seen: Seen, decide: Decider, said: str) -> tuple[str, int, int]:
        """The window to read next (see the module docstring)."""
        bug, frame = seen.bug, frame_of(seen.report)
        if frame is not None and frame[1] not in seen.lines.get(frame[0], {}):
            return frame[0], max(1, frame[1] - WINDOW), frame[1] + WINDOW
        tag = re.search(r"BF-[0-9a-f]{6}", said)
        if seen.shown() is not None or decide.correct(f"bugfix|locate|{tag.group() if tag else ''}"):
            start = max(1, bug["line"] - decide.rng.randint(3, 2 * WINDOW - 3))
            return bug["file"], start, start + 2 * WINDOW
        for _ in range(20):
            path = decide.rng.choice(sorted(bug["sizes"]))
            start = decide.rng.randint(1, max(1, bug["sizes"][path] - 2 * WINDOW))
            if path != bug["file"] or not start <= bug["line"] <= start + 2 * WINDOW:
                break
        return path, start, start + 2 * WINDOW

    def _edit(self, seen: Seen, decide: Decider, as_tool: bool) -> Reply:
        bug, old = seen.bug, seen.shown()
        new = bug["original"] if decide.correct(f"bugfix|edit|{bug['file']}:{bug['line']}") else f"{old}  # fixed"
        if as_tool:
            return _use("edit", path=bug["file"], old=old, new=new)
        return _say(f"EDIT {bug['file']}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE")

    def _agent(self, request: Request, seen: Seen, decide: Decider) -> Reply:
        uses, results = request.tool_uses(), request.tool_results()
        last = uses[-1]["name"] if uses and results else None
        if last is None or (last == "edit" and not results[-1]["is_error"]):
            return _use("run_tests")
        if last == "run_tests" and re.search(r"^OK: \d+ cases passed", seen.report, re.M):
            return _say("DONE: the tests pass.")
        if seen.shown() is not None:
            return self._edit(seen, decide, as_tool=True)
        path, start, end = self.look(seen, decide, request.instructions())
        return _use("read_file", path=path, start=start, end=end)
