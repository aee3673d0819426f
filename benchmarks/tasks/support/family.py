"""`support`: answer customer tickets; each kind of question needs its own lookup tool first.

Four categories, four tools: billing → `get_invoice(customer_id)`, shipping →
`track_order(order_id)`, account → `get_account(email)`, technical → `search_kb(product,
error_code)`. The graph is known once the ticket is classified, so `route` is the declared design
(`Support.design_route`: the triage ladder, or per question for tickets of several).

Parameters: `issues` (questions per ticket, 1–4, each of a different category; a range such as
`1-2` varies it; with more than one, a single route label cannot cover the ticket, so the declared
route classifies each question),
`distractors` (extra identifiers the ticket mentions in passing, 0–4, e.g. "my earlier order
ORD-… arrived fine": a wrong argument picks one and gets a plausible wrong answer), `crowding`,
`plain` (the declared route without the agent's retries and check).
Grade: the fraction of the questions whose expected fact (the invoice amount, the delivery date,
the reset code, the KB article id) the answer states (`answers.support_answered`): some sentence
gives it, in any usual form (`$123.45` or `123.45 USD`, `2024-03-07` or `March 7, 2024`, `RST 1234`),
and gives no other value of its kind (two amounts for one invoice are ambiguous); 1.0 = all.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.tasks.base import CROWDING_PARAM, PLAIN_PARAM, Environment, FamilyBase, Instance, IntRange, Param
from benchmarks.tasks.support import comparator, ladder
from benchmarks.tasks.support import prompts as st
from benchmarks.tasks.support.answers import is_none, support_answered
from benchmarks.tasks.support.policy import SupportPolicy
from benchmarks.tasks.support.tools import make_tools
from patterns.tools import ToolSet
from patterns.workflows import LLM, Agent, Chain, EvaluateOptimize, Orchestrate, Parallel, Route, Single

NAMES = ("anna", "ben", "chloe", "david", "emma", "felix", "grace", "hugo", "iris", "jack", "lena", "mark")
DOMAINS = ("example.com", "mail.test")
PRODUCTS = ("Router X200", "Printer P45", "Camera C9", "Thermostat T7", "Speaker S3", "Tablet K10")
FIXES = ("hold the reset button for 10 seconds", "update the firmware from the settings menu",
         "replace the batteries", "unplug it for one minute and plug it back in", "reseat the cable at the back")
ISSUE = {
    "billing": ("I was charged more than I expected this month, my customer ID is {customer_id}.",
                "Can you explain my latest bill for customer ID {customer_id}?",
                "My invoice looks far too high for customer {customer_id}."),
    "shipping": ("My order {order_id} has not arrived yet.", "Order {order_id} still hasn't shown up.",
                 "I'm still waiting for order {order_id}, can you track it?"),
    "account": ("I can't log in to my account {email}.", "My account {email} seems to be locked.",
                "I'm locked out of {email} and the password reset does nothing."),
    "technical": ("My {product} shows error {error_code} when I turn it on.",
                  "Error {error_code} keeps appearing on my {product}.",
                  "I get error {error_code} on the {product} every morning."),
}
DISTRACTOR = {"billing": "My old customer number {customer_id} was closed last year.",
              "shipping": "My earlier order {order_id} arrived fine, thanks.",
              "account": "My partner's account {email} works fine.",
              "technical": "I also have a {product} that works perfectly."}
FACT = {"billing": "amount", "shipping": "eta", "account": "reset_code", "technical": "article"}


def issue_count(text: str | int | IntRange) -> IntRange:
    value = IntRange.parse(text)
    if value.high > len(st.CATEGORIES):
        raise ValueError(f"issues must be within 1-{len(st.CATEGORIES)} (one per category), got {text!r}")
    return value


def distractor_count(text: str | int) -> int:
    value = int(text)
    if not 0 <= value <= 4:
        raise ValueError(f"distractors must be an integer in 0-4, got {text!r}")
    return value


class _World:
    """One instance's records, every identifier and fact unique within it."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.db: dict[str, dict[str, dict[str, str]]] = {"invoices": {}, "orders": {}, "accounts": {}, "kb": {}}

    def fresh(self, make: Any) -> str:
        while (value := make()) in self.used:
            pass
        self.used.add(value)
        return value

    def ids(self, category: str, product: str | None = None) -> dict[str, str]:
        r = self.rng
        if category == "billing":
            return {"customer_id": self.fresh(lambda: f"C-{r.randrange(10_000, 100_000)}")}
        if category == "shipping":
            return {"order_id": self.fresh(lambda: f"ORD-{r.randrange(10_000, 100_000)}")}
        if category == "account":
            return {"email": self.fresh(lambda: f"{r.choice(NAMES)}.{r.choice(NAMES)}{r.randrange(100)}"
                                                f"@{r.choice(DOMAINS)}")}
        code = self.fresh(lambda: f"E-{r.randrange(10, 1000)}")
        return {"product": product or r.choice(PRODUCTS), "error_code": code}

    def record(self, category: str, ids: dict[str, str]) -> dict[str, str]:
        r, day = self.rng, lambda: self.fresh(lambda: f"2024-{r.randint(1, 12):02}-{r.randint(1, 28):02}")
        if category == "billing":
            rec = {**ids, "invoice": self.fresh(lambda: f"INV-{r.randrange(10_000, 100_000)}"),
                   "amount": self.fresh(lambda: f"${r.randint(20, 400)}.{r.randrange(100):02}"), "due": day(),
                   "status": r.choice(("open", "overdue", "paid"))}
            self.db["invoices"][ids["customer_id"]] = rec
        elif category == "shipping":
            rec = {**ids, "status": r.choice(("in transit", "delayed at the depot", "out for delivery")),
                   "carrier": r.choice(("UPS", "DHL", "FedEx")), "eta": day()}
            self.db["orders"][ids["order_id"]] = rec
        elif category == "account":
            rec = {**ids, "status": "locked", "reason": r.choice(("too many failed logins", "password expired")),
                   "reset_code": self.fresh(lambda: f"RST-{r.randrange(1000, 10_000)}")}
            self.db["accounts"][ids["email"]] = rec
        else:
            rec = {**ids, "article": self.fresh(lambda: f"KB-{r.randrange(1000, 10_000)}"), "fix": r.choice(FIXES)}
            self.db["kb"][f"{ids['product']}|{ids['error_code']}"] = rec
        return rec


