"""`support`'s declared `route` for tickets of several questions (`route:each`), drawn in advance with everything
the agent is given.

The family is "known once classified": a ticket's questions each need their category's lookup. A careful
engineer who reads the family's range (a ticket asks 1-4 questions, each of another category) classifies
each question, not the ticket, once, and routes each one to its category's lookup; code keeps each question's
category from then on, so the model never picks a lookup again after one has answered
(`patterns.workflows.choices`: a label given once, before a loop that code replays, is routing):

    classify each question (LLM, once: category + arguments)  ->  code: keep each question's category
    then attempts, repeated by a bounded loop:
      [later attempts] arguments (LLM: for the questions to look up again, new arguments only; told their kept
          categories, to retry failed lookups and to act on a FAIL note)
      -> for each line, in code: the question's kept category -> that category's lookup tool
      -> all found? (code): a failed lookup with a retry left goes straight to the next attempt
      -> reply (LLM: the last lookup of each question, then the same check the agent makes of its reply;
         a doubt ends the reply with a FAIL note naming the question)
    until the reply has no FAIL note, at most 1 + 2 x (the family's most questions) attempts,
    then send the reply (code: the note lines dropped).

The kept category climbs in code, as the triage ladder does for one question: a lookup whose tool refused
its argument's kind (`'ORD-1' is not a customer id`, `unknown product 'C-1'`: the tool's own words about a
wrong category, not an argument slip) moves that question to the next category in a fixed order
(`kept_category`). A wrong category whose lookup succeeds on another identifier of its kind is not climbed
from: the check's FAIL note asks for new arguments in the same category.

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
_ARGS_LINE = re.compile(r"^(\d+)\b[^{\n]*(\{[^{}\n]*\})\s*$", re.M)  # the model's words: a number and arguments
_KEPT = re.compile(r"^(\d+) (\w+)$")
# a tool refusing its argument's kind (the tools' own checks): the question's category is wrong, not its argument
_WRONG_KIND = re.compile(r"is not an? [a-z ]+;|unknown product ")
PLAN = "Plan:"
KEPT = "Kept categories:"


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


def first_categories(state: str) -> dict[int, str]:
    """The category the model gave each question once (the `Kept categories:` line code wrote)."""
    line = next((x for x in state.splitlines() if x.startswith(KEPT)), "")
    pairs = (_KEPT.match(p.strip()) for p in line.removeprefix(KEPT).split(","))
    return {int(m.group(1)): m.group(2) for m in pairs if m}


def keep_categories(state: str) -> str:
    """Code writes down each question's category from the first plan; no later model reply changes it."""
    _, _, plan = state.rpartition(f"\n\n{PLAN}\n")
    kept = ", ".join(f"{m.group(1)} {m.group(2).lower()}" for m in _PLAN_LINE.finditer(plan))
    return f"{KEPT} {kept}\n\n{state}"


def kept_category(first: str, lookups: list[tuple[str, str]]) -> str:
    """A question's category now: the first plan's, climbed in code past every category whose tool refused the
    argument's kind (`lookups`: (category, result) of the question's lookups), in the fixed order of
    `CATEGORIES` (a first label that is no category starts the climb at the first one)."""
    rungs = ([first] if first in st.CATEGORIES else []) + [c for c in st.CATEGORIES if c != first]
    refused = {c for c, result in lookups if result.startswith("Error") and _WRONG_KIND.search(result)}
    return next((c for c in rungs if c not in refused), rungs[-1])


def categories_now(state: str) -> dict[int, str]:
    """Every question's kept category (`kept_category`), read from the state's kept line and transcript (the
    lookups code wrote, above any reply: a model's reply never moves a category)."""
    state = state.split(f"\n\n{st.REPLY_SO_FAR}\n", 1)[0]
    first = first_categories(state)
    lines = [line.split(" ", 2) for line in transcript(state)]
    numbers = set(first) | {int(n) for n, _, _ in lines}
    done = {n: [(c.rstrip(":"), rest.partition(" -> ")[2]) for m, c, rest in lines if int(m) == n] for n in numbers}
    return {n: kept_category(first.get(n, ""), done[n]) for n in sorted(numbers)}


