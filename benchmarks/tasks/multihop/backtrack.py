"""`multihop`'s declared walk: a bounded loop drawn in advance that reads, decides, and goes back.

Each round, code acts on the follow step's last reply (`NEXT: <id>` → read it; `DEAD END` → go back;
`ANSWER` → stop), then the follow step decides at the document on top of the walk's stack:
- a read that fails (a misread id) does not end the walk: the follow step is sent back to the document
  the id came from, the error quoted in its `<tried>` list (what an agent sees as an error tool_result),
  and decides there again;
- a document the follow step finds off the question (`DEAD END`) is popped: the walk goes back to the
  last document that fitted, with the rejected reference quoted, and the follow step decides again
  there, excluding it (the agent's "go back to the last one that did").
Bounds, written down before any input: at most `depth` references followed from the start (a walk
longer than that ends UNKNOWN; one reference past the depth is still read, so that a wrong turn taken at
the last document is noticed and undone as the agent would, but the walk never goes on or answers from
there), and at most `retries` failed reads and dead ends in all (the next one ends it UNKNOWN). The
loop's own bound, `rounds(depth, retries)`, is set so that it never cuts the walk first.

The walk's state (the stack of documents read, what was tried from each, the retries spent, the last
reply) travels between steps as JSON text, as `Loop` expects; the model sees only the prompts built
from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import networkx as nx

from benchmarks.tasks.multihop.answers import DOC, multihop_next_id, multihop_step
from benchmarks.tasks.multihop.prompts import follow_prompt
from benchmarks.tasks.multihop.steps import final_answer
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, Code, Loop, Route, Step, ToolStep


def rounds(depth: int, retries: int) -> int:
    """The loop's bound, never reached before the walk's own: every round but the last makes one follow call,
    and there are at most depth + 2 on the path (the one past the depth included), two per retry (the follow
    that chose a reference and the one that rejected it; a failed read costs one) and two for the failure that
    gives up."""
    return depth + 2 * retries + 4


def load(text: str) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(text)
    return state


def dump(state: dict[str, Any]) -> str:
    return json.dumps(state)


def over(text: str) -> bool:
    return bool(load(text)["end"])


@dataclass(frozen=True)
class Walker:
    """The walk's code between model calls (see the module docstring)."""

    depth: int
    retries: int

    def begin(self, task: str) -> str:
        """The start, copied from the question in code (no model decision)."""
        start = DOC.search(task)
        reply = f"NEXT: {start.group().lower()}" if start else "UNKNOWN: the question names no document"
        return dump({"path": [], "reply": reply, "retries": 0, "end": ""})

    def act(self, text: str) -> str:
        """What the last reply asks for: `read`, `back` or `end`."""
        state = load(text)
        step = multihop_step(state["reply"])
        if step is not None and step[0] == "dead end":
            return "back"
        if step is None or step[0] != "next" or multihop_next_id(state["reply"]) is None:
            return "end"
        return "read" if len(state["path"]) <= self.depth + 1 else "end"  # depth references + one to check

    def arrive(self, text: str, result: str, failed: bool) -> str:
        state = load(text)
        wanted = multihop_next_id(state["reply"])
        if failed:
            return dump(self._retry(state, f'read_document("{wanted}") failed: {result}'))
        shown = DOC.search(result)
        state["path"].append({"id": shown.group().lower() if shown else wanted, "text": result, "tried": []})
        return dump(state)

    def back(self, text: str) -> str:
        state = load(text)
        step = multihop_step(state["reply"])
        why = step[1] if step else ""
        if len(state["path"]) <= 1:
            state["end"] = "UNKNOWN: the starting document does not fit"
            return dump(state)
        rejected = state["path"].pop()
        return dump(self._retry(state, f"{rejected['id']} did not fit: {why}"))

    def stop(self, text: str) -> str:
        state = load(text)
        beyond = len(state["path"]) > self.depth + 1  # a document past the depth is read only to be rejected
        # never quote the reply in an UNKNOWN: a value past the depth must not reach the grader
        state["end"] = (f"UNKNOWN: the walk is longer than {self.depth} references" if beyond
                        else state["reply"] or "UNKNOWN: no reply")
        return dump(state)

    def prompt(self, text: str, task: str) -> str:
        top = load(text)["path"][-1]
        return follow_prompt(top["text"], task, top["tried"])

    def answer(self, text: str) -> str:
        return final_answer(load(text)["end"])

    def _retry(self, state: dict[str, Any], line: str) -> dict[str, Any]:
        if not state["path"] or state["retries"] >= self.retries:
            state["end"] = f"UNKNOWN: gave up after {state['retries']} retries"  # no quote: no value graded
        else:
            state["retries"] += 1
            state["path"][-1]["tried"].append(line)
        return state


@dataclass(frozen=True)
class Noted:
    """`step` run on the walk's state, its reply written into the state; skipped once the walk is over."""

    name: str
    step: Step

    async def __call__(self, run: Run, text: str) -> str:
        state = load(text)
        if state["end"]:
            return text
        state["reply"] = await self.step(run, text)
        return dump(state)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.step.add_to(graph, prefix)


def declared_walk(tools: ToolSet, depth: int, retries: int) -> Chain:
    """The declared `chain`: the start read in code, then the bounded loop, then the answer."""
    walker = Walker(depth, retries)
    read = ToolStep("read", tools, "read_document", lambda t: {"doc_id": multihop_next_id(load(t)["reply"])},
                    keep=walker.arrive)

    def follow() -> Noted:
        return Noted("follow", LLM("follow", walker.prompt))

    # after a read (or its error) and after going back alike, the follow step decides on the top document
    act = Route(Code("NEXT, DEAD END or ANSWER?", walker.act),
                {"read": Chain([read, follow()], name="read"),
                 "back": Chain([Code("back to the last fitting document", walker.back), follow()], name="back"),
                 "end": Code("ANSWER, or give up", walker.stop)}, name="act")
    return Chain([Code("start id from the question", walker.begin),
                  Loop(act, until=over, max_rounds=rounds(depth, retries), name="walk"),
                  Code("answer", walker.answer)])
