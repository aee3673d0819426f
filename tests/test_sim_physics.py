"""The laws of SimModel's error knobs, measured on SimModel directly: error_correlation,
checker_error_rate, context_decay (and the crowding formula they compose with)."""

from __future__ import annotations

import asyncio
import math
import random
from collections import Counter
from typing import Any

import pytest

from patterns.sim import Decider, Reply, Request, SimModel
from patterns.sim.physics import ErrorPhysics
from patterns.sim.policy import CROWDING, crowded
from patterns.specs import load_model
from tests.tasks.forcing import within


class OneDecision:
    """Answers 'right' or 'wrong' from one decision (or one judgement if the prompt says 'judge')."""

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        ok = decide.judge() if "judge" in request.last_user_text() else decide.correct()
        return Reply([{"type": "text", "text": "right" if ok else "wrong"}])


def _ask(model: SimModel, prompt: str) -> bool:
    reply = asyncio.run(model.create(messages=[{"role": "user", "content": prompt}], max_tokens=50))
    return reply.content[0].text == "right"


def _vote(model: SimModel, n: int) -> bool:
    """A majority of n samples of one identical request."""
    votes = [_ask(model, "decide") for _ in range(n)]
    return sum(votes) * 2 > n


def _vote_accuracy(correlation: float, n_votes: int, trials: int, e: float = 0.3) -> int:
    base = SimModel(OneDecision(), error_rate=e, error_correlation=correlation, context_decay=0.0, seed=5)
    return sum(_vote(base.fork(f"trial-{t}"), n_votes) for t in range(trials))


def test_at_full_correlation_a_vote_is_exactly_as_accurate_as_one_sample() -> None:
    trials, e = 600, 0.3
    base = SimModel(OneDecision(), error_rate=e, error_correlation=1.0, context_decay=0.0, seed=5)
    for t in range(50):  # every sample repeats the first one's decision
        model = base.fork(f"t{t}")
        assert len({_ask(model, "decide") for _ in range(5)}) == 1
    right = _vote_accuracy(1.0, 5, trials, e)
    assert within(right, trials, 1 - e)


def test_at_zero_correlation_samples_are_independent_and_the_vote_gains() -> None:
    trials, e = 600, 0.3
    p_vote = sum(math.comb(3, k) * (1 - e) ** k * e ** (3 - k) for k in (2, 3))  # 0.784
    assert within(_vote_accuracy(0.0, 3, trials, e), trials, p_vote)


def test_partial_correlation_repeats_the_first_decision_at_its_rate() -> None:
    """P(second sample agrees with the first) = rho + (1 - rho) * (e^2 + (1-e)^2)."""
    rho, e, trials = 0.5, 0.3, 800
    base = SimModel(OneDecision(), error_rate=e, error_correlation=rho, context_decay=0.0, seed=9)
    agree = 0
    for t in range(trials):
        model = base.fork(f"t{t}")
        agree += _ask(model, "decide") == _ask(model, "decide")
    assert within(agree, trials, rho + (1 - rho) * (e * e + (1 - e) ** 2))


def test_correlation_is_per_request_different_requests_stay_independent() -> None:
    e, trials = 0.4, 800
    base = SimModel(OneDecision(), error_rate=e, error_correlation=1.0, context_decay=0.0, seed=3)
    agree = 0
    for t in range(trials):
        model = base.fork(f"t{t}")
        agree += _ask(model, "decide A") == _ask(model, "decide B")
    assert within(agree, trials, e * e + (1 - e) ** 2)


@pytest.mark.parametrize(("e", "c"), [(0.0, 0.3), (0.3, 0.0), (0.1, 0.4)])
def test_checker_error_rate_is_separate_from_error_rate(e: float, c: float) -> None:
    model = SimModel(OneDecision(), error_rate=e, checker_error_rate=c, context_decay=0.0, seed=1)
    n = 600
    decisions = sum(not _ask(model, f"decide {i}") for i in range(n))
    judgements = sum(not _ask(model, f"judge {i}") for i in range(n))
    assert within(decisions, n, e) and within(judgements, n, c)


def test_checker_error_rate_defaults_to_error_rate() -> None:
    model = SimModel(OneDecision(), error_rate=0.25, context_decay=0.0, seed=2)
    n = 600
    assert within(sum(not _ask(model, f"judge {i}") for i in range(n)), n, 0.25)
    assert model.physics.rates(0) == (0.25, 0.25)


def test_context_decay_formula() -> None:
    physics = ErrorPhysics(error_rate=0.1, checker_error_rate=0.2, context_decay=0.5)
    assert physics.rates(0) == (0.1, 0.2)
    low, high = physics.rates(20_000)  # 1 + 0.5 * 2 = 2
    assert math.isclose(low, 0.2) and math.isclose(high, 0.4)
    assert ErrorPhysics(error_rate=0.5, context_decay=10.0).rates(50_000) == (1.0, 1.0)  # capped
    assert ErrorPhysics(error_rate=0.1).rates(1_000_000) == (0.1, 0.1)  # no decay: flat


