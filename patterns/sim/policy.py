"""What a simulated model's behaviour is made of: a `Policy` maps a `Request` to a `Reply`.

A policy sees only what a real model would see (the prompts, the conversation, the tools),
never a grader's answer. Every decision it makes that could be wrong goes through
`Decider.correct()` (a judgement through `Decider.judge()`), which is where `SimModel`'s
`error_rate` (`checker_error_rate`) comes in: one draw per decision, so a task family's
success rate responds to the error rate in a way that can be reasoned about.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..conversation import blocks_of


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

    def last_user_text(self) -> str:
        users = self._user_messages()
        return _text_of(users[-1].get("content", "")) if users else ""

    def first_user_text(self) -> str:
        users = self._user_messages()
        return _text_of(users[0].get("content", "")) if users else ""

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


class Decider:
    """The source of (in)correct decisions for one model call.

    `correct()` is True with probability `1 - error_rate`, independently per decision, and
    always consumes exactly one draw so that a policy's other uses of `rng` do not shift with
    the error rate. A policy may use `rng` to choose *which* mistake to make.
    `judge()` is the same for a judgement (an evaluator's or validator's verdict, an agent's check
    of its own result) at `checker_error_rate` (None: the same as `error_rate`). SimModel passes
    rates already grown by `context_decay` (see `physics.py`).
    """

    def __init__(self, rng: random.Random, error_rate: float, checker_error_rate: float | None = None) -> None:
        checker = error_rate if checker_error_rate is None else checker_error_rate
        for name, rate in (("error_rate", error_rate), ("checker_error_rate", checker)):
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {rate!r}")
        self.rng = rng
        self.error_rate = error_rate
        self.checker_error_rate = checker
        self.decisions = 0
        self.mistakes = 0

    def correct(self) -> bool:
        return self.draw(self.error_rate)

    def judge(self) -> bool:
        """True if this call's judgement (right/wrong of a result it is shown) is itself right."""
        return self.draw(self.checker_error_rate)

    def draw(self, rate: float) -> bool:
        """One decision that is wrong with probability `rate` (counted in decisions and mistakes)."""
        self.decisions += 1
        ok = self.rng.random() >= rate
        if not ok:
            self.mistakes += 1
        return ok


CROWDING = 0.1  # every family's default: 3 decisions in one call err at 1.2 e each (README: SimModel knobs)


def crowded(decide: Decider, k: int, crowding: float) -> list[bool]:
    """k decisions asked of one call, each right with probability 1 - min(1, e * (1 + crowding * (k - 1))).

    The crowding penalty is an assumption, a knob of each task family (default `CROWDING`): a model
    asked to make many decisions at once makes each of them a little worse. With crowding 0 (or
    one decision) these are k plain `correct()` draws, so the streams are identical either way.
    """
    if crowding == 0 or k <= 1:
        return [decide.correct() for _ in range(k)]
    rate = min(1.0, decide.error_rate * (1 + crowding * (k - 1)))
    return [decide.draw(rate) for _ in range(k)]


def doubts(decide: Decider, right: bool) -> bool:
    """One judgement of a result that is `right` (or not): True if the judge calls it wrong.

    The one feedback rule for every pattern: an evaluator reviewing a candidate and an agent
    checking its own valid-looking result make this same judgement at `checker_error_rate`, so a
    wrong result is noticed (and a right one doubted) equally often whoever checks. The judge never
    learns the right value from it: the policy only learns "looks wrong" and must redo the work."""
    return decide.judge() != right


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
