"""One trial's project and its tools, all real: the target copied from the running interpreter with one line
mutated, its differential tests, and tools that list, read, search, edit and run them (`run_tests` runs the test
file in a subprocess with a timeout and cuts its output as a harness does). And the simulated model's world
knowledge of the bug, which only a policy's call may read (the trail families' guard)."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.tasks.bugfix import catalogue
from benchmarks.tasks.repair.tools import Sandbox
from benchmarks.tasks.trail.knowledge import _READING, NotAModel
from patterns.tools import ToolSet, tool

MOST_LINES = 200  # lines one read returns at most: a read fits a tool result (`patterns.tools.MAX_RESULT_CHARS`)
KEPT_CHARS = 3000  # run_tests keeps the first and the last this many characters of a longer output
RUN_TIMEOUT_S = 60.0
HIT_LIMIT = 40


def tag_of(target: dict[str, Any], m: dict[str, Any]) -> str:
    return "BF-" + hashlib.sha256(f"{target['module']}|{m['file']}|{m['line']}|{m['mutated']}".encode()).hexdigest()[:6]


def know(text: str) -> dict[str, Any] | None:
    """The bug an issue tag in `text` is about (file, line, original, mutated, and the project's files with their
    lengths): the simulated model's world knowledge. Only inside a policy's call."""
    if not _READING.get():
        raise NotAModel("bugfix: only the simulated model's policy knows where the bug is")
    found = re.search(r"\bBF-[0-9a-f]{6}\b", text)
    return _bugs().get(found.group()) if found else None


@functools.cache
def _bugs() -> dict[str, dict[str, Any]]:
    return {tag_of(target, m): {**m, "sizes": target["sizes"]} for target, m in catalogue.mutations()}


def test_file(module: str) -> str:
    return f"tests/test_{module.replace('.', '_')}.py"


def build_project(root: Path, target: dict[str, Any], m: dict[str, Any]) -> None:
    """The target copied in, the mutated line written, the tests beside it."""
    from benchmarks.tasks.bugfix.modules import TARGETS
    from benchmarks.tasks.bugfix.mutate import Mutation, apply

    catalogue.copy_into(next(t for t in TARGETS if t.copy == target["target"]), root)
    path = root / m["file"]
    path.write_text(apply(path.read_text(encoding="utf-8"), Mutation(**m)), encoding="utf-8", newline="")
    (root / "tests").mkdir()
    (root / "tests" / "_check.py").write_text((catalogue.HERE / "check.py").read_text(encoding="utf-8"))
    cases = ",\n".join(f"    ({json.dumps(c)}, {json.dumps(e)})" for c, e in zip(target["cases"], target["expected"],
                                                                                    strict=True))
    (root / test_file(target["module"])).write_text(
        f'"""Each case\'s expected outcome is what the original {target["module"]} gave."""\nimport _check\n\n'
        f'CASES = [\n{cases},\n]\n\nif __name__ == "__main__":\n    _check.main({target["module"]!r}, CASES)\n')


def listing(path: str, lines: list[str], start: int, end: int) -> str:
    """Lines start..end of a file, numbered, under a header every design's reader recognises."""
    body = "\n".join(f"{n:>5}| {lines[n - 1]}" for n in range(start, end + 1))
    return f"==> {path} (lines {start}-{end} of {len(lines)}) <==\n{body}"


def cut(text: str) -> str:
    if len(text) <= 2 * KEPT_CHARS:
        return text
    return f"{text[:KEPT_CHARS]}\n[... {len(text) - 2 * KEPT_CHARS} characters cut ...]\n{text[-KEPT_CHARS:]}"


def run_tests_in(root: Path, module: str) -> tuple[int, str]:
    """The project's tests, run for real: (exit code, output as the tool returns it)."""
    try:
        done = subprocess.run([sys.executable, "-S", "-B", test_file(module)], cwd=root, env=catalogue.ENV,
                              capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return 124, f"TIMEOUT: {test_file(module)} did not finish in {RUN_TIMEOUT_S:g} s"
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


def make_tools(root: Path, module: str) -> ToolSet:
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
        return run_tests_in(root, module)[1]

    return ToolSet([list_files, read_file, search_code, edit, run_tests])
