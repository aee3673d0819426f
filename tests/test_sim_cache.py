"""SimModel's prompt cache against hand-computed prefixes (patterns/sim/cache.py).

Every expected figure below is the documented token estimate worked out by hand: a tool costs
TOOL_OVERHEAD (8) + ceil(len(its canonical JSON) / 4), a message MESSAGE_OVERHEAD (4) + ceil(len(its
canonical JSON) / 4), the system prompt ceil(len(text) / 4), and every request REQUEST_OVERHEAD (3),
which belongs to no cached prefix.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import anthropic
import pytest

from patterns.clock import gather_timed
from patterns.sim import Decider, Reply, Request, SimModel
from patterns.sim.cache import min_cacheable_tokens
from patterns.sim.tokens import canonical_json

E = {"type": "ephemeral"}
SYSTEM = "s" * 4400  # 1100 tokens: above Sonnet's 1,024 minimum on its own


class Says:
    """A policy that answers "ok" whatever it is asked, and keeps what it saw."""

    def __init__(self) -> None:
        self.seen: list[Request] = []

    def respond(self, request: Request, decide: Decider) -> Reply:
        self.seen.append(request)
        return Reply([{"type": "text", "text": "ok"}])


def msg_tokens(message: dict[str, Any]) -> int:
    return 4 + math.ceil(len(canonical_json(message)) / 4)


def user(text: str, *, mark: bool = False) -> dict[str, Any]:
    if mark:
        return {"role": "user", "content": [{"type": "text", "text": text, "cache_control": E}]}
    return {"role": "user", "content": text}


def marked_system(text: str = SYSTEM) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text, "cache_control": E}]


def usage(message: Any) -> tuple[int, int, int]:
    u = message.usage
    return u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens


def calls(model: SimModel, *requests: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(input, cache write, cache read) of each request, sent one after the other on the model's clock."""

    async def go() -> list[tuple[int, int, int]]:
        return [usage(await model.create(max_tokens=50, **r)) for r in requests]

    return asyncio.run(go())


def test_three_requests_sharing_a_marked_system_prompt_write_it_once_then_read_it() -> None:
    requests = [{"system": marked_system(), "messages": [user(f"question {k}")]} for k in range(3)]
    got = calls(SimModel(Says()), *requests)
    # by hand: {"content":"question 0","role":"user"} is 38 characters: 4 + ceil(38 / 4) = 14 tokens
    assert msg_tokens(user("question 0")) == 14
    tail = 3 + 14  # the unmarked question and the request's overhead
    assert got == [(tail, 1100, 0), (tail, 0, 1100), (tail, 0, 1100)]


def test_the_minimum_cacheable_length_decides_whether_a_prefix_is_cached() -> None:
    below, exact = "s" * 4092, "s" * 4096  # 1023 and 1024 tokens
    q = user("q")
    assert calls(SimModel(Says()), *[{"system": marked_system(below), "messages": [q]}] * 2) == \
        [(3 + 1023 + msg_tokens(q), 0, 0)] * 2
    assert calls(SimModel(Says()), *[{"system": marked_system(exact), "messages": [q]}] * 2) == \
        [(3 + msg_tokens(q), 1024, 0), (3 + msg_tokens(q), 0, 1024)]
    assert min_cacheable_tokens("claude-sonnet-4-5") == 1024 and min_cacheable_tokens("claude-haiku-4-5") == 4096
    haiku = SimModel(Says(), price_as="claude-haiku-4-5")
    assert calls(haiku, *[{"system": marked_system(exact), "messages": [q]}] * 2) == \
        [(3 + 1024 + msg_tokens(q), 0, 0)] * 2  # Haiku 4.5's minimum is 4,096


def test_a_breakpoint_moved_to_the_last_message_reads_the_last_turn_and_writes_the_new_part() -> None:
    """The agent's placement: each turn marks its last message; the previous mark is found by lookback."""
    m1, a1, u2, a2, u3 = (user("first " * 10), {"role": "assistant", "content": [{"type": "text", "text": "a1"}]},
                          user("second"), {"role": "assistant", "content": [{"type": "text", "text": "a2"}]},
                          user("third"))
    marked = {id(m): user(m["content"], mark=True) for m in (m1, u2, u3)}
    p1 = 1100 + msg_tokens(m1)  # the string message is read as the string it stands for
    p2 = p1 + msg_tokens(a1) + msg_tokens(u2)
    p3 = p2 + msg_tokens(a2) + msg_tokens(u3)
    got = calls(SimModel(Says()), {"system": SYSTEM, "messages": [marked[id(m1)]]},
                {"system": SYSTEM, "messages": [m1, a1, marked[id(u2)]]},
                {"system": SYSTEM, "messages": [m1, a1, u2, a2, marked[id(u3)]]})
    assert got == [(3, p1, 0), (3, p2 - p1, p1), (3, p3 - p2, p2)]


def test_a_marked_tool_list_is_a_prefix_of_its_own() -> None:
    tool = {"name": "look", "description": "d" * 4200, "input_schema": {"type": "object", "properties": {}}}
    t_tokens = 8 + math.ceil(len(canonical_json(tool)) / 4)
    assert t_tokens >= 1024
    req = [{"tools": [{**tool, "cache_control": E}], "system": f"step {k}", "messages": [user("go")]} for k in (1, 2)]
    got = calls(SimModel(Says()), *req)
    assert [g[1:] for g in got] == [(t_tokens, 0), (0, t_tokens)]  # the system prompt differs: only tools match


