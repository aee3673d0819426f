"""The decisions a support model makes over each question's lookups, whichever design shows them to it.

An agent sees its lookups as a tool conversation, a workflow step sees them quoted in its prompt
(`history`); from there the same functions decide, with the same keys, at the same rates:
- `replan`: a lookup planned (again) for some questions, two decisions each (category, argument),
  avoiding the calls already tried for that question;
- `reargue`: a lookup planned again in a category code kept, one decision each (the argument);
- `compose`: the reply from each question's last lookup, one decision per line (quoting the facts);
- `doubted`: one judgement of that reply (`patterns.sim.policy.doubts`, the evaluator's own rule), and
  the question it points at: the first one left unanswered, or a random one when it doubts a good reply.

Keys name what is decided in words every design's request contains (the question's sentence, the call,
the ticket and the reply), so a decision made again is correlated at `error_correlation` whoever makes it.
"""

from __future__ import annotations

from benchmarks.tasks.support.history import History, Lookup, tried
from benchmarks.tasks.support.prompts import FAIL, SORRY
from benchmarks.tasks.support.skills import Issue, Ticket, addressed, answer_line, call_in, plan_call
from patterns.sim.policy import Decider, crowded, doubts

Call = tuple[str, dict[str, str]]


def key(kind: str, what: str) -> str:
    """A support decision's key: what is decided (`category`, `argument`, `quote`, `judge`, ...) and about what."""
    return f"support|{kind}|{what}"


def replan(ticket: Ticket, history: History, questions: list[int], decide: Decider, crowding: float) -> list[Call]:
    """One lookup for each of `questions`: a category and an argument decision each, in one crowded call."""
    keys = [key(kind, ticket.issues[i].sentence) for i in questions for kind in ("category", "argument")]
    outcomes = crowded(decide, keys, crowding)
    return [plan_call(ticket.issues[i], ticket, outcomes[2 * j], outcomes[2 * j + 1], decide.rng,
                      tried(history[i]) if i < len(history) else frozenset())
            for j, i in enumerate(questions)]


def reargue(ticket: Ticket, history: History, questions: list[int], categories: dict[int, str], decide: Decider,
            crowding: float) -> list[Call]:
    """One lookup for each of `questions` in the category given for it: an argument decision each, in one call."""
    outcomes = crowded(decide, [key("argument", ticket.issues[i].sentence) for i in questions], crowding)
    return [call_in(categories[i], ticket.issues[i], ticket, ok, decide.rng,
                    tried(history[i]) if i < len(history) else frozenset())
            for i, ok in zip(questions, outcomes, strict=True)]


def quote(lookups: list[Lookup], decide: Decider, crowding: float) -> list[str]:
    """A reply line per lookup, one decision each (quoting its facts right)."""
    oks = crowded(decide, [key("quote", x.key) for x in lookups], crowding)
    return [answer_line(x.tool, x.args, x.content, x.is_error, ok) for x, ok in zip(lookups, oks, strict=True)]


def compose(history: History, decide: Decider, crowding: float) -> str:
    """The reply from each question's last lookup."""
    lines = quote([h[-1] for h in history if h], decide, crowding)
    return "\n".join(lines) or f"Sorry, I {SORRY} anything to answer."


def doubted(ticket: Ticket, ticket_text: str, history: History, reply: str, decide: Decider,
            max_retries: int) -> list[int]:
    """The question a check of `reply` points at when it doubts it: the first unanswered one that may still be
    looked up again; doubting a good reply, any one that may (none left: the doubt changes nothing)."""
    if not ticket.issues:
        return []
    missing = [i for i, x in enumerate(ticket.issues) if not addressed(x, reply)]
    if not doubts(decide, not missing, key("judge", f"{ticket_text}|{reply}")):
        return []
    left = [i for i in (missing or range(len(ticket.issues))) if len(history[i]) <= max_retries]
    if not left:
        return []
    return [left[0] if missing else decide.rng.choice(left)]


def note(issue: Issue | None, unanswered: bool) -> str:
    """A judgement's FAIL note: it names the question (by the identifiers the customer gave), never the fact."""
    about = ", ".join(issue.args.values()) if issue else "the ticket"
    return f"{FAIL} the question about {about} is not answered{' with a fact' if unanswered else ''}."


def named(ticket: Ticket, text: str) -> list[int]:
    """The questions that FAIL notes in `text` name (every identifier of the question is in the note)."""
    notes = [line for line in text.splitlines() if line.strip().startswith(FAIL)]
    return [i for i, x in enumerate(ticket.issues) if any(all(v in n for v in x.args.values()) for n in notes)]
