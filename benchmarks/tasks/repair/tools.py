"""The `repair` family's world: a config schema, its validator, and sandboxed file tools.

The artefact is a `key = value` file (whole-line `#` comments and blank lines allowed) for a
made-up service. `first_problem(text)` checks it line by line, in file order, and reports only
the FIRST problem it finds — a syntax error, an unknown or duplicate key, a value that breaks its
rule — then any missing key; `None` means the file is valid. Because it stops at the first
problem, each validation reveals one fault: that is what makes the number of steps unknowable.
The rules live here only; a model learns them from the validator's reports.

The file tools (`make_tools`) work inside one trial's directory: a path that is absolute, has
`..`, or resolves (through a symlink) outside the directory is refused with a `PermissionError`
that the ToolSet turns into an `is_error` result. Nothing here runs a shell or evaluates text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from patterns.tools import ToolSet, tool

KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$")
MAX_FILE_CHARS = 64_000
HINT = "(The validator stops at the first problem: fix it, then validate again to see the next one.)"


@dataclass(frozen=True)
class Rule:
    """What one key's value must be: `int` (low-high), `enum` (options), `bool`, `name` or `host`."""

    kind: str
    low: int = 0
    high: int = 0
    options: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "int":
            return f"an integer {self.low}-{self.high}"
        if self.kind == "enum":
            return "one of " + ", ".join(self.options)
        if self.kind == "bool":
            return "true or false"
        if self.kind == "name":
            return "a name of 2-32 characters: lowercase letters, digits and '-', starting with a letter"
        return "a hostname: lowercase letters, digits, '.' and '-'"

    def accepts(self, value: str) -> bool:
        if self.kind == "int":
            return re.fullmatch(r"-?\d+", value) is not None and self.low <= int(value) <= self.high
        if self.kind == "enum":
            return value in self.options
        if self.kind == "bool":
            return value in ("true", "false")
        if self.kind == "name":
            return re.fullmatch(r"[a-z][a-z0-9-]{1,31}", value) is not None
        return re.fullmatch(r"[a-z0-9]([a-z0-9.-]{0,62}[a-z0-9])?", value) is not None


SCHEMA: dict[str, Rule] = {
    "name": Rule("name"),
    "host": Rule("host"),
    "port": Rule("int", 1, 65535),
    "workers": Rule("int", 1, 32),
    "timeout_s": Rule("int", 1, 300),
    "retries": Rule("int", 0, 10),
    "cache_mb": Rule("int", 0, 4096),
    "max_body_kb": Rule("int", 1, 10240),
    "log_level": Rule("enum", options=("debug", "info", "warn", "error")),
    "mode": Rule("enum", options=("development", "staging", "production")),
    "compression": Rule("enum", options=("none", "gzip", "zstd")),
    "tls": Rule("bool"),
    "metrics": Rule("bool"),
}


def first_problem(text: str) -> str | None:
    """The first problem in a config file's text, worded for a reader who must fix it; None if valid."""
    seen: dict[str, int] = {}
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = KEY_LINE.match(line)
        if match is None:
            return f"line {no}: expected 'key = value', got '{line}'"
        key, value = match.group(1), match.group(2).strip()
        if key not in SCHEMA:
            return f"line {no}: unknown key '{key}' (value '{value}'); known keys: {', '.join(SCHEMA)}"
        if key in seen:
            return f"line {no}: duplicate key '{key}' (already set on line {seen[key]})"
        seen[key] = no
        rule = SCHEMA[key]
        if not rule.accepts(value):
            return f"line {no}: {key} must be {rule.describe()}, got '{value}'"
    missing = [key for key in SCHEMA if key not in seen]
    if missing:
        return f"missing required key '{missing[0]}' (add a line '{missing[0]} = ...')"
    return None


def validation_report(path: str, text: str) -> str:
    problem = first_problem(text)
    return f"OK: {path} is valid." if problem is None else f"FAIL: {problem}\n{HINT}"


