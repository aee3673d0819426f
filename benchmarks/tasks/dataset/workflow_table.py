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

Steps run in the order written; the last step's output is the answer. A *model step* has a `prompt`
(a template over `{task}` — the row's input —, `{input}` — the previous step's output — and
`{<name>}` of any earlier step), an optional `system` (default: the task's system prompt) and
optional `tools` (a list of the task's tool names: one round of calls, as any workflow step). A *tool
step* has a `tool` and `args`: every parameter of the tool, each a template; an argument the tool
types as a number takes the first number in its text, any other the text itself (the last non-empty
line, a leading `Answer:` label and surrounding quotes or punctuation set aside, so a model step that
replies "Answer: C-1234." passes `C-1234`). A failed tool step ends the run (a `ToolError`): what the
author drew has no recovery unless they draw one. Every problem is one ValueError line naming the file
and the step, checked when the file is loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from benchmarks.tasks.dataset.text import final_answer
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, ToolStep
from patterns.workflows.graph import node

_REF = re.compile(r"\{([A-Za-z_]\w*)\}")
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")
_STEP_KEYS = {"name", "prompt", "system", "tools", "tool", "args"}
OUTPUTS = "workflow_outputs"  # run.extra key: each step's output by name


@dataclass(frozen=True)
class StepSpec:
    name: str
    prompt: str = ""
    system: str | None = None
    tools: tuple[str, ...] = ()
    tool: str = ""
    args: tuple[tuple[str, str], ...] = ()


def parse_workflow(path: Path, data: Any) -> tuple[StepSpec, ...]:
    """The checked steps of a `[workflow]` table (names, keys, references); tools are checked by `check_tools`."""
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, list) or not steps:
        raise ValueError(f"{path}: [workflow] needs a list of steps ([[workflow.steps]] tables)")
    unknown = [k for k in data if k != "steps"]
    if unknown:
        raise ValueError(f"{path}: [workflow] has an unknown key {unknown[0]!r}: only 'steps'")
    out: list[StepSpec] = []
    for i, raw in enumerate(steps, 1):
        out.append(_step(path, i, raw, [s.name for s in out]))
    return tuple(out)


def _step(path: Path, i: int, raw: Any, before: list[str]) -> StepSpec:
    where = f"{path}: workflow step {i}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a table")
    bad = sorted(set(raw) - _STEP_KEYS)
    if bad:
        raise ValueError(f"{where}: unknown key {bad[0]!r}: valid keys are {', '.join(sorted(_STEP_KEYS))}")
    name = raw.get("name", "")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*", name) or name in ("task", "input"):
        raise ValueError(f"{where}: 'name' must be an identifier other than task and input, got {name!r}")
    if name in before:
        raise ValueError(f"{where}: the name {name!r} is used twice")
    if ("prompt" in raw) == ("tool" in raw):
        raise ValueError(f"{where} ({name}) needs exactly one of 'prompt' (a model step) or 'tool' (a tool step)")
    texts = [raw.get("prompt", "")] if "prompt" in raw else list((raw.get("args") or {}).values())
    for text in texts:
        if not isinstance(text, str):
            raise ValueError(f"{where} ({name}): prompts and arguments are strings (templates), got {text!r}")
        for ref in _REF.findall(text):
            if ref not in ("task", "input", *before):
                raise ValueError(f"{where} ({name}): {{{ref}}} is neither task, input nor an earlier step")
    if "tool" in raw:
        args = raw.get("args", {})
        if not isinstance(args, dict):
            raise ValueError(f"{where} ({name}): 'args' must be a table of parameter = \"template\"")
        return StepSpec(name, tool=str(raw["tool"]), args=tuple(args.items()))
    tools = raw.get("tools", [])
    system = raw.get("system")
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ValueError(f"{where} ({name}): 'tools' must be a list of tool names")
    if system is not None and not isinstance(system, str):
        raise ValueError(f"{where} ({name}): 'system' must be a string")
    return StepSpec(name, prompt=raw["prompt"], system=system, tools=tuple(tools))


