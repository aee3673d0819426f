"""A task file's `[workflow]`: the graph its author draws in advance, run as the task's comparator.

```toml
[[workflow.steps]]
name = "customer"                      # later steps quote this step's output as {customer}
prompt = "Reply with the customer ID in this question, nothing else.\n\nQuestion: {task}"
[[workflow.steps]]
name = "invoice"
tool = "get_invoice"                   # one of the task's tools, called in code (no model call)
args = { customer_id = "{customer}" }  # each argument a template over {task} and earlier steps
[[workflow.steps]]
name = "answer"
prompt = "Answer the question from the invoice. End with `Answer: ...`.\n\nQuestion: {task}\n\nInvoice: {invoice}"
```

Steps run in the order written; the last step's output is the answer. Each step is one of four kinds:
- a *model step* has a `prompt`, an optional `system` (default: the task's system prompt) and optional
  `tools` (a list of the task's tool names: one round of calls, as any workflow step);
- a *tool step* has a `tool` and `args`: every parameter of the tool, each a template;
- a *dispatch* has `dispatch`, a template that fills to the name of the tool to call (code reads it, as a
  `patterns.workflows.Dispatch`), optional `tools` (the tools it may call; default all) and `args`, which
  must give every parameter of those tools (each call passes the ones its tool takes);
- a *loop* has `max_rounds`, `until` and its own `[[workflow.steps.steps]]`: the body runs again and again,
  each round fed the last one's output, until its output's field says so or `max_rounds` is reached.
  `until = { field = "status", equals = "DONE" }` stops when the field has that value, `until = { field =
  "next", missing = true }` when it is absent. A loop holds no loop; a body in which the model picks among more
  than `patterns.workflows.K` next steps (a model step offered them, or a dispatch quoting a model step's reply:
  `workflow_steps.model_writers` traces it) is refused as agent-like (an agent in disguise).

Templates quote `{task}` (the row's input), `{input}` (the previous step's output) and `{<name>}` of any
earlier step; `{<name>.<field>}` quotes one code-readable field of that output (a JSON leaf by its path,
`{input.next.tool}`, or a leading `STATUS:` word as `status`: `patterns.fields`). An argument the tool types
as a number takes the first number in its text, any other the text itself (the last non-empty line, a
leading `Answer:` label and surrounding quotes or punctuation set aside, so a model step that replies
"Answer: C-1234." passes `C-1234`).

A failed tool call does not end the run: as in a real pipeline, the step's output is `ERROR: <the tool's
message>` and the next step receives it (its `status` field is `ERROR`, so a loop can stop on it). A quoted
field the output does not have, or a dispatch that names a tool outside its own, is a typed failure of the
design (`MissingField`, `UnknownTool`); a dispatch written out as a literal name is checked at load. Every
problem with the table itself is one ValueError line naming the file and the step, checked when the file is
loaded. The steps are built by `workflow_steps`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patterns.tools import ToolSet

REF = re.compile(r"\{([A-Za-z_]\w*)((?:\.[\w-]+)*)\}")  # {name} or {name.field.path}
_KEYS = {"model": {"prompt", "system", "tools"}, "tool": {"tool", "args"}, "dispatch": {"dispatch", "tools", "args"},
         "loop": {"steps", "max_rounds", "until"}}
_KIND_KEY = {"prompt": "model", "tool": "tool", "dispatch": "dispatch", "steps": "loop"}
MAX_ROUNDS = 100  # a loop's bound must be written down, and small enough to be a design, not a `while True`


@dataclass(frozen=True)
class StepSpec:
    name: str
    prompt: str = ""
    system: str | None = None
    tools: tuple[str, ...] = ()
    tool: str = ""
    args: tuple[tuple[str, str], ...] = ()
    dispatch: str = ""
    body: tuple[StepSpec, ...] = ()  # a loop's steps
    max_rounds: int = 0
    until: tuple[str, str | None] = ("", None)  # (field, value it must equal; None: the field is absent)

    @property
    def kind(self) -> str:
        return "loop" if self.body else "dispatch" if self.dispatch else "tool" if self.tool else "model"


def parse_workflow(path: Path, data: Any) -> tuple[StepSpec, ...]:
    """The checked steps of a `[workflow]` table (names, keys, references); tools are checked by `check_tools`."""
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, list) or not steps:
        raise ValueError(f"{path}: [workflow] needs a list of steps ([[workflow.steps]] tables)")
    unknown = [k for k in data if k != "steps"]
    if unknown:
        raise ValueError(f"{path}: [workflow] has an unknown key {unknown[0]!r}: only 'steps'")
    return _steps(path, steps, [], "workflow step ")


def _steps(path: Path, raws: list[Any], before: list[str], where: str) -> tuple[StepSpec, ...]:
    out: list[StepSpec] = []
    for i, raw in enumerate(raws, 1):
        step = _step(path, f"{where}{i}", raw, before, inside_loop=where != "workflow step ")
        out.append(step)
        before.extend([step.name, *_names(step.body)])
    return tuple(out)


def _names(steps: tuple[StepSpec, ...]) -> list[str]:
    return [n for s in steps for n in (s.name, *_names(s.body))]


def _step(path: Path, at: str, raw: Any, before: list[str], inside_loop: bool) -> StepSpec:
    where = f"{path}: {at}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a table")
    name = raw.get("name", "")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*", name) or name in ("task", "input"):
        raise ValueError(f"{where}: 'name' must be an identifier other than task and input, got {name!r}")
    if name in before:
        raise ValueError(f"{where}: the name {name!r} is used twice")
    where = f"{where} ({name})"
    kinds = [k for key, k in _KIND_KEY.items() if key in raw]
    if len(kinds) != 1:
        raise ValueError(f"{where} needs exactly one of 'prompt' (a model step), 'tool' (a tool step), "
                         "'dispatch' (a code dispatch) or 'steps' (a loop)")
    kind = kinds[0]
    bad = sorted(set(raw) - _KEYS[kind] - {"name"})
    if bad:
        valid = ", ".join(sorted(_KEYS[kind] | {"name"}))
        raise ValueError(f"{where}: unknown key {bad[0]!r}: a {kind} step's keys are {valid}")
    if kind == "loop":
        if inside_loop:
            raise ValueError(f"{where}: a loop's steps cannot hold another loop")
        return _loop(path, at, where, name, raw, before)
    return _simple(where, name, kind, raw, before)


def _simple(where: str, name: str, kind: str, raw: dict[str, Any], before: list[str]) -> StepSpec:
    args = raw.get("args", {})
    if not isinstance(args, dict):
        raise ValueError(f"{where}: 'args' must be a table of parameter = \"template\"")
    texts = {"model": [raw.get("prompt")], "tool": list(args.values()),
             "dispatch": [raw.get("dispatch"), *args.values()]}[kind]
    for text in texts:
        if not isinstance(text, str):
            raise ValueError(f"{where}: prompts, dispatches and arguments are strings (templates), got {text!r}")
        for ref, _ in REF.findall(text):
            if ref not in ("task", "input", *before):
                raise ValueError(f"{where}: {{{ref}}} is neither task, input nor an earlier step")
    tools = raw.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ValueError(f"{where}: 'tools' must be a list of tool names")
    if kind == "tool":
        return StepSpec(name, tool=str(raw["tool"]), args=tuple(args.items()))
    if kind == "dispatch":
        return StepSpec(name, dispatch=raw["dispatch"], tools=tuple(tools), args=tuple(args.items()))
    system = raw.get("system")
    if system is not None and not isinstance(system, str):
        raise ValueError(f"{where}: 'system' must be a string")
    return StepSpec(name, prompt=raw["prompt"], system=system, tools=tuple(tools))


def _loop(path: Path, at: str, where: str, name: str, raw: dict[str, Any], before: list[str]) -> StepSpec:
    rounds = raw.get("max_rounds")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"{where}: a loop needs 'max_rounds', a whole number from 1 to {MAX_ROUNDS}")
    until = raw.get("until")
    if not isinstance(until, dict) or not isinstance(until.get("field"), str) or \
            ("equals" in until) == ("missing" in until) or set(until) - {"field", "equals", "missing"} or \
            until.get("missing", True) is not True:
        raise ValueError(f"{where}: 'until' must be {{ field = \"...\", equals = \"...\" }} or "
                         "{ field = \"...\", missing = true }")
    body = raw["steps"]
    if not isinstance(body, list) or not body:
        raise ValueError(f"{where}: a loop needs a list of steps ([[workflow.steps.steps]] tables)")
    steps = _steps(path, body, [*before, name], f"{at}.")
    equals = until.get("equals")
    until_at = (until["field"], None if equals is None else str(equals))
    return StepSpec(name, body=steps, max_rounds=rounds, until=until_at)


def check_tools(path: Path, steps: tuple[StepSpec, ...], tools: ToolSet | None) -> None:
    """Every tool a step names exists, and a tool step or a dispatch gives exactly its tools' parameters."""
    offered = tools.tools if tools else {}
    for i, step in enumerate(steps, 1):
        where = f"{path}: workflow step {i} ({step.name})"
        check_tools(path, step.body, tools)
        for name in (step.tool, *step.tools):
            if name and name not in offered:
                raise ValueError(f"{where}: no tool {name!r} in the task's tools ({', '.join(offered) or 'none'})")
        callable_ = [step.tool] if step.tool else (list(step.tools) or list(offered)) if step.dispatch else []
        literal = step.dispatch.strip()
        if step.dispatch and not REF.search(step.dispatch) and literal not in callable_:
            raise ValueError(f"{where}: dispatch names {literal!r}, which is not among the tools it may call "
                             f"({', '.join(callable_) or 'none'})")
        params = {p for t in callable_ for p in offered[t].param["input_schema"].get("properties", {})}
        given = {k for k, _ in step.args}
        if callable_ and given != params:
            missing, extra = sorted(params - given), sorted(given - params)
            what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
            which = step.tool or "the tools it may call"
            raise ValueError(f"{where}: the arguments of {which} are {', '.join(sorted(params)) or 'none'} ({what})")
