"""Reading a task file (TOML, with the standard library's `tomllib`) into a checked `TaskFile`.

```toml
name = "tickets"                # the task's label in every table (default: the file's stem)
description = "..."             # optional, one line for `wva tasks`-style listings
dataset = "tickets.jsonl"       # .jsonl or .csv: id, input, target (+ optional fields such as category)
system = "You are ..."          # optional system prompt for every design
tools = "tools.py"              # optional: the module whose functions are the tools
scorer = "includes"             # exact|includes|number[:tol]|regex:<p>|choice|model:<rubric>|file.py:function
design = "designs.py"           # optional: a module with design(pattern, env) overriding some patterns
votes = 3                       # parallel: samples in the vote
allow_outside_paths = false     # true: the paths above may lead out of the task file's folder
rounds = 3                      # evaluate_optimize: the round limit
[routes]                        # optional: category -> the handler's instructions (enables `route`)
billing = "You handle billing questions..."
[[workflow.steps]]              # optional: the graph drawn in advance, the task's comparator (workflow_table.py)
name = "customer"
prompt = "Reply with the customer ID only: {task}"
```
Instead of one `[workflow]`, a file may draw several, each a named table `[workflow.<name>]` with its own
`[[workflow.<name>.steps]]` (a name in lower case: letters, digits, single underscores). Each runs as the
design `chain:<name>` (`wva bench --patterns agent,chain:current,chain:ladder`); the first is the declared one.
Paths are relative to the task file. Every problem is one `ValueError` line naming the file;
nothing is read beyond the TOML here (the dataset, tools and design modules load in `task.py`).

A task file is code: its tools, design and scorer modules are imported, which runs them. So what it
reads and runs is confined to its own folder (symbolic links followed): review the folder and you have
reviewed everything. A dataset or module path that leads out of it (`../`, an absolute path, a link) is
refused unless the file says so in plain sight, `allow_outside_paths = true`. A scorer named as an
installed module (`package.module:function`) is not a path: it is code already installed.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.tasks.dataset.workflow_table import StepSpec, parse_workflow

KEYS = ("name", "description", "dataset", "system", "tools", "scorer", "design", "votes", "rounds", "routes",
        "workflow", "allow_outside_paths")
DEFAULT_SCORER = "includes"  # the issue is silent; the most forgiving scorer that still checks the target
MAX_VOTES = 15
MAX_ROUNDS = 10


@dataclass(frozen=True)
class TaskFile:
    path: Path
    name: str
    dataset: Path
    description: str = ""
    system: str = ""
    tools: Path | None = None
    scorer: str = DEFAULT_SCORER
    design: Path | None = None
    votes: int = 3
    rounds: int = 3
    routes: dict[str, str] = field(default_factory=dict)
    workflow: tuple[StepSpec, ...] = ()  # the [workflow] table's steps, in order (none: not drawn)
    workflows: tuple[tuple[str, tuple[StepSpec, ...]], ...] = ()  # [workflow.<name>] tables, in file order


def _string(path: Path, data: dict[str, Any], key: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{path}: {key!r} must be a string, got {type(value).__name__}")
    return value


def _count(path: Path, data: dict[str, Any], key: str, high: int) -> int:
    value = data.get(key, 3)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise ValueError(f"{path}: {key!r} must be an integer from 1 to {high}, got {value!r}")
    return value


def _outside(path: Path, data: dict[str, Any]) -> bool:
    value = data.get("allow_outside_paths", False)
    if not isinstance(value, bool):
        raise ValueError(f"{path}: 'allow_outside_paths' must be true or false, got {value!r}")
    return value


def _confined(path: Path, data: dict[str, Any], key: str, text: str) -> Path:
    """`text` resolved against the task file's folder; a path out of it is refused unless the file allows it."""
    folder = path.parent.resolve()
    target = (folder / text).resolve()
    if not target.is_relative_to(folder) and not _outside(path, data):
        raise ValueError(f"{path}: {key} {text!r} is outside the task file's folder ({folder}): a task file reads "
                         "and runs only what is in its folder; move it in, or add allow_outside_paths = true")
    return target


