"""`support`'s triage ladder (`route:ladder`): escalate in code rather than decide the category again.

A route's failures are mostly a retry that decides the category and the argument again, correlated with the
first decision at `error_correlation`, and a reply that quotes its lookup vaguely. The ladder asks the model
for the category once, climbs in code, and writes the reply from the record in code:

    classify the ticket (LLM: one word)
      -> code: the rungs, the label's category `TRIES` (3) times, then the others in a fixed order
      -> for each rung, at most `RUNG_LIMIT` (6):
           that category's handler (LLM, offered only its own lookup: it decides the argument; code makes
           the call and writes the reply line from the record, `quoted`)
           -> a check of its reply (LLM: the evaluator's PASS / FAIL)
           -> code: PASS ends the climb; FAIL moves to the next rung
      -> send the first reply that passed; if none did, the first rung's reply (the classifier's category)

The label's category is tried again before the climb because most FAILs after a right label are a slipped
argument, which a second try gets right about half the time (`error_correlation` 0.5); three tries match
the agent's own bound (a lookup and `MAX_RETRIES` retries). Developed on seed 0 and checked on seed 1
(`python -m benchmarks.studies.strongest support`, docs/designs.md).

Every step is a drawn-in-advance step of `patterns.workflows` (a `Loop` over rungs, a `Route` whose classifier
is code): nothing in it chooses among tools after a tool has answered. The state the rungs share travels in
the text (`rungs left`, the replies so far, the last verdict). It answers one question per ticket, like the
textbook route; for tickets of several questions the family's declared design is `comparator`'s
per-question route (`Support.design_route`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import networkx as nx

from benchmarks.tasks.support import prompts as st
from patterns.run import Run
from patterns.tools import ToolSet
from patterns.workflows import LLM, Chain, Code, Loop, Route
from patterns.workflows.graph import node

RUNGS = "Rungs left:"
FIRST = "First reply:"
LAST = "Reply:"
VERDICT = "Verdict:"
TRIES = 3  # runs of the label's category before the climb: 1 + the agent's own retries (MAX_RETRIES)
RUNG_LIMIT = len(st.CATEGORIES) - 1 + TRIES  # then each other category once
_SECTION = re.compile(r"^(Rungs left:|First reply:|Reply:|Verdict:)\s?(.*?)(?=^(?:Rungs left:|First reply:|Reply:|"
                      r"Verdict:)|\Z)", re.M | re.S)


def parts(state: str) -> dict[str, str]:
    """The state's sections (`Rungs left:`, `First reply:`, `Reply:`, `Verdict:`) by heading."""
    return {m.group(1): m.group(2).strip() for m in _SECTION.finditer(state)}


def state_of(sections: dict[str, str]) -> str:
    return "\n".join(f"{h} {sections[h]}" if h == RUNGS else f"{h}\n{sections[h]}"
                     for h in (RUNGS, FIRST, LAST, VERDICT) if h in sections)


def rungs(label: str) -> str:
    """The climb: the classifier's category `TRIES` times (a failed handler is run again: its argument or its
    quote may have slipped), then the others in a fixed order; a label that is no category: the fixed order."""
    word = label.strip().lower().split()[0] if label.strip() else ""
    head = [word] * TRIES if word in st.CATEGORIES else []
    return RUNGS + " " + " ".join(head + [c for c in st.CATEGORIES if c not in head])


def next_rung(state: str) -> str:
    left = parts(state).get(RUNGS, "").split()
    return left[0] if left else st.CATEGORIES[0]


def climbed(state: str) -> str:
    """After a rung's check: PASS keeps the state (the climb ends); FAIL drops the rung just tried."""
    sections = parts(state)
    if not sections.get(VERDICT, "").strip().upper().startswith("PASS"):
        sections[RUNGS] = " ".join(sections.get(RUNGS, "").split()[1:])
    return state_of(sections)


def done(state: str) -> bool:
    sections = parts(state)
    return sections.get(VERDICT, "").strip().upper().startswith("PASS") or not sections.get(RUNGS, "").split()


def sent(state: str) -> str:
    sections = parts(state)
    if sections.get(VERDICT, "").strip().upper().startswith("PASS"):
        return sections.get(LAST, "")
    return sections.get(FIRST, sections.get(LAST, ""))