class Sandbox:
    """Paths relative to one directory, refused when they would leave it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.prefix = os.path.join(str(self.root), "")

    def resolve(self, path: str) -> Path:
        if not path.strip() or "\x00" in path:
            raise ValueError("path must be a non-empty file name relative to the working directory, e.g. 'app.conf'")
        candidate = Path(path)
        if candidate.is_absolute() or candidate.drive:
            raise PermissionError(f"absolute path {path!r} refused: give a path relative to the working directory")
        if ".." in candidate.parts:
            raise PermissionError(f"path {path!r} refused: '..' may not leave the working directory")
        full = os.path.realpath(os.path.join(self.root, path))  # follows symlinks: a link pointing out is caught
        if not full.startswith(self.prefix):
            raise PermissionError(f"path {path!r} refused: it resolves outside the working directory")
        return Path(full)

    def existing(self, path: str) -> Path:
        full = self.resolve(path)
        if not full.is_file():
            names = ", ".join(sorted(p.name for p in self.root.iterdir() if p.is_file())) or "none"
            raise FileNotFoundError(f"no file {path!r} in the working directory (files: {names})")
        return full


def _overwrite(full: Path, text: str) -> None:
    """Write in place and cut the rest: opening with O_TRUNC makes ext4 flush (auto_da_alloc), ~100x slower."""
    if not full.exists():
        full.write_text(text, encoding="utf-8")
        return
    with full.open("r+", encoding="utf-8") as handle:
        handle.write(text)
        handle.truncate()


def _replace(full: Path, path: str, line_no: int, text: str) -> str:
    if "\n" in text or "\r" in text:
        raise ValueError("text must be a single line (no newline); call replace_line once per line")
    lines = full.read_text(encoding="utf-8").splitlines()
    if not 1 <= line_no <= len(lines) + 1:
        raise ValueError(f"{path} has {len(lines)} lines: line_no must be 1-{len(lines) + 1} "
                         f"({len(lines) + 1} appends a line)")
    if line_no == len(lines) + 1:
        lines.append(text)
    else:
        lines[line_no - 1] = text
    _overwrite(full, "\n".join(lines) + "\n")
    return f"line {line_no} of {path} is now: {text}"


def make_tools(box: Sandbox) -> ToolSet:
    """read_file, write_file, replace_line and validate, as closures over one trial's sandbox."""

    @tool(timeout_s=None)
    def read_file(path: str) -> str:
        """Read a text file in the working directory.
        Lines come numbered like '4| port = 80'; the numbers are not part of the file.

        Args:
            path: file path relative to the working directory, e.g. 'app.conf'
        """
        lines = box.existing(path).read_text(encoding="utf-8").splitlines()
        return "\n".join(f"{i}| {line}" for i, line in enumerate(lines, 1)) or "(empty file)"

    @tool(timeout_s=None)
    def write_file(path: str, content: str) -> str:
        """Replace a file's whole content (creating it if needed) with the text given, without line numbers.

        Args:
            path: file path relative to the working directory, e.g. 'app.conf'
            content: the complete new text of the file
        """
        if len(content) > MAX_FILE_CHARS:
            raise ValueError(f"content is {len(content)} characters; the limit is {MAX_FILE_CHARS}")
        full = box.resolve(path)
        _overwrite(full, content if content.endswith("\n") or not content else content + "\n")
        return f"wrote {len(content.splitlines())} lines to {path}"

    @tool(timeout_s=None)
    def replace_line(path: str, line_no: int, text: str) -> str:
        """Replace one line of a file with new text.
        An empty text leaves a blank line; line_no one past the last line appends a line.

        Args:
            path: file path relative to the working directory, e.g. 'app.conf'
            line_no: 1-based number of the line to replace (as read_file and validate number them)
            text: the new content of that line, a single line without line number or newline
        """
        return _replace(box.existing(path), path, line_no, text)

    @tool(timeout_s=None)
    def validate(path: str) -> str:
        """Check a configuration file against the service's schema.
        Answers 'OK' or the FIRST problem only ('FAIL: line 4: ...'); after fixing it, validate again to see
        the next one.

        Args:
            path: file path relative to the working directory, e.g. 'app.conf'
        """
        return validation_report(path, box.existing(path).read_text(encoding="utf-8"))

    return ToolSet([read_file, write_file, replace_line, validate])
