"""How `SimModel` behaves on a dataset task: mechanically, with no knowledge of the task.

There is no ground truth a simulator could be right about on a user's dataset, so this policy only
walks each design's structure, making one `decide.correct()` draw per call as every policy does:
- the chain's plan, a worker's subtask split, the synthesizer and a composing step restate what
  they were given (`Answer: ...` from the last text);
- the orchestrator's planner returns a JSON array with the task as its one subtask;
- the route classifier names the category whose label or instructions share the most words with
  the task (a wrong decision names another category);
- an evaluator, and a model grader, answer PASS (a wrong decision: FAIL) without reading any
  reference answer;
- a chain step offered one tool ("use <tool> now if the task needs it") calls it when the request
  quotes something it takes (a token shaped like its example, any number for a numeric one), else
  replies that it is not needed;
- a step of a drawn `[workflow]` that asks for one value "like <example>" (or "as a plain number")
  replies with the first such token in its text;
- every other call is the generic policy's: call a tool (the one whose name and description
  share the most words with the request, not always the first), then report its result. A
  string argument whose description gives an example (`like C-1234`) or names an email takes
  the request's first token of that shape, else the generic policy's guess.
Every step is recognised by a phrase anywhere in its instructions, and every decision is keyed by
the task it is about (see `DatasetPolicy`).
So success figures on `sim` say nothing about a user's dataset; the CLI says so once per run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from benchmarks.tasks.dataset import designs as d
from benchmarks.tasks.dataset.text import GRADER
from patterns.sim import Decider, Reply, Request
from patterns.sim.generic import GenericPolicy, perturb, synthesise_arguments

_WORDS = re.compile(r"[a-z]{3,}")
_EXAMPLE = re.compile(r"\blike\s+([^\s,;)]+)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_TOKEN = re.compile(r"[\w.@+-]+")


def _shape(text: str) -> str:
    return re.sub(r"[a-z]", "a", re.sub(r"[A-Z]", "A", re.sub(r"\d+", "9", text)))


def shaped_argument(name: str, description: str, text: str) -> str | None:
    """The first token of `text` shaped like the parameter's example, or an email for an email; else None."""
    if "email" in f"{name} {description}".lower():
        found = _EMAIL.search(text)
        return found.group() if found else None
    example = _EXAMPLE.search(description)
    if not example:
        return None
    want = _shape(example.group(1).strip(".")).split("9")[0] + "9"
    return next((t.strip(".") for t in _TOKEN.findall(text) if _shape(t.strip(".")).startswith(want)), None)


def _words(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower()))


def _say(text: str) -> Reply:
    return Reply([{"type": "text", "text": text}])


