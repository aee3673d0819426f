"""`support`'s declared `route`, drawn in advance with everything the agent is given.

The family is "known once classified": a ticket's questions each need their category's lookup. A careful
engineer who reads the family's range (a ticket asks 1-4 questions, each of another category) classifies
each question, not the ticket, and routes each one to its category's lookup. Then, with the agent's
own instructions and bounds, the graph is (one attempt, repeated by a bounded loop):

    classify each question (LLM: category + arguments; told to retry failed lookups and to act on a FAIL note)
      -> for each line, in code: route by category -> that category's lookup tool
      -> all found? (code): a failed lookup with a retry left goes straight to the next attempt
      -> reply (LLM: the last lookup of each question, then the same check the agent makes of its reply;
         a doubt ends the reply with a FAIL note naming the question)
    until the reply has no FAIL note, at most 1 + 2 x (the family's most questions) attempts,
    then send the reply (code: the note lines dropped).

The attempts share a transcript the design keeps in its text (`history.transcript`): every lookup so
far, as `n category: tool {arguments} -> result`, and the latest reply. The bound: every attempt but the
last looks something up again, and each question is looked up at most 1 + `MAX_RETRIES` times (the
agent's own bound), so 1 + MAX_RETRIES x questions attempts cover everything the agent can do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from benchmarks.tasks.support import prompts as st
from benchmarks.tasks.support.history import History, from_transcript, pending, transcript, transcript_line
from patterns.run import Failure, Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, Code, Loop, Route, ToolStep
from patterns.workflows.graph import node

_PLAN_LINE = re.compile(r"^(\d+) (\w+): \w+ (\{[^{}]*\})\s*$", re.M)
PLAN = "Plan:"


@dataclass(frozen=True)
class Beside:
    """`step`'s output written under `heading` after the step's input: the attempt keeps its transcript."""

    name: str
    step: LLM
    heading: str
    kind: str = "llm"

    async def __call__(self, run: Run, text: str) -> str:
        return f"{text}\n\n{self.heading}\n{(await self.step(run, text)).strip()}"

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.step.add_to(graph, prefix)


@dataclass(frozen=True)
class EachLookup:
    """The plan's lines, each routed in code to its category's lookup (concurrently); the output is the
    transcript so far plus the new lookups (the previous reply is dropped: the next one replaces it)."""

    name: str
    route: Route
    kind: str = "code"

    async def __call__(self, run: Run, text: str) -> str:
        before, _, plan = text.rpartition(f"\n\n{PLAN}\n")
        lines = [m.group(0) for m in _PLAN_LINE.finditer(plan)]
        found = await run.gather([self._one(run, line) for line in lines])
        return "\n".join([st.LOOKUPS, *transcript(before), *found])

    async def _one(self, run: Run, line: str) -> str:
        try:
            return await self.route(run, line)
        except Failure as exc:  # a category that is not a route: the transcript says so, and it is retried
            number = line.split(" ", 1)[0]
            return f"{number} unknown: none {{}} -> Error: {exc.message}"

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        split = node(graph, prefix + self.name, "code", "each question's line")
        entries, exits = self.route.add_to(graph, prefix + "each:")
        for n in graph.nodes:
            if n.startswith(prefix + "each:") and graph.nodes[n].get("kind") == "tool":
                graph.nodes[n].update(dynamic=True, label=f"{graph.nodes[n]['label']} ×N")
        graph.add_edges_from((split, e) for e in entries)
        return [split], exits


def _line(line: str) -> tuple[int, str, dict[str, str]]:
    m = _PLAN_LINE.match(line.strip())
    if m is None:
        return 0, "unknown", {}
    try:
        args = json.loads(m.group(3))
    except json.JSONDecodeError:
        args = {}
    return int(m.group(1)), m.group(2).lower(), args if isinstance(args, dict) else {}


def _looked_up(category: str) -> Callable[[str, str, bool], str]:
    def keep(line: str, result: str, failed: bool) -> str:
        number, _, args = _line(line)
        shown = result if not failed or result.startswith("Error") else f"Error: {result}"
        return transcript_line(number, st.TOOL_OF[category], args, shown.replace("\n", " "))
    return keep


def _history(state: str) -> History:
    numbers = [int(line.split(" ", 1)[0]) for line in transcript(state)]
    return from_transcript(state, max(numbers, default=0))


def next_move(state: str) -> str:
    """`retry` while a failed lookup has a retry left (no reply is written then), else `answer`."""
    return "retry" if pending(_history(state), st.MAX_RETRIES) else "answer"


def answered(state: str) -> bool:
    """The attempt wrote a reply and its check left no FAIL note."""
    _, found, reply = state.rpartition(f"\n\n{st.REPLY_SO_FAR}\n")
    return bool(found) and not any(line.strip().startswith(st.FAIL) for line in reply.splitlines())


def reply_of(state: str) -> str:
    _, found, reply = state.rpartition(f"\n\n{st.REPLY_SO_FAR}\n")
    lines = [line for line in reply.splitlines() if not line.strip().startswith(st.FAIL)]
    return "\n".join(lines) if found else f"Sorry, I {st.SORRY} the answers to your questions."


def _plan_prompt(text: str, task: str) -> str:
    head = (f"{st.MARK} {st.CLASSIFY_EACH}: for each separate question write one line `<question number> "
            "<category>: <tool> <json arguments>`, numbering the questions in the order the ticket asks them, "
            "naming the category (billing, shipping, account or technical), its tool (get_invoice, track_order, "
            "get_account or search_kb) and the arguments from the ticket. When lookups were made already, write "
            f"lines only for the questions still to look up. {st.RETRY} If a FAIL note names a question, look that "
            "question up again, with another call than before. Write nothing else.")
    return f"{head}\n\n{task}" + ("" if text == task else f"\n\n{text}")


def design(tools: ToolSet, max_questions: int) -> Chain:
    """The declared route (module docstring), for tickets of up to `max_questions` questions."""
    lookups = Route(Code("its category", lambda line: _line(line)[1]),
                    {c: ToolStep(f"lookup_{c}", tools, st.TOOL_OF[c], lambda line: _line(line)[2],
                                 keep=_looked_up(c)) for c in st.CATEGORIES}, name="by category")
    reply = LLM("reply", f"{st.MARK} {st.WRITE}, one line per question, quoting the facts exactly. {st.CHECK} "
                f"If it does not, end the reply with a line `{st.FAIL} <the question not answered>`."
                "\n\n{task}\n\n{input}", st.SYSTEM)
    attempt = Chain([
        Beside("classify", LLM("classify", _plan_prompt, st.SYSTEM), PLAN),
        EachLookup("each question's line", lookups),
        Route(Code("a retry due?", next_move), {"answer": Beside("reply", reply, st.REPLY_SO_FAR),
                                              "retry": Code("skip the reply", lambda state: state)}, name="found"),
    ], name="attempt")
    rounds = 1 + st.MAX_RETRIES * max_questions
    return Chain([Loop(attempt, until=answered, max_rounds=rounds, name="answered"), Code("send", reply_of)],
                 name="route", pattern="route")
