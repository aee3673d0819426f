"""A task file's `[workflow]` as runnable steps over the shared primitives (`Chain`, `LLM`, `ToolStep`,
`Dispatch`, `Loop`): what `workflow_table` parsed and checked, built. The rules are in its docstring."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import networkx as nx

from benchmarks.tasks.dataset.text import final_answer
from benchmarks.tasks.dataset.workflow_table import REF, StepSpec
from patterns.fields import fields
from patterns.run import Failure, Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, Dispatch, Loop, ToolStep

OUTPUTS = "workflow_outputs"  # run.extra key: each step's output by name
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")


def fill(template: str, run: Run, text: str, where: str) -> str:
    """The template with {task}, {input}, {<step>} and {<step>.<field>} filled; a quoted field that the output
    does not have is the design's typed failure (`MissingField`), never a literal placeholder passed on."""
    values = {"task": run.task, "input": text, **run.extra.get(OUTPUTS, {})}

    def one(m: Any) -> str:
        name, path = m.group(1), m.group(2).lstrip(".")
        if name not in values:
            return str(m.group(0))
        if not path:
            return str(values[name])
        found = fields(str(values[name])).get(path)
        if found is None:
            raise Failure("MissingField", f"{where}: {{{name}.{path}}}: the output of {name} has no field {path!r}",
                          where)
        return found

    return REF.sub(one, template)


def value(text: str, schema: dict[str, Any]) -> Any:
    """A tool argument from its filled text: a number for a numeric parameter, else the plain answer."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    plain = final_answer(lines[-1] if lines else "").strip().strip("\"'`*").rstrip(".,;:!").strip()
    if schema.get("type") in ("integer", "number"):
        found = _NUMBER.search(plain.replace(",", ""))
        if found is None:
            return plain
        number = float(found.group())
        return int(number) if schema["type"] == "integer" else number
    return plain


def passed_on(text: str, result: str, failed: bool) -> str:
    """What a tool step hands the next one: the result, or `ERROR: <message>` (code reads its `status`)."""
    return f"ERROR: {result}" if failed else result


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


def _arguments(tools: ToolSet, tool: str, templates: tuple[tuple[str, str], ...], run: Run, text: str,
               where: str) -> dict[str, Any]:
    schema = tools.tools[tool].param["input_schema"].get("properties", {})
    return {k: value(fill(t, run, text, where), schema[k]) for k, t in templates if k in schema}


@dataclass(frozen=True)
class TemplateTool(ToolStep):
    """A tool step whose arguments are templates filled from the task and earlier steps' outputs."""

    templates: tuple[tuple[str, str], ...] = ()

    async def __call__(self, run: Run, text: str) -> str:
        args = _arguments(self.tools, self.tool, self.templates, run, text, self.name)
        return await ToolStep(self.name, self.tools, self.tool, lambda _: args, keep=passed_on)(run, text)


@dataclass(frozen=True)
class TemplateDispatch:
    """A code dispatch: the tool named by the filled `dispatch` template, called with its arguments."""

    name: str
    tools: ToolSet
    template: str
    templates: tuple[tuple[str, str], ...] = ()
    written_by: tuple[str, ...] = ()  # the model steps whose words the template quotes (`model_writers`)

    def _step(self, tool: str, args: dict[str, Any]) -> Dispatch:
        return Dispatch(self.name, self.tools, lambda _: (tool, args), keep=passed_on, field=self.template)

    async def __call__(self, run: Run, text: str) -> str:
        tool = value(fill(self.template, run, text, self.name), {})
        args = _arguments(self.tools, tool, self.templates, run, text, self.name) if tool in self.tools.tools else {}
        return await self._step(tool, args)(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        entries, exits = self._step("", {}).add_to(graph, prefix)
        for x in exits:  # who names the tool, traced through the templates (`patterns.workflows.choices`)
            graph.nodes[x].update(named_by="model" if self.written_by else "code",
                                  written_by=tuple(prefix + w for w in self.written_by))
        return entries, exits


@dataclass(frozen=True)
class Rendered:
    """A model step whose prompt template is filled from the run (task, previous output, earlier steps)."""

    name: str
    llm: LLM
    template: str

    async def __call__(self, run: Run, text: str) -> str:
        prompt = fill(self.template, run, text, self.name)
        return await LLM(self.llm.name, lambda *_: prompt, self.llm.system, self.llm.tools)(run, text)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.llm.add_to(graph, prefix)


def _until(field: str, equals: str | None) -> Any:
    def done(text: str) -> bool:
        found = fields(text).get(field)
        return found is None if equals is None else found == equals
    return done


def model_writers(steps: tuple[StepSpec, ...], before: frozenset[str] = frozenset(),
                  known: dict[str, frozenset[str]] | None = None) -> dict[str, frozenset[str]]:
    """Per step, the model steps whose words its output may carry (a model step: itself; a tool step or a dispatch:
    none, a tool computed it; a loop: its last step's), and per dispatch (`<name>.dispatch`) the model steps whose
    words its template quotes: `{task}` is the input's, `{input}` the previous step's (a loop body's first step
    also gets the body's last output), `{<step>}` and `{<step>.<field>}` that step's."""
    out = dict(known or {})
    previous = before
    for s in steps:
        if s.body:
            last = model_writers(s.body[-1:])[s.body[-1].name]
            inner = model_writers(s.body, previous | last, out)
            out.update(inner)
            out[s.name] = inner[s.body[-1].name]
        else:
            if s.dispatch:
                refs = [m.group(1) for m in REF.finditer(s.dispatch)]
                out[s.name + ".dispatch"] = frozenset().union(*(previous if r == "input" else out.get(r, frozenset())
                                                                for r in refs))
            out[s.name] = frozenset({s.name}) if s.kind == "model" else frozenset()
        previous = out[s.name]
    return out


def _built(s: StepSpec, system: str, tools: ToolSet | None, writers: dict[str, frozenset[str]]) -> Any:
    if s.body:
        body = Chain([_built(b, system, tools, writers) for b in s.body], name=s.name + ".body")
        return Named(s.name, Loop(body, _until(*s.until), s.max_rounds, name=s.name))
    if s.tool:
        assert tools is not None
        return Named(s.name, TemplateTool(s.name, tools, s.tool, lambda _: {}, templates=s.args))
    if s.dispatch:
        assert tools is not None
        own = ToolSet([tools.tools[t] for t in s.tools]) if s.tools else tools
        return Named(s.name, TemplateDispatch(s.name, own, s.dispatch, s.args,
                                              tuple(sorted(writers.get(s.name + ".dispatch", ())))))
    offered = ToolSet([tools.tools[t] for t in s.tools]) if s.tools and tools else None
    return Named(s.name, Rendered(s.name, LLM(s.name, "{input}", system if s.system is None else s.system, offered),
                                  s.prompt))


def drawn_chain(steps: tuple[StepSpec, ...], system: str, tools: ToolSet | None) -> Chain:
    """The `[workflow]` as a `Chain` of its steps (its graph is what the author drew). A loop in which the model
    picks among more than K next steps (offered, or named for a dispatch) raises `patterns.workflows.AgentLike`."""
    writers = model_writers(steps)
    return Chain([_built(s, system, tools, writers) for s in steps], name="workflow", pattern="chain")