class Support(FamilyBase):
    """Tickets whose questions each need their category's lookup (module docstring for the instances and grade).

    The declared `route` is the strongest route found (`docs/designs.md`): for one-question tickets (the
    default) the triage ladder (`ladder`, `route:ladder`): classify once, then that category's handler (code
    writes the reply from its lookup) and a check; on a FAIL, in code, the handler again (3 tries), then the
    next category; for several questions, each classified once, its category kept (and climbed) in code, with the
    agent's retries and check (`comparator`, `route:each`). `route:plain` (or `plain=true`): the textbook route.

    Capabilities (the same instruction gets the same behaviour in any design; what each use costs):

    | capability | triggered by | agent | declared workflow (route) | cost |
    |---|---|---|---|---|
    | plan lookups | a ticket, tools; "Classify each question" | 1st turn | 1st classify | 2 decisions/question |
    | look up as a handler | "You handle <category> tickets" | — | a ladder rung | 1 decision (argument) |
    | retry a lookup | "If a lookup fails, ... try again", an error | next turn | next rung | 2 (1: category kept) |
    | check the reply | "Before you answer, check ..."; "Review this reply" | answering turn | check | 1 judgement |
    | act on a doubt | its own doubt; a FAIL note naming a question | same turn | next rung | 2 (1: category kept) |
    | quote the facts | writing the reply from lookups | answering turn | code | 1 decision/question |

    Planning decides each question's category and argument (crowded); a retry never repeats a call already
    tried for the question, at most 2 per question. The check is one judgement at `checker_error_rate`.

    Intended differences (`wva audit`):

    | decision | designs | cause |
    |---|---|---|
    | `support|argument` | route, route:each, route:ladder, route:plain, evaluate_optimize | category known: fair |
    | `support|category` | agent, single, chain, orchestrate, route:each | crowding: 2 decisions/question a reply |

    A handler knows its category because the route told it: the classifier decided it, charged once as
    `support|category`, so the handler decides the argument alone (k=1). That is fair: every design decides
    a question's category once per attempt (the agent in its planning reply, with the argument, k=2), and a
    handler of another category gets nothing free: it has no question of its own, asks for an identifier,
    and the check fails it. A reply planning lookups carries 2 decisions per question whoever sends it.
    """

    name = "support"
    # declared before any result (see base): known once the ticket is classified: classifier → one handler per category
    natural_workflow = "route"
    description = "answer tickets of four kinds, each needing its own lookup tool: the graph is known once classified"
    PARAMS: ClassVar[dict[str, Param]] = {
        "issues": Param("1", issue_count, "questions per ticket, 1-4, each of another category (or a range)"),
        "distractors": Param(1, distractor_count, "identifiers mentioned in passing, 0-4, that a wrong lookup picks"),
        "crowding": CROWDING_PARAM,
        "plain": PLAIN_PARAM,
    }
    issues: IntRange
    distractors: int
    crowding: float
    plain: bool

    def instance(self, i: int, rng: random.Random) -> Instance:
        world = _World(rng)
        categories = rng.sample(st.CATEGORIES, rng.randint(self.issues.low, self.issues.high))
        issues, sentences, products = [], [], set()
        for category in categories:
            rec = world.record(category, world.ids(category))
            products.add(rec.get("product"))
            issues.append({"category": category, "tool": st.TOOL_OF[category], "fact": rec[FACT[category]],
                           "args": {k: rec[k] for k in st.ARGS_OF[st.TOOL_OF[category]]}})
            sentences.append(rng.choice(ISSUE[category]).format(**rec))
        for _ in range(self.distractors):
            issue = rng.choice(issues)  # same kind as a real question's identifier: easy to confuse
            if issue["category"] == "technical":  # another product of theirs, with the same error code
                product = rng.choice([p for p in PRODUCTS if p not in products] or
                                     [p for p in PRODUCTS if p != issue["args"]["product"]])
                products.add(product)
                ids = {"product": product, "error_code": issue["args"]["error_code"]}
            else:
                ids = world.ids(issue["category"])
            world.record(issue["category"], ids)
            sentences.append(DISTRACTOR[issue["category"]].format(**ids))
        for category in st.CATEGORIES:  # records nobody asked about, so a wrong id can still exist
            for _ in range(2):
                world.record(category, world.ids(category))
        rng.shuffle(sentences)
        name = rng.choice(NAMES).title()
        ticket = " ".join([rng.choice(("Hi,", "Hello support,", "Hi there,")), *sentences, f"Thanks, {name}."])
        prompt = f"{st.MARK} Answer this customer ticket. {st.GUIDE}\n\nTicket: {ticket}"
        return Instance(f"{self.name}-{i:04d}", prompt,
                        {"issues": issues, "facts": [x["fact"] for x in issues], "db": world.db})

    def environment(self, instance: Instance, workdir: Path) -> Environment:
        state: dict[str, Any] = {**copy.deepcopy(instance.data["db"]), "calls": []}
        return Environment(tools=make_tools(state), state=state)

    @staticmethod
    def _only(env: Environment, category: str) -> ToolSet:
        return ToolSet([env.tools.tools[st.TOOL_OF[category]]])

    def design_single(self, env: Environment) -> Single:
        return Single(prompt="{task}", system=f"{st.SYSTEM} {st.ONE_ROUND}", tools=env.tools)

    def design_chain(self, env: Environment) -> Chain:
        return Chain([
            LLM("triage", f"{st.MARK} {st.TRIAGE}: for each separate question in the ticket write one line "
                "`category: tool {json arguments}`, naming the category (billing, shipping, account or technical), "
                "the tool for it (get_invoice, track_order, get_account or search_kb) and its arguments from the "
                "ticket. Write nothing else.\n\n{task}", st.SYSTEM),
            LLM("lookup", f"{st.MARK} {st.LOOKUP}: make exactly the tool calls listed below, all at once, then reply "
                "with one line per call: `tool {json arguments} -> result`.\n\n{input}", st.SYSTEM, env.tools),
            LLM("reply", f"{st.MARK} {st.REPLY}: write the reply to the customer from the lookup results below, one "
                "line per result, quoting the facts exactly.\n\n{input}", st.SYSTEM),
        ])

    def design_route(self, env: Environment) -> Route | Chain:
        """The declared comparator: the ladder for one-question tickets, else `route:each`; `plain=true`: the
        textbook route."""
        if self.plain:
            return self.design_route__plain(env)
        return self.design_route__ladder(env) if self.issues.high == 1 else self.design_route__each(env)

    def design_route__ladder(self, env: Environment) -> Chain:
        """The triage ladder: classify once, then each category's handler and a check, climbing in code (`ladder`)."""
        return ladder.design(env.tools)

    def design_route__each(self, env: Environment) -> Chain:
        """Each question classified, its category's lookup in code, the agent's retries and check (`comparator`)."""
        return comparator.design(env.tools, self.issues.high)

    def design_route__plain(self, env: Environment) -> Route:
        """The textbook route: one label per ticket, a handler with its category's tool for one round."""
        handlers = {c: LLM(f"handle_{c}", "{task}", ladder.handler_system(c), self._only(env, c))
                    for c in st.CATEGORIES}
        return Route(_classifier(), handlers)

    def design_orchestrate(self, env: Environment) -> Orchestrate:
        return Orchestrate(
            planner=LLM("plan", f"{st.MARK} {st.PLAN} as a JSON array of strings, each quoting one question's "
                        "sentence from the ticket with its identifiers. Reply with the JSON only.\n\n{task}",
                        st.SYSTEM),
            worker=LLM("worker", f"{st.MARK} {st.WORKER}. {st.GUIDE} Answer in one line.\n\nQuestion: {{input}}",
                       st.SYSTEM, env.tools),
            synthesizer=LLM("synthesize", f"{st.MARK} {st.SYNTH} into one reply to the customer, one line per "
                            "answer, quoting the facts exactly.\n\n{input}", st.SYSTEM),
        )

    def design_parallel(self, env: Environment) -> Parallel:
        branches = [LLM(f"section_{c}", "{task}", f"{st.SYSTEM} {st.SECTION.format(category=c)}, look it up with "
                        f"{st.TOOL_OF[c]} and answer that question in one line, quoting the facts exactly; "
                        f"otherwise reply exactly {st.NONE}.", self._only(env, c)) for c in st.CATEGORIES]
        return Parallel(branches=branches, aggregate=_join_sections)

    def design_evaluate_optimize(self, env: Environment) -> Route:
        """The ticket routed on its input (a routing table: no tool has answered yet), then, per category, a
        generator offered only that category's lookup and a reviewer, up to 3 rounds. A generator offered all
        four lookups round after round would be the model picking 1 of 4 again on a loop, after its pick answered:
        an agent, refused as a workflow (docs/drawability.md, `patterns.workflows.choices`). One category, as the plain
        route: a ticket of several questions gets the first category's answer only."""
        evaluator = LLM("evaluate", f"{st.MARK} {st.EVALUATE}: reply PASS if it answers every question in the ticket "
                        "with a looked-up fact for the identifier the customer gave; otherwise reply FAIL: and say "
                        "which question is not answered.\n\nThe ticket:\n{task}\n\nReply to review:\n{input}",
                        st.SYSTEM)
        loops = {c: EvaluateOptimize(LLM("generate", "{task}\n\nFeedback on your previous reply (none in the first "
                                         "round): {feedback}", ladder.handler_system(c), self._only(env, c)), evaluator,
                                     max_rounds=3) for c in st.CATEGORIES}
        return Route(_classifier(), loops, pattern="evaluate_optimize")

    def design_agent(self, env: Environment) -> Agent:
        return Agent(system=f"{st.SYSTEM} {st.RETRY} {st.CHECK}", tools=env.tools)

    def grade(self, instance: Instance, env: Environment, output: str) -> float:
        issues, db = instance.data["issues"], instance.data["db"]
        dues = frozenset(r["due"] for r in db["invoices"].values())  # dates, but not delivery dates
        answered = [support_answered(FACT[x["category"]], x["fact"], output or "",
                                     dues if FACT[x["category"]] == "eta" else frozenset()) for x in issues]
        return sum(answered) / len(issues)

    def policy(self) -> SupportPolicy:
        return SupportPolicy(crowding=self.crowding)


def _classifier() -> LLM:
    return LLM("classify", f"{st.MARK} {st.CLASSIFY}: billing, shipping, account or technical? Reply with one "
               "word.\n\n{task}", st.SYSTEM)


def _join_sections(outputs: list[str]) -> str:
    return "\n".join(o.strip() for o in outputs if o.strip() and not is_none(o, st.NONE)) or st.NONE
