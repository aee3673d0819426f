"""What the simulated support model knows how to do: read a ticket, plan a lookup, write a reply line.

Reading works on the words a reader would go by: a sentence that complains ("charged", "not
arrived yet", "locked", "error", …) is a question, and its category is the kind of complaint;
other sentences that only mention an identifier ("my earlier order … arrived fine") are not.
Every identifier in the ticket is remembered by kind: a wrong lookup usually picks one of those.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.tasks.support.prompts import ARGS_OF, CATEGORIES, SORRY, TOOL_OF, VAGUE

CUES = {
    "billing": ("charged", "bill ", "invoice"),
    "shipping": ("not arrived yet", "shown up", "waiting for order"),
    "account": ("log in", "locked", "password"),
    "technical": ("error",),
}
_FINDERS = {"customer_id": re.compile(r"\bC-\d{5}\b"), "order_id": re.compile(r"\bORD-\d{5}\b"),
            "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
            "product": re.compile(r"\b[A-Z][a-z]+ [A-Z]\d{1,3}\b"), "error_code": re.compile(r"\bE-\d{2,3}\b")}
CATEGORY_OF_TOOL = {tool: cat for cat, tool in TOOL_OF.items()}


@dataclass(frozen=True)
class Issue:
    category: str
    args: dict[str, str]
    sentence: str


@dataclass(frozen=True)
class Ticket:
    issues: list[Issue]
    mentions: dict[str, list[dict[str, str]]]  # per category: every argument set the ticket mentions for its tool


def ticket_of(text: str) -> str:
    m = re.search(r"^Ticket: (.+)$", text, re.M)
    return m.group(1) if m else text


def _found(name: str, text: str) -> list[str]:
    return list(dict.fromkeys(_FINDERS[name].findall(text)))


def read(text: str) -> Ticket:
    issues = []
    for sentence in re.split(r"(?<=[.?!])\s+", text.strip()):
        lowered = sentence.lower() + " "
        category = next((c for c in CATEGORIES if any(cue in lowered for cue in CUES[c])), None)
        if category is None:
            continue
        values = [_found(name, sentence) for name in ARGS_OF[TOOL_OF[category]]]
        if all(values):
            issues.append(Issue(category, {n: v[0] for n, v in zip(ARGS_OF[TOOL_OF[category]], values, strict=True)},
                                sentence))
    mentions = {
        "billing": [{"customer_id": c} for c in _found("customer_id", text)],
        "shipping": [{"order_id": o} for o in _found("order_id", text)],
        "account": [{"email": e} for e in _found("email", text)],
        "technical": [{"product": p, "error_code": e}
                      for p in _found("product", text) for e in _found("error_code", text)],
    }
    return Ticket(issues, mentions)


def _typo(args: dict[str, str], rng: random.Random) -> dict[str, str]:
    """The right identifier with one character wrong (an id that does not exist)."""
    name = list(args)[-1]
    value = args[name]
    if "@" in value:
        user, _, domain = value.partition("@")
        i = rng.randrange(len(user))
        return {**args, name: user[:i] + user[i + 1:] + "@" + domain}
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    i = rng.choice(digits)
    wrong = str((int(value[i]) + rng.randint(1, 9)) % 10)
    return {**args, name: value[:i] + wrong + value[i + 1:]}


def call_key(tool: str, args: dict[str, Any]) -> str:
    return tool + json.dumps(args, sort_keys=True)


def plan_call(issue: Issue, ticket: Ticket, ok_category: bool, ok_argument: bool, rng: random.Random,
              tried: frozenset[str] = frozenset()) -> tuple[str, dict[str, str]]:
    """The lookup a model makes for one question: the right one, or a plausible wrong one.

    A wrong category calls that category's tool with an identifier of its kind from the ticket,
    or, with none, the question's own identifier in the wrong slot (the tool will say so). A
    wrong argument picks another identifier of the right kind from the ticket, or mistypes it.
    `tried` (call keys that failed before) steers a retry away from tools and ids already tried.
    """
    failed_tools = {key.split("{", 1)[0] for key in tried}
    wrong = [c for c in CATEGORIES if c != issue.category and TOOL_OF[c] not in failed_tools]
    category = issue.category if ok_category else rng.choice(wrong or [c for c in CATEGORIES if c != issue.category])
    tool = TOOL_OF[category]
    if category == issue.category and ok_argument:
        return tool, dict(issue.args)
    others = [m for m in ticket.mentions[category] if m != issue.args and call_key(tool, m) not in tried]
    if others:
        return tool, dict(rng.choice(others))
    if category == issue.category:
        return tool, _typo(issue.args, rng)
    return _misfit(tool, issue)


def _misfit(tool: str, issue: Issue) -> tuple[str, dict[str, str]]:
    """The question's own identifier in another category's slot (the tool will say it is of another kind)."""
    names = ARGS_OF[tool]
    misfit = {names[0]: next(iter(issue.args.values()))}
    return tool, misfit | ({names[1]: "unknown"} if len(names) > 1 else {})


def call_in(category: str, issue: Issue, ticket: Ticket, ok_argument: bool, rng: random.Random,
            tried: frozenset[str] = frozenset()) -> tuple[str, dict[str, str]]:
    """The lookup a model makes for one question when its category is given (one decision: the argument). In
    another category than the question's, it looks up an identifier of that kind from the ticket not tried yet,
    or misfits the question's own."""
    if category == issue.category:
        return plan_call(issue, ticket, True, ok_argument, rng, tried)
    tool = TOOL_OF[category]
    others = [m for m in ticket.mentions[category] if call_key(tool, m) not in tried]
    return (tool, dict(rng.choice(others))) if others else _misfit(tool, issue)


def label(tool: str, args: dict[str, Any]) -> str:
    if tool == "get_invoice":
        return f"Invoice for {args.get('customer_id')}"
    if tool == "track_order":
        return f"Order {args.get('order_id')}"
    if tool == "get_account":
        return f"Account {args.get('email')}"
    if tool == "search_kb":
        return f"{args.get('product')} error {args.get('error_code')}"
    return f"{tool} {json.dumps(args)}"


def answer_line(tool: str, args: dict[str, Any], content: str, is_error: bool, ok: bool) -> str:
    """One line of the reply for one lookup: its facts quoted, or an apology; a slip answers vaguely."""
    what = label(tool, args)
    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        data = None
    if is_error or not isinstance(data, dict):
        return f"Sorry, I {SORRY} {what}."
    if not ok:
        return f"About {what}: we are {VAGUE} and will get back to you."
    facts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data.items() if k not in args)
    return f"{what}: {facts}."


def addressed(issue: Issue, reply: str) -> bool:
    """Does some line of the reply answer this question with a looked-up fact for its identifier?"""
    return any(all(v in line for v in issue.args.values()) and SORRY not in line and VAGUE not in line
               for line in reply.splitlines())