def test_a_breakpoint_inside_a_message_caches_the_message_cut_after_that_block() -> None:
    doc = {"type": "text", "text": "d" * 4400}

    def ask(question: str) -> dict[str, Any]:
        return {"role": "user", "content": [{**doc, "cache_control": E}, {"type": "text", "text": question}]}

    cut = msg_tokens({"role": "user", "content": [doc]})
    got = calls(SimModel(Says()), {"messages": [ask("Who?")]}, {"messages": [ask("When, exactly?")]})
    assert [g[1:] for g in got] == [(cut, 0), (0, cut)]
    full = msg_tokens({"role": "user", "content": [doc, {"type": "text", "text": "Who?"}]})
    assert got[0][0] == 3 + full - cut


def test_lookback_reaches_20_blocks_back_and_no_further() -> None:
    first = user("x" * 4400, mark=True)

    def second(blocks: int) -> dict[str, Any]:
        reply = {"role": "assistant", "content": [{"type": "text", "text": f"part {i}"} for i in range(blocks)]}
        return {"messages": [user("x" * 4400), reply, user("next", mark=True)]}

    p1 = msg_tokens(user("x" * 4400))
    near = calls(SimModel(Says()), {"messages": [first]}, second(18))  # 19 blocks back: found
    far = calls(SimModel(Says()), {"messages": [first]}, second(20))  # 21 blocks back: out of reach
    assert near[1][2] == p1 and far[1][2] == 0 and far[1][1] > p1


def test_requests_sent_at_the_same_moment_all_write_and_a_later_one_reads() -> None:
    model = SimModel(Says())
    request = {"system": marked_system(), "messages": [user("vote")], "max_tokens": 50}

    async def go() -> list[tuple[int, int, int]]:
        together = await gather_timed(model.clock, [model.create(**request) for _ in range(3)])  # parallel branches
        return [*map(usage, together), usage(await model.create(**request))]

    got = asyncio.run(go())
    assert [g[1:] for g in got] == [(1100, 0)] * 3 + [(0, 1100)]


def test_an_entry_expires_five_minutes_after_its_last_use() -> None:
    model = SimModel(Says())
    request = {"system": marked_system(), "messages": [user("q")], "max_tokens": 50}

    async def go() -> list[tuple[int, int, int]]:
        out = [usage(await model.create(**request))]
        await model.clock.sleep(290)
        out.append(usage(await model.create(**request)))  # read: the lifetime starts again
        await model.clock.sleep(290)
        out.append(usage(await model.create(**request)))
        await model.clock.sleep(301)
        out.append(usage(await model.create(**request)))  # expired: written again
        return out

    assert [g[1:] for g in asyncio.run(go())] == [(1100, 0), (0, 1100), (0, 1100), (1100, 0)]


def test_a_fork_starts_with_an_empty_cache() -> None:
    model = SimModel(Says())
    request = {"system": marked_system(), "messages": [user("q")]}
    assert calls(model, request, request)[1][1:] == (0, 1100)
    twin = model.fork("trial-2")
    assert calls(twin, request)[0][1:] == (1100, 0)


def test_automatic_caching_marks_the_last_block_of_the_last_message() -> None:
    m1 = user("y" * 4400)
    got = calls(SimModel(Says()), {"messages": [m1], "cache_control": E},
                {"messages": [m1, {"role": "assistant", "content": "ok"}, user("more")], "cache_control": E})
    assert got[0][1:] == (msg_tokens(m1), 0) and got[1][2] == msg_tokens(m1)


def test_the_breakpoints_change_nothing_but_the_split_of_the_prompt() -> None:
    """cache_control is not content: same reply, same prompt total, the policy sees the same request."""
    plain = {"system": SYSTEM, "messages": [user("hello")]}
    policy_on, policy_off = Says(), Says()
    on = calls(SimModel(policy_on), {"system": marked_system(), "messages": [user("hello", mark=True)]})[0]
    off = calls(SimModel(policy_off), plain)[0]
    assert sum(on) == sum(off) and off[1:] == (0, 0) and on[0] == 3
    assert policy_on.seen[0].messages == policy_off.seen[0].messages == [user("hello")]
    assert policy_on.seen[0].system == SYSTEM


@pytest.mark.parametrize("bad, words", [
    ({"messages": [user(f"m{i}", mark=True) if i % 2 == 0 else {"role": "assistant", "content": [
        {"type": "text", "text": "a", "cache_control": E}]} for i in range(5)]}, "A maximum of 4 blocks"),
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": "q", "cache_control": {"type": "x"}}]}]},
     "cache_control.type"),
    ({"system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral", "ttl": "2h"}}],
      "messages": [user("q")]}, "cache_control.ttl"),
])
def test_a_malformed_or_excessive_cache_control_is_the_apis_400(bad: dict[str, Any], words: str) -> None:
    with pytest.raises(anthropic.BadRequestError, match=words):
        calls(SimModel(Says()), bad)