@dataclass(frozen=True)
class EachLookup:
    """The plan's lines, each routed in code by its question's kept category to that category's lookup
    (concurrently); the model's line gives only the question's number and the arguments. The output is the kept
    line and the transcript so far plus the new lookups (the previous reply is dropped: the next one replaces it)."""

    name: str
    route: Route
    kind: str = "code"

    async def __call__(self, run: Run, text: str) -> str:
        before, _, plan = text.rpartition(f"\n\n{PLAN}\n")
        kept = categories_now(before)
        cats = {n: kept.get(int(n), st.CATEGORIES[0]) for n, _ in _ARGS_LINE.findall(plan)}
        lines = [f"{n} {cats[n]}: {st.TOOL_OF[cats[n]]} {args}" for n, args in _ARGS_LINE.findall(plan)]
        found = await run.gather([self._one(run, line) for line in lines])
        head = next((x for x in before.splitlines() if x.startswith(KEPT)), KEPT)
        return "\n".join([head, st.LOOKUPS, *transcript(before), *found])

    async def _one(self, run: Run, line: str) -> str:
        try:
            return await self.route(run, line)
        except Failure as exc:  # not expected (code names a category): the transcript says so, and it is retried
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


def planned(state: str) -> str:
    """`plan` on the first attempt (the classify step's plan is still to look up), else `arguments`."""
    return "plan" if f"\n\n{PLAN}\n" in state else "arguments"


def answered(state: str) -> bool:
    """The attempt wrote a reply and its check left no FAIL note."""
    _, found, reply = state.rpartition(f"\n\n{st.REPLY_SO_FAR}\n")
    return bool(found) and not any(line.strip().startswith(st.FAIL) for line in reply.splitlines())


def reply_of(state: str) -> str:
    _, found, reply = state.rpartition(f"\n\n{st.REPLY_SO_FAR}\n")
    lines = [line for line in reply.splitlines() if not line.strip().startswith(st.FAIL)]
    return "\n".join(lines) if found else f"Sorry, I {st.SORRY} the answers to your questions."


def _plan_prompt(text: str, task: str) -> str:
    return (f"{st.MARK} {st.CLASSIFY_EACH}: for each separate question write one line `<question number> "
            "<category>: <tool> <json arguments>`, numbering the questions in the order the ticket asks them, "
            "naming the category (billing, shipping, account or technical), its tool (get_invoice, track_order, "
            f"get_account or search_kb) and the arguments from the ticket. Write nothing else.\n\n{task}")


def _arguments_prompt(text: str, task: str) -> str:
    kept = "\n".join(f"{st.QUESTION} {n}: {c} ({st.TOOL_OF[c]})" for n, c in categories_now(text).items())
    return (f"{st.MARK} {st.ARGUMENTS}: for each question to look up again write one line `<question number> "
            f"<json arguments>` for its category's tool below. {st.RETRY} If a FAIL note names a question, look that "
            f"question up again, with other arguments than before. Write nothing else.\n\n{task}\n\n{kept}\n\n{text}")


def design(tools: ToolSet, max_questions: int) -> Chain:
    """The declared route (module docstring), for tickets of up to `max_questions` questions."""
    # the route reads the category code put on each line (`EachLookup`: the kept one), never a model's words
    lookups = Route(Code("its kept category", lambda line: _line(line)[1], named_by="code"),
                    {c: ToolStep(f"lookup_{c}", tools, st.TOOL_OF[c], lambda line: _line(line)[2],
                                 keep=_looked_up(c)) for c in st.CATEGORIES}, name="by category")
    reply = LLM("reply", f"{st.MARK} {st.WRITE}, one line per question, quoting the facts exactly. {st.CHECK} "
                f"If it does not, end the reply with a line `{st.FAIL} <the question not answered>`."
                "\n\n{task}\n\n{input}", st.SYSTEM)
    attempt = Chain([
        Route(Code("a plan to look up?", planned), {"plan": Code("the first plan", lambda state: state),
                                                    "arguments": Beside("arguments", LLM("arguments", _arguments_prompt,
                                                                                         st.SYSTEM), PLAN)},
              name="planned"),
        EachLookup("each question's line", lookups),
        Route(Code("a retry due?", next_move), {"answer": Beside("reply", reply, st.REPLY_SO_FAR),
                                              "retry": Code("skip the reply", lambda state: state)}, name="found"),
    ], name="attempt")
    rounds = 1 + st.MAX_RETRIES * max_questions
    return Chain([Beside("classify", LLM("classify", _plan_prompt, st.SYSTEM), PLAN),
                  Code("keep each question's category", keep_categories),
                  Loop(attempt, until=answered, max_rounds=rounds, name="answered"), Code("send", reply_of)],
                 name="route", pattern="route")