def _file(path: Path, data: dict[str, Any], key: str, suffixes: tuple[str, ...]) -> Path | None:
    text = _string(path, data, key)
    if not text:
        return None
    target = _confined(path, data, key, text)
    if target.suffix.lower() not in suffixes:
        raise ValueError(f"{path}: {key} {text!r} must be a {' or '.join(suffixes)} file")
    if not target.is_file():
        raise ValueError(f"{path}: {key} file {text!r} does not exist (looked for {target})")
    return target


def _routes(path: Path, data: dict[str, Any]) -> dict[str, str]:
    routes = data.get("routes", {})
    if not isinstance(routes, dict):
        raise ValueError(f"{path}: 'routes' must be a table ([routes] with category = \"instructions\")")
    for label, text in routes.items():
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path}: route {label!r} needs the handler's instructions as a non-empty string")
        if not label.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"{path}: route label {label!r} must be one word (letters, digits, - or _)")
    if len(routes) == 1:
        raise ValueError(f"{path}: [routes] needs at least two categories to route between")
    return {label.lower(): text for label, text in routes.items()}


def read_task_file(file: str | Path) -> TaskFile:
    """The checked contents of a task file; one-line ValueErrors."""
    path = Path(file)
    if not path.is_file():
        raise ValueError(f"task file {str(path)!r} does not exist")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML: {' '.join(str(exc).split())}") from None
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise ValueError(f"{path}: unknown key {unknown[0]!r}: valid keys are {', '.join(KEYS)}")
    _outside(path, data)  # checked even when every path is inside
    if "dataset" not in data:
        raise ValueError(f"{path}: 'dataset' is required (a .jsonl or .csv file of id, input, target)")
    dataset = _file(path, data, "dataset", (".jsonl", ".csv"))
    assert dataset is not None
    scorer = _string(path, data, "scorer", DEFAULT_SCORER).strip() or DEFAULT_SCORER
    module = scorer.rpartition(":")[0]
    if module.endswith(".py") and not scorer.lower().startswith(("regex:", "model:")):  # file.py:function
        _confined(path, data, "scorer", module)
    name = _string(path, data, "name", path.stem).strip()
    if not name or any(c in name for c in ",;:=") or any(c.isspace() for c in name):
        raise ValueError(f"{path}: name {name!r} must be one word without , ; : or =")
    drawn = _workflows(path, data)
    return TaskFile(
        path=path.resolve(), name=name, dataset=dataset, description=_string(path, data, "description"),
        system=_string(path, data, "system"), tools=_file(path, data, "tools", (".py",)),
        scorer=scorer,
        design=_file(path, data, "design", (".py",)), votes=_count(path, data, "votes", MAX_VOTES),
        rounds=_count(path, data, "rounds", MAX_ROUNDS), routes=_routes(path, data),
        workflow=drawn[0], workflows=drawn[1])


_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


Named = tuple[tuple[str, tuple[StepSpec, ...]], ...]


def _workflows(path: Path, data: dict[str, Any]) -> tuple[tuple[StepSpec, ...], Named]:
    """(the one `[workflow]`'s steps, ()) or ((), each `[workflow.<name>]` table's (name, steps)) or ((), ())."""
    table = data.get("workflow")
    if table is None:
        return (), ()
    named = isinstance(table, dict) and table and "steps" not in table and all(isinstance(v, dict)
                                                                                for v in table.values())
    if not named:
        return parse_workflow(path, table), ()
    for name in table:
        if not _NAME.fullmatch(name):
            raise ValueError(f"{path}: [workflow.{name}]: a workflow's name is lower case letters, digits and single "
                             "underscores (it runs as chain:<name>)")
    return (), tuple((name, parse_workflow(path, steps)) for name, steps in table.items())
