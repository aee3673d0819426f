"""What a simulated model's behaviour is made of: a `Policy` maps a `Request` to a `Reply`.

A policy sees only what a real model would see (the prompts, the conversation, the tools),
never a grader's answer, and never which pattern sent the request: it decides from what the
request says (its instructions, wherever they are, the tools offered, the conversation). Every
decision it makes that could be wrong goes through `Decider.correct(key)` (a judgement through
`Decider.judge(key)`), which is where `SimModel`'s `error_rate` (`checker_error_rate`) comes in:
one draw per decision, keyed by what is decided, so a task family's success rate responds to the
error rate in a way that can be reasoned about, and a decision made twice is correlated the same
way whichever design makes it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..conversation import blocks_of, field


def _text_of(content: Any) -> str:
    """Text blocks of a content (or tool_result content) joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in blocks_of(content) if isinstance(b, dict) and b.get("type") == "text")


def _result_view(block: dict[str, Any]) -> dict[str, Any]:
    return {
        "tool_use_id": block.get("tool_use_id", ""),
        "content": _text_of(block.get("content", "")),
        "is_error": bool(block.get("is_error", False)),
    }


@dataclass(frozen=True)
class Request:
    """The request exactly as a real model would see it (plain dicts, never SDK objects)."""

    system: str  # system prompt flattened to text ("" if none)
    messages: list[dict[str, Any]]  # Messages API params; content may be a str or a list of block dicts
    tools: list[dict[str, Any]]  # tool params (name, description, input_schema) the model may call
    max_tokens: int
    stop_sequences: tuple[str, ...] = ()
    tool_choice: Any = None  # as sent ({"type": "any"}, ...); SimModel enforces it on the reply (forcing.py)

    def _user_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("role") == "user"]

    def may_call(self) -> bool:
        """Whether the model may call a tool now: some are offered and `tool_choice` is not `none` (SimModel
        offers none under `none`: a drawn workflow's answer step, a compaction). A policy told to answer now
        answers from what it has, never with the lead-in of a call it may not make."""
        kind = field(self.tool_choice, "type", "auto") if self.tool_choice is not None else "auto"
        return bool(self.tools) and kind != "none"

    def last_user_text(self) -> str:
        users = self._user_messages()
        return _text_of(users[-1].get("content", "")) if users else ""

    def first_user_text(self) -> str:
        users = self._user_messages()
        return _text_of(users[0].get("content", "")) if users else ""

    def instructions(self) -> str:
        """The system prompt and the first user turn, the two places any design can put its instructions.

        A policy reads what it is asked to do here, never from one of the two alone: an agent carries its
        instructions in the system prompt, a workflow step in its prompt, and the same instruction must get
        the same behaviour in either place (`wva audit` checks it)."""
        return f"{self.system}\n\n{self.first_user_text()}"

    def tool_results(self) -> list[dict[str, Any]]:
        """All tool_result blocks in order: `{tool_use_id, content (str), is_error (bool)}`."""
        return [_result_view(b) for m in self._user_messages() for b in blocks_of(m.get("content"))
                if b.get("type") == "tool_result"]

    def last_tool_results(self) -> list[dict[str, Any]]:
        """The tool results of the last user message (the ones the model is answering now)."""
        users = self._user_messages()
        if not users:
            return []
        return [_result_view(b) for b in blocks_of(users[-1].get("content")) if b.get("type") == "tool_result"]

    def tool_uses(self) -> list[dict[str, Any]]:
        """All tool_use blocks the assistant made so far (`{type, id, name, input}` dicts)."""
        return [b for m in self.messages if m.get("role") == "assistant"
                for b in blocks_of(m.get("content")) if b.get("type") == "tool_use"]

    def tool_names(self) -> list[str]:
        """Names of the tools offered in this request."""
        return [str(t.get("name", "")) for t in self.tools]


Key = str  # what a decision is about, in the request's own terms ("extract|<record>", "lookup|A-17")

Draws = Callable[[str, str], float]  # (kind, key) -> a uniform in [0, 1): the model's source of decisions