def test_context_decay_raises_the_measured_rate_of_a_long_prompt() -> None:
    class Seen(OneDecision):
        def __init__(self) -> None:
            self.rates: list[float] = []

        def respond(self, request: Request, decide: Decider) -> Reply:
            self.rates.append(decide.error_rate)
            return super().respond(request, decide)

    policy = Seen()
    model = SimModel(policy, error_rate=0.1, context_decay=1.0, error_correlation=0.0, seed=4)
    long_prompt = "decide " + "word " * 20_000
    n, wrong = 400, 0
    for i in range(n):
        wrong += not _ask(model, f"{i} {long_prompt}")
    tokens = model.tokens.count_request(system="", tools=[], messages=[
        {"role": "user", "content": f"0 {long_prompt}"}])
    expected = 0.1 * (1 + tokens / 10_000)
    assert math.isclose(policy.rates[0], expected, rel_tol=1e-3)
    assert within(wrong, n, expected)


def test_crowding_formula_and_default() -> None:
    assert CROWDING > 0
    trials, e, k, crowding = 400, 0.1, 4, 0.5
    wrong = Counter[bool]()
    for t in range(trials):
        wrong.update(crowded(Decider(random.Random(t), e), k, crowding))
    assert within(wrong[False], trials * k, e * (1 + crowding * (k - 1)))


@pytest.mark.parametrize("knobs", [{"error_correlation": 1.5}, {"checker_error_rate": -0.1},
                                   {"context_decay": -1.0}])
def test_bad_physics_knobs_are_value_errors(knobs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(knobs))):
        SimModel(**knobs)


def test_physics_knobs_are_set_from_a_spec() -> None:
    model = load_model("sim:error_correlation=0.9,checker_error_rate=0.05,context_decay=0.2")
    assert isinstance(model, SimModel)
    assert model.physics == ErrorPhysics(0.0, 0.05, 0.2, 0.9)


class KeyedDecision:
    """Decides the key named on the last user turn ("decide K"), whatever else the request holds."""

    def accepts(self, request: Request) -> bool:
        return True

    def respond(self, request: Request, decide: Decider) -> Reply:
        key = request.last_user_text().split("decide ", 1)[-1].strip()
        return Reply([{"type": "text", "text": "right" if decide.correct(f"test|{key}") else "wrong"}])


def _agent_twice(model: SimModel, key: str) -> tuple[bool, bool]:
    """An agent's conversation deciding `key`, then, after a failure it was told of, deciding it again."""
    async def turns() -> tuple[bool, bool]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": f"task: decide {key}"}]
        first = await model.create(messages=messages, max_tokens=50, system="You are an agent.")
        messages += [{"role": "assistant", "content": first.content[0].text},
                     {"role": "user", "content": f"That failed, try again: decide {key}"}]
        second = await model.create(messages=messages, max_tokens=50, system="You are an agent.")
        return first.content[0].text == "right", second.content[0].text == "right"

    return asyncio.run(turns())


def _workflow_twice(model: SimModel, key: str) -> tuple[bool, bool]:
    """A workflow step deciding `key`, then its retry: a fresh request with other words, the same decision."""
    async def steps() -> tuple[bool, bool]:
        first = await model.create(messages=[{"role": "user", "content": f"Step 1: decide {key}"}], max_tokens=50)
        retry = await model.create(messages=[{"role": "user", "content": f"Retry with feedback: decide {key}"}],
                                   max_tokens=50)
        return first.content[0].text == "right", retry.content[0].text == "right"

    return asyncio.run(steps())


@pytest.mark.parametrize("rho", [0.0, 0.5, 1.0])
def test_an_agent_redoing_a_decision_is_correlated_exactly_as_a_workflow_retry(rho: float) -> None:
    """Correlation belongs to the decision: the agent's second request has grown (it never repeats), the
    workflow's retry has other words, and both repeat the first outcome at rho + (1 - rho)(e^2 + (1-e)^2)."""
    e, trials = 0.3, 700
    base = SimModel(KeyedDecision(), error_rate=e, error_correlation=rho, context_decay=0.0, seed=11)
    expected = rho + (1 - rho) * (e * e + (1 - e) ** 2)
    agent = sum(a == b for a, b in (_agent_twice(base.fork(f"a{t}"), "the-field") for t in range(trials)))
    workflow = sum(a == b for a, b in (_workflow_twice(base.fork(f"w{t}"), "the-field") for t in range(trials)))
    assert within(agent, trials, expected) and within(workflow, trials, expected)


def test_different_decisions_in_one_trial_stay_independent() -> None:
    e, trials = 0.4, 800
    base = SimModel(KeyedDecision(), error_rate=e, error_correlation=1.0, context_decay=0.0, seed=12)
    agree = 0
    for t in range(trials):
        model = base.fork(f"t{t}")
        a = asyncio.run(model.create(messages=[{"role": "user", "content": "decide A"}], max_tokens=50))
        b = asyncio.run(model.create(messages=[{"role": "user", "content": "decide B"}], max_tokens=50))
        agree += a.content[0].text == b.content[0].text
    assert within(agree, trials, e * e + (1 - e) ** 2)