class DatasetPolicy:
    """See the module docstring. Pattern-blind: a step is recognised by a phrase anywhere in the request's
    instructions (`Request.instructions()`: the system prompt and the first user turn), never by where it
    sits, so the same request framed as an agent turn or as a workflow step gets the same behaviour; every
    decision is keyed by the task it is about (the row's input as the request quotes it)."""

    def __init__(self, marker: str, routes: dict[str, str]) -> None:
        self.marker = marker
        self.routes = routes
        self.generic = GenericPolicy()

    def accepts(self, request: Request) -> bool:
        return self.marker in request.instructions()

    def task_of(self, request: Request) -> str:
        """The task the request is about: what follows `Task:` in it, else its first user turn without the
        task's own system text (a step-framed request carries it on top)."""
        first = request.first_user_text()
        if "Task:\n" in first:
            return first.split("Task:\n", 1)[-1].split("\n\n", 1)[0].strip()
        if first.startswith(self.marker):
            first = first.split("\n\n", 1)[-1]
        return first.strip()

    def respond(self, request: Request, decide: Decider) -> Reply:
        said, task = request.instructions(), self.task_of(request)
        key = f"{self.marker}|{{}}|{task}"
        if "You are a strict, fair grader" in said or f"Please {GRADER}" in said:
            ok = decide.judge(key.format("grade"))
            return _say("PASS: it meets the rubric." if ok else "FAIL: it misses the rubric.")
        if d.EVALUATE in said:
            ok = decide.judge(key.format("judge"))
            return _say("PASS" if ok else "FAIL: it does not answer every part of the task.")
        if d.CLASSIFY in said:
            return _say(self._classify(task, decide, key.format("classify")))
        if d.SUBTASKS in said:
            return _say(json.dumps([task] if decide.correct(key.format("subtasks")) else []))
        if d.USE in said and request.tools and not request.tool_uses() and not _wanted(request):
            return _say(d.NOT_NEEDED)
        if any(phrase in said for phrase in (d.PLAN, d.COMPOSE, d.SYNTH)) and not request.tools:
            last = request.last_user_text().rsplit("\n\n", 1)[-1]
            ok = decide.correct(key.format("restate"))
            return _say(f"Answer: {' '.join(last.split())[:200]}" if ok else "Answer: unknown")
        if not request.tools and (value := shaped_reply(said)) is not None:
            return _say(value if decide.correct(key.format("extract")) else perturb(value, decide.rng, said))
        return self._with_best_tool_first(request, decide, key)

    def _classify(self, task: str, decide: Decider, key: str) -> str:
        labels = list(self.routes)
        words = _words(task)
        best = max(labels, key=lambda lab: (len(words & (_words(self.routes[lab]) | {lab})), -labels.index(lab)))
        if decide.correct(key):
            return best
        return decide.rng.choice([lab for lab in labels if lab != best] or labels)

    def _with_best_tool_first(self, request: Request, decide: Decider, key: str) -> Reply:
        if not request.tools or request.tool_uses():
            return self.generic.respond(request, decide)
        text = request.first_user_text()
        words = _words(text)
        tool = max(request.tools, key=lambda t: (len(words & _words(f"{t.get('name', '')} {t.get('description', '')}")),
                                                 -request.tools.index(t)))
        schema = tool.get("input_schema") or {}
        args = synthesise_arguments(schema, text)
        for name, prop in (schema.get("properties") or {}).items():
            if prop.get("type") == "string" and (value := shaped_argument(name, prop.get("description", ""), text)):
                args[name] = value
        if not decide.correct(key.format(f"call {tool.get('name', '')}")):  # as the generic policy errs
            if not args or decide.rng.random() < 0.5:
                return _say(f"Answer: {' '.join(text.split())[:100]}")
            name = decide.rng.choice(sorted(args))
            args = {**args, name: perturb(args[name], decide.rng, text)}
        return Reply([{"type": "text", "text": f"I'll use the {tool.get('name', '')} tool."},
                      {"type": "tool_use", "name": tool.get("name", ""), "input": args}])


def _wanted(request: Request) -> bool:
    """Does the request quote something the one tool offered takes (a token shaped like its example)?"""
    tool = request.tools[0]
    text = request.first_user_text()
    props = (tool.get("input_schema") or {}).get("properties") or {}
    return any(shaped_argument(n, p.get("description", ""), text) for n, p in props.items()
               if p.get("type") == "string") or any(p.get("type") in ("number", "integer") for p in props.values())


def shaped_reply(instructions: str) -> str | None:
    """What a step that asks for one value "like <example>" (or "as a plain number") replies: the first token
    of the text after that instruction shaped like the example (or its first number); None otherwise."""
    paragraphs = instructions.split("\n\n")
    for i, head in enumerate(paragraphs):
        if "Reply with" not in head:
            continue
        rest = "\n\n".join(paragraphs[i + 1:])
        if example := _EXAMPLE.search(head):
            return shaped_argument("value", f"like {example.group(1)}", rest)
        if "plain number" in head and (found := re.search(r"-?\d+(?:\.\d+)?", rest)):
            return found.group()
    return None


def sim_policy(task: Any) -> DatasetPolicy:
    return DatasetPolicy(task.marker, dict(task.file.routes))