class Decider:
    """The source of (in)correct decisions for one model call.

    `correct(key)` is True with probability `1 - error_rate`; `judge(key)` is the same for a
    judgement (an evaluator's or validator's verdict, a self-check of one's own result) at
    `checker_error_rate` (None: the same as `error_rate`). SimModel passes rates already grown by
    `context_decay` (see `physics.py`).

    **The key names what is being decided**, in the request's own terms: the same field of the same
    record, the same lookup, the same hop. SimModel correlates repeated decisions of one key within a
    trial (`error_correlation`, `physics.py`), wherever they are made: an agent redoing a decision after
    a failure is correlated exactly as a workflow retry is, whatever the rest of the request says. A
    decision without a key is keyed by the request's content and its place in the call (so only an
    identical request repeats it). A policy may use `rng` to choose *which* mistake to make; the draws
    that decide right or wrong never consume `rng`, so its other uses do not shift with the error rate.

    Built on its own (`Decider(rng, 0.1)`, as tests do), every draw comes from `rng` and keys are ignored.
    `decisions`, `judgements` and `mistakes` count what the call decided (a judgement counts in both
    `decisions` and `judgements`).
    """

    def __init__(self, rng: random.Random, error_rate: float, checker_error_rate: float | None = None,
                 draws: Draws | None = None) -> None:
        checker = error_rate if checker_error_rate is None else checker_error_rate
        for name, rate in (("error_rate", error_rate), ("checker_error_rate", checker)):
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {rate!r}")
        self.rng = rng
        self.error_rate = error_rate
        self.checker_error_rate = checker
        self._draws = draws
        self.decisions = 0
        self.judgements = 0
        self.mistakes = 0

    def correct(self, key: Key | None = None) -> bool:
        return self.draw(self.error_rate, key)

    def judge(self, key: Key | None = None) -> bool:
        """True if this call's judgement (right/wrong of a result it is shown) is itself right."""
        self.judgements += 1
        return self.draw(self.checker_error_rate, key, kind="judge")

    def draw(self, rate: float, key: Key | None = None, *, kind: str = "decide", crowd: int = 1) -> bool:
        """One decision about `key` that is wrong with probability `rate` (counted in decisions and mistakes).

        `crowd`: how many decisions the reply carries (`crowded`); the rate already holds its penalty. It changes
        nothing here: `wva audit` records it, to tell a documented crowding penalty from an unexplained one."""
        self.decisions += 1
        u = self.rng.random() if self._draws is None else self._draws(kind, "" if key is None else key)
        ok = u >= rate
        if not ok:
            self.mistakes += 1
        return ok


CROWDING = 0.1  # every family's default: 3 decisions in one call err at 1.2 e each (docs/simulator.md: the physics)


def crowded(decide: Decider, keys: int | Sequence[Key], crowding: float) -> list[bool]:
    """k decisions asked of one call (`keys`: their keys, or just how many), each right with probability
    1 - min(1, e * (1 + crowding * (k - 1))).

    The crowding penalty is an assumption, a knob of each task family (default `CROWDING`): a model
    asked to make many decisions at once makes each of them a little worse. With crowding 0 (or
    one decision) these are k plain `correct()` draws.

    Crowding is symmetric: it counts the decisions one *reply* carries, whichever design sent the request. An
    agent's first turn that plans every lookup at once and a workflow step that does the same (a `single`
    design, a vote branch, a generator) pay the same penalty; a design that splits the work into one step per
    decision pays none, because each of its replies carries one. `wva audit` shows k for every decision of
    every design (`docs/simulator.md`, "Crowding").
    """
    named: list[Key | None] = [None] * keys if isinstance(keys, int) else list(keys)
    k = len(named)
    if crowding == 0 or k <= 1:  # plain `correct()` draws, told how many the reply carries
        return [decide.draw(decide.error_rate, key, crowd=k) for key in named]
    rate = min(1.0, decide.error_rate * (1 + crowding * (k - 1)))
    return [decide.draw(rate, key, crowd=k) for key in named]


def doubts(decide: Decider, right: bool, key: Key | None = None) -> bool:
    """One judgement of a result that is `right` (or not): True if the judge calls it wrong.

    The one feedback rule for every pattern: an evaluator reviewing a candidate and an agent
    checking its own valid-looking result make this same judgement at `checker_error_rate`, so a
    wrong result is noticed (and a right one doubted) equally often whoever checks. The judge never
    learns the right value from it. `key` names what is judged (the candidate and what it answers)."""
    return decide.judge(key) != right


@dataclass(frozen=True)
class Reply:
    """What the policy generates; SimModel applies stop sequences and max_tokens to it."""

    content: list[dict[str, Any]]  # text / thinking / tool_use block dicts; tool_use ids are assigned if absent
    stop_reason: str | None = None  # None: tool_use if any tool_use block, else end_turn


@runtime_checkable
class Policy(Protocol):
    def respond(self, request: Request, decide: Decider) -> Reply: ...

    def accepts(self, request: Request) -> bool: ...


class FirstAccepting:
    """A policy that hands each request to the first of `policies` that accepts it, else `fallback`.

    The sim server uses it to serve several task families at once. `policies` is kept by
    reference, so a policy appended to the list later is consulted from then on. With no
    fallback, a request no policy accepts is a ValueError.
    """

    def __init__(self, policies: Sequence[Policy], fallback: Policy | None = None) -> None:
        self.policies: list[Policy] = policies if isinstance(policies, list) else list(policies)
        self.fallback = fallback

    def pick(self, request: Request) -> Policy:
        for policy in self.policies:
            if policy.accepts(request):
                return policy
        if self.fallback is not None:
            return self.fallback
        raise ValueError("no policy accepts this request")

    def respond(self, request: Request, decide: Decider) -> Reply:
        return self.pick(request).respond(request, decide)

    def accepts(self, request: Request) -> bool:
        return self.fallback is not None or any(p.accepts(request) for p in self.policies)
