"""SimModel's behaviour on `bugfix`'s prompts: a model that knows the stdlib well enough to recognise the seeded
bug when it sees its line, and to guess where it is from a failing test, at the family's error odds.

Blind to the pattern: what a request asks is read from its instructions (AGENT, LOCATE, FIX), and what the model
has seen is read from the request's text wherever it sits (a tool result or a step's prompt): the numbered
listings of `read_file` and `edit` (the latest text of each line wins) and the last test report. Its world
knowledge is the bug the issue tag names (`world.know`): file, line, original text. Two decisions:
- **where to look** (`bugfix|locate|<tag>`, at error_rate), when no listing seen shows the bug and no
  traceback frame in the project is unread: right, a window around the bug; wrong, a window elsewhere in the
  project. A traceback's frame is read as code would read it: its window, no decision;
- **which edit** (`bugfix|edit|<file>:<line>`, at error_rate), when a listing shows the buggy line: right,
  the original line back; wrong, an edit that leaves the bug (a comment added). Deciding again is correlated.
Reading a report (pass or fail) and seeing that a listing does not show the bug are free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.base import marked
from benchmarks.tasks.trail.knowledge import reading
from patterns.sim.policy import Decider, Reply, Request

MARK = "[bugfix]"
AGENT = "You fix a bug in a Python project"
LOCATE = "Where is the bug? Reply READ: <path>:<first line>-<last line>"
FIX = "Fix the bug in the code shown with one edit"
WINDOW = 15  # lines either side of the line a read is about
_HEADER = re.compile(r"^==> (\S+) \(lines (\d+)-(\d+) of \d+\) <==$", re.M)
_LINE = re.compile(r"^ *(\d+)\| ?(.*)$")
_FRAME = re.compile(r'File "([^"<>]+\.py)", line (\d+)')


def frame_of(report: str) -> tuple[str, int] | None:
    """The deepest traceback frame of the report in the project's code (not its tests): code-readable."""
    frames = [(p, int(n)) for p, n in _FRAME.findall(report) if not p.startswith(("/", "tests/"))]
    return frames[-1] if frames else None


def listings(text: str) -> dict[str, dict[int, str]]:
    """Every numbered listing in the text, the latest text of each line."""
    seen: dict[str, dict[int, str]] = {}
    for head in _HEADER.finditer(text):
        lines = seen.setdefault(head.group(1), {})
        for raw in text[head.end() + 1:].splitlines():
            m = _LINE.match(raw)
            if m is None:
                break
            lines[int(m.group(1))] = m.group(2)
    return seen


def last_report(text: str) -> str:
    found = [m.start() for m in re.finditer(r"^(OK: \d+ cases passed|FAILED: .*|TIMEOUT: .*)$", text, re.M)]
    if not found:
        return ""
    begin = max((m.end() for m in re.finditer(r"^\(exit code \d+\)$", text[:found[-1]], re.M)), default=0)
    return text[begin:found[-1] + 200]


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
        from benchmarks.tasks.bugfix.world import know

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
