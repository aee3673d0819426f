"""A real project's tools, for any family whose trial works on code in a folder: list, read, search, edit and
run the tests — the tests in a subprocess with a timeout, their output cut as a harness cuts it. Token counts
are the contents' own. And the readers of what the tools return (a numbered listing, a test report, a traceback's
frame), so that a workflow's code and a simulated model read the same output alike."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from benchmarks.tasks.repair.tools import Sandbox
from patterns.tools import ToolSet, tool

MOST_LINES = 200  # lines one read returns at most: a read fits a tool result (`patterns.tools.MAX_RESULT_CHARS`)
KEPT_CHARS = 3000  # run_tests keeps the first and the last this many characters of a longer output
RUN_TIMEOUT_S = 60.0
HIT_LIMIT = 40
ENV = {"PYTHONHASHSEED": "0", "PATH": os.defpath, "LC_ALL": "C.UTF-8"}  # every run of a project's code alike
_HEADER = re.compile(r"^==> (\S+) \(lines (\d+)-(\d+) of \d+\) <==$", re.M)
_LINE = re.compile(r"^ *(\d+)\| ?(.*)$")
_FRAME = re.compile(r'File "([^"<>]+\.py)", line (\d+)')
_REPORT = re.compile(r"^(OK: \d+ cases passed|FAILED: .*|TIMEOUT: .*)$", re.M)


def listing(path: str, lines: list[str], start: int, end: int) -> str:
    """Lines start..end of a file, numbered, under a header every reader recognises (`listings`)."""
    body = "\n".join(f"{n:>5}| {lines[n - 1]}" for n in range(start, end + 1))
    return f"==> {path} (lines {start}-{end} of {len(lines)}) <==\n{body}"


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


def frame_of(report: str) -> tuple[str, int] | None:
    """The deepest traceback frame of a report in the project's code (not its tests): code-readable."""
    frames = [(p, int(n)) for p, n in _FRAME.findall(report) if not p.startswith(("/", "tests/"))]
    return frames[-1] if frames else None


def last_report(text: str) -> str:
    """The last test report in the text (from the end of the run before it)."""
    found = [m.start() for m in _REPORT.finditer(text)]
    if not found:
        return ""
    begin = max((m.end() for m in re.finditer(r"^\(exit code \d+\)$", text[:found[-1]], re.M)), default=0)
    return text[begin:found[-1] + 200]


def passed(report: str) -> bool:
    return "\nOK: " in "\n" + report


def cut(text: str) -> str:
    if len(text) <= 2 * KEPT_CHARS:
        return text
    return f"{text[:KEPT_CHARS]}\n[... {len(text) - 2 * KEPT_CHARS} characters cut ...]\n{text[-KEPT_CHARS:]}"


def run_tests_in(root: Path, test: str) -> tuple[int, str]:
    """The project's test file, run for real: (exit code, output as the tool returns it)."""
    try:
        done = subprocess.run([sys.executable, "-S", "-B", test], cwd=root, env=ENV, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return 124, f"TIMEOUT: {test} did not finish in {RUN_TIMEOUT_S:g} s"
    return done.returncode, cut(done.stdout + done.stderr) + f"\n(exit code {done.returncode})"


def replace_once(full: Path, path: str, old: str, new: str) -> str:
    text = full.read_text(encoding="utf-8")
    if text.count(old) != 1 or not old:
        raise ValueError(f"the old text occurs {text.count(old)} times in {path}; it must occur exactly once")
    full.write_text(text.replace(old, new), encoding="utf-8", newline="")
    at, lines = text[:text.index(old)].count("\n") + 1, full.read_text(encoding="utf-8").splitlines()
    return listing(path, lines, max(1, at - 3), min(len(lines), at + new.count("\n") + 3))


def project_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def make_tools(root: Path, test: str) -> ToolSet:
    """The five tools on the project in `root`, whose tests are the file `test` (relative to `root`)."""
    box = Sandbox(root)

    def lines_of(path: str) -> list[str]:
        return box.existing(path).read_text(encoding="utf-8").splitlines()

    @tool(timeout_s=None)
    def list_files() -> str:
        """List the project's Python files, with their lengths in lines."""
        return "\n".join(f"{p} ({len(lines_of(p))} lines)" for p in project_files(root))

    @tool(timeout_s=None)
    def read_file(path: str, start: int = 1, end: int = 0) -> str:
        """Read a file's lines, numbered ('  12| text'; the numbers are not part of the file), at most 200 a time.

        Args:
            path: file path relative to the project's root, e.g. 'textwrap.py'
            start: the first line to read (1-based)
            end: the last line to read (0: to the end of the file, or 200 lines on)
        """
        lines = lines_of(path)
        first = min(max(1, start), max(1, len(lines)))
        last = min(len(lines), end if end > 0 else len(lines), first + MOST_LINES - 1)
        return listing(path, lines, first, last)

    @tool(timeout_s=None)
    def search_code(text: str) -> str:
        """Find the lines of the project's files that contain a text (case-sensitive), as 'path:line: line'.

        Args:
            text: the text to look for, e.g. 'def wrap'
        """
        hits = [f"{p}:{n}: {line.strip()}" for p in project_files(root) for n, line in enumerate(lines_of(p), 1)
                if text and text in line]
        more = f"\n... {len(hits) - HIT_LIMIT} more" if len(hits) > HIT_LIMIT else ""
        return "\n".join(hits[:HIT_LIMIT]) + more if hits else f"no line contains {text!r}"

    @tool(timeout_s=None)
    def edit(path: str, old: str, new: str) -> str:
        """Replace a text that occurs exactly once in a file with a new text; shows the lines around the change.

        Args:
            path: file path relative to the project's root
            old: the exact text to replace, whole lines included as they are (indentation too)
            new: the text to put in its place
        """
        return replace_once(box.existing(path), path, old, new)

    @tool(timeout_s=RUN_TIMEOUT_S + 30)
    def run_tests() -> str:
        """Run the project's tests; the output says which cases fail, with the expected and the actual outcome."""
        return run_tests_in(root, test)[1]

    return ToolSet([list_files, read_file, search_code, edit, run_tests])