def check_tools(path: Path, steps: tuple[StepSpec, ...], tools: ToolSet | None) -> None:
    """Every tool a step names exists, and a tool step gives exactly the tool's parameters."""
    offered = tools.tools if tools else {}
    for i, step in enumerate(steps, 1):
        where = f"{path}: workflow step {i} ({step.name})"
        for name in (step.tool, *step.tools):
            if name and name not in offered:
                raise ValueError(f"{where}: no tool {name!r} in the task's tools ({', '.join(offered) or 'none'})")
        if step.tool:
            params = offered[step.tool].param["input_schema"].get("properties", {})
            given = {k for k, _ in step.args}
            if given != set(params):
                missing, extra = sorted(set(params) - given), sorted(given - set(params))
                what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
                raise ValueError(f"{where}: the arguments of {step.tool} are {', '.join(params) or 'none'} ({what})")


def _fill(template: str, run: Run, text: str) -> str:
    values = {"task": run.task, "input": text, **run.extra.get(OUTPUTS, {})}
    return _REF.sub(lambda m: str(values.get(m.group(1), m.group(0))), template)


def _value(text: str, schema: dict[str, Any]) -> Any:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    plain = final_answer(lines[-1] if lines else "").strip().strip("\"'`*").rstrip(".,;:!").strip()
    if schema.get("type") in ("integer", "number"):
        found = _NUMBER.search(plain.replace(",", ""))
        if found is None:
            return plain
        number = float(found.group())
        return int(number) if schema["type"] == "integer" else number
    return plain


@dataclass(frozen=True)
class Named:
    """A step whose output is kept under its name, so later steps can quote it."""

    name: str
    inner: Any

    async def __call__(self, run: Run, text: str) -> str:
        out = await self.inner(run, text)
        run.extra.setdefault(OUTPUTS, {})[self.name] = out
        return out

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.inner.add_to(graph, prefix)


@dataclass(frozen=True)
class TemplateTool(ToolStep):
    """A tool step whose arguments are templates filled from the task and earlier steps' outputs."""

    templates: tuple[tuple[str, str], ...] = ()

    async def __call__(self, run: Run, text: str) -> str:
        schema = self.tools.tools[self.tool].param["input_schema"].get("properties", {})
        args = {k: _value(_fill(t, run, text), schema.get(k, {})) for k, t in self.templates}
        filled = ToolStep(self.name, self.tools, self.tool, lambda _: args)
        return await filled(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        n = node(graph, prefix + self.name, "tool", self.tool, tools=(self.tool,))
        return [n], [n]


def drawn_chain(steps: tuple[StepSpec, ...], system: str, tools: ToolSet | None) -> Chain:
    """The `[workflow]` as a `Chain` of model and tool steps (its graph is what the author drew)."""
    built: list[Any] = []
    for s in steps:
        if s.tool:
            assert tools is not None
            inner: Any = TemplateTool(s.name, tools, s.tool, lambda _: {}, templates=s.args)
        else:
            offered = ToolSet([tools.tools[t] for t in s.tools]) if s.tools and tools else None
            inner = _Rendered(s.name, LLM(s.name, "{input}", system if s.system is None else s.system, offered),
                              s.prompt)
        built.append(Named(s.name, inner))
    return Chain(built, name="workflow", pattern="chain")


@dataclass(frozen=True)
class _Rendered:
    """A model step whose prompt template is filled from the run (task, previous output, earlier steps)."""

    name: str
    llm: LLM
    template: str

    async def __call__(self, run: Run, text: str) -> str:
        prompt = _fill(self.template, run, text)
        return await LLM(self.llm.name, lambda *_: prompt, self.llm.system, self.llm.tools)(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.llm.add_to(graph, prefix)