@dataclass(frozen=True)
class Noted:
    """`step` (run on the ticket) whose output becomes the state's section `heading` (and `First reply:` the
    first time): the climb keeps its state in the text."""

    name: str
    step: LLM | Handler
    heading: str
    kind: str = "llm"

    async def __call__(self, run: Run, text: str) -> str:
        sections = parts(text)
        sections[self.heading] = (await self.step(run, text)).strip()
        if self.heading == LAST:
            sections.setdefault(FIRST, sections[LAST])
        return state_of(sections)

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        return self.step.add_to(graph, prefix)


@dataclass(frozen=True)
class Handler:
    """A category's handler: the model, offered only that category's lookup, makes the call (its argument is
    the model's decision); code runs it and writes the reply line from the result (`quoted`), so no quoting
    decision follows. A reply with no call (the ticket names nothing of this category) is kept as written."""

    name: str
    system: str
    tools: ToolSet
    kind: str = "llm"

    async def __call__(self, run: Run, text: str) -> str:
        reply = await run.sample(name=self.name, system=self.system, tools=self.tools.params,
                                 messages=[{"role": "user", "content": run.task}])
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return "\n".join(b.text for b in reply.content if b.type == "text")
        results = await run.call_tools(self.tools, uses, name=f"{self.name}.tools")
        return "\n".join(quoted(u.input, r) for u, r in zip(uses, results, strict=True))

    def add_to(self, graph: nx.DiGraph, prefix: str) -> tuple[list[str], list[str]]:
        first = node(graph, prefix + self.name, "llm", self.name)
        names = tuple(self.tools.tools)
        tools = node(graph, prefix + self.name + ".tools", "tool", ", ".join(names), tools=names)
        graph.add_edge(first, tools)
        return [first], [tools]


def quoted(args: dict[str, object], result: dict[str, object]) -> str:
    """The reply line code writes from a lookup: every field of the record the customer did not give, or an
    apology naming what was looked up (a failed lookup, a result that is not a record)."""
    asked = ", ".join(str(v) for v in args.values())
    try:
        record = json.loads(str(result.get("content", "")))
    except json.JSONDecodeError:
        record = None
    if result.get("is_error") or not isinstance(record, dict):
        return f"Sorry, I {st.SORRY} a record for {asked}."
    facts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in record.items() if k not in args)
    return f"For {asked}: {facts}."


def _check_prompt(text: str, task: str) -> str:
    return (f"{st.MARK} {st.EVALUATE}: reply PASS if it answers every question in the ticket with a looked-up fact "
            "for the identifier the customer gave; otherwise reply FAIL: and say which question is not answered."
            f"\n\nThe ticket:\n{task}\n\nReply to review:\n{parts(text).get(LAST, '')}")


def handler_system(category: str) -> str:
    return (f"{st.SYSTEM} {st.HANDLER.format(category=category)}: find the {st.ID_KIND[category]} in the ticket, look "
            f"it up with {st.TOOL_OF[category]}, then answer, quoting the facts exactly.")


def design(tools: ToolSet) -> Chain:
    """The ladder (module docstring) on a trial's tools."""
    classify = LLM("classify", f"{st.MARK} {st.CLASSIFY}: billing, shipping, account or technical? Reply with one "
                   "word.\n\n{task}", st.SYSTEM)
    handlers = {c: Noted(f"handle_{c}", Handler(f"handle_{c}", handler_system(c),
                                                ToolSet([tools.tools[st.TOOL_OF[c]]])), LAST) for c in st.CATEGORIES}
    rung = Chain([
        # the rung is code's fixed order (the label the model gave once, before the loop, then the rest): the model
        # never picks among the categories again on the loop, only PASS or FAIL (`patterns.workflows.choices`)
        Route(Code("next rung", next_rung, named_by="code"), handlers, name="rung"),
        Noted("check", LLM("check", _check_prompt, st.SYSTEM), VERDICT),
        Code("climb on a FAIL", climbed),
    ], name="rung")
    return Chain([classify, Code("rungs", rungs), Loop(rung, until=done, max_rounds=RUNG_LIMIT, name="ladder"),
                  Code("send", sent)], name="route:ladder", pattern="route")
