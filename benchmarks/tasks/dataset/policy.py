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
- every other call is the generic policy's: call a tool (the one whose name and description
  share the most words with the request, not always the first), then report its result. A
  string argument whose description gives an example (`like C-1234`) or names an email takes
  the request's first token of that shape, else the generic policy's guess.
So success figures on `sim` say nothing about a user's dataset; the CLI says so once per run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from patterns.sim import Decider, Reply, Request
from patterns.sim.generic import GenericPolicy, perturb, synthesise_arguments

from . import designs as d
from .model_grader import GRADER

_WORDS = re.compile(r"[a-z]{3,}")
_EXAMPLE = re.compile(r"\blike\s+([^\s,;]+)")
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
    def __init__(self, marker: str, routes: dict[str, str]) -> None:
        self.marker = marker
        self.routes = routes
        self.generic = GenericPolicy()

    def accepts(self, request: Request) -> bool:
        return request.system.startswith(self.marker)

    def respond(self, request: Request, decide: Decider) -> Reply:
        first = request.first_user_text()
        task = first.split("Task:\n", 1)[-1]
        if request.system.startswith(f"{self.marker} You are a strict, fair grader") or first.startswith(
                f"Please {GRADER}"):
            return _say("PASS: it meets the rubric." if decide.correct() else "FAIL: it misses the rubric.")
        if first.startswith(d.EVALUATE):
            return _say("PASS" if decide.correct() else "FAIL: it does not answer every part of the task.")
        if first.startswith(d.CLASSIFY):
            return _say(self._classify(task, decide))
        if first.startswith(d.SUBTASKS):
            return _say(json.dumps([task.strip()] if decide.correct() else []))
        if first.startswith((d.PLAN, d.COMPOSE, d.SYNTH)) and not request.tools:
            last = request.last_user_text().rsplit("\n\n", 1)[-1]
            return _say(f"Answer: {' '.join(last.split())[:200]}" if decide.correct() else "Answer: unknown")
        return self._with_best_tool_first(request, decide)

    def _classify(self, task: str, decide: Decider) -> str:
        labels = list(self.routes)
        words = _words(task)
        best = max(labels, key=lambda lab: (len(words & (_words(self.routes[lab]) | {lab})), -labels.index(lab)))
        if decide.correct():
            return best
        return decide.rng.choice([lab for lab in labels if lab != best] or labels)

    def _with_best_tool_first(self, request: Request, decide: Decider) -> Reply:
        if not request.tools or request.tool_uses():
            return self.generic.respond(request, decide)
        text = request.first_user_text()
        words = _words(text)
        tool = max(request.tools, key=lambda t: (len(words & _words(f"{t.get('name', '')} {t.get('description', '')}")),
                                                 -request.tools.index(t)))
        schema = tool.get("input_schema") or {}
        args = synthesise_arguments(schema, text)
        for key, prop in (schema.get("properties") or {}).items():
            if prop.get("type") == "string" and (value := shaped_argument(key, prop.get("description", ""), text)):
                args[key] = value
        if not decide.correct():  # as the generic policy errs: stop early, or one wrong argument
            if not args or decide.rng.random() < 0.5:
                return _say(f"Answer: {' '.join(text.split())[:100]}")
            key = decide.rng.choice(sorted(args))
            args = {**args, key: perturb(args[key], decide.rng, text)}
        return Reply([{"type": "text", "text": f"I'll use the {tool.get('name', '')} tool."},
                      {"type": "tool_use", "name": tool.get("name", ""), "input": args}])


def sim_policy(task: Any) -> DatasetPolicy:
    return DatasetPolicy(task.marker, dict(task.file.routes))
