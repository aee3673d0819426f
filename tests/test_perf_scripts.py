"""The perf scripts run and print their tables (correctness only: no figure is checked, see docs/performance.md)."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.perf import fake_model, loop_overhead


def test_both_fakes_give_every_loop_the_same_conversation() -> None:
    """The parsed fake builds each reply anew; what the loops see (and so the work they do) is the same."""
    replies = fake_model.script(5)
    runs = loop_overhead.loops(["inline", "async"])
    for run in runs.values():
        prebuilt = asyncio.run(run(fake_model.Fake(replies)))
        parsed = asyncio.run(run(fake_model.Parsed(replies)))
        assert loop_overhead.json_len(prebuilt) == loop_overhead.json_len(parsed) > 0
        assert len(prebuilt) == len(parsed) == 2 * 5


def test_the_floor_yardstick_builds_the_conversation_arun_agent_builds() -> None:
    """The yardstick does the same work as the loop it bounds: the same messages, block for block."""
    replies = fake_model.script(6)
    runs = loop_overhead.loops(["inline"], with_floor=True)
    ours = asyncio.run(runs["arun_agent (inline tool)"](fake_model.Fake(replies)))
    floor = asyncio.run(runs["floor: the same bookkeeping in one function"](fake_model.Fake(replies)))
    assert floor == ours


class Recording(fake_model.Fake):
    """Keeps what each call sent: the messages and tools, as the model saw them."""

    def __init__(self, replies: list) -> None:
        super().__init__(replies)
        self.sent: list[tuple[list, list]] = []

    async def create(self, **params):
        self.sent.append((list(params["messages"]), params.get("tools")))
        return await super().create(**params)


def test_the_floor_sends_the_requests_arun_agent_sends_cache_breakpoints_included() -> None:
    replies = fake_model.script(4)
    runs = loop_overhead.loops(["inline"], with_floor=True)
    ours, floor = Recording(replies), Recording(replies)
    asyncio.run(runs["arun_agent (inline tool)"](ours))
    asyncio.run(runs["floor: the same bookkeeping in one function"](floor))
    assert floor.sent == ours.sent
    assert all(messages[-1]["content"][-1].get("cache_control") for messages, _ in ours.sent[1:])
    plain = Recording(replies)
    asyncio.run(runs["arun_agent (inline tool, prompt_cache=False)"](plain))
    assert not any("cache_control" in repr(sent) for sent in plain.sent)


def test_the_parsed_fake_builds_a_new_reply_on_every_call() -> None:
    replies = fake_model.script(2)
    fake = fake_model.Parsed(replies)
    first = asyncio.run(fake.create())
    assert first == replies[0] and first is not replies[0]


@pytest.mark.parametrize("fake", ["prebuilt", "parsed"])
def test_loop_overhead_prints_its_tables(fake: str, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(loop_overhead.main(["--tool", "inline", "--reps-scale", "0.001", "--fake", fake]))
    out = capsys.readouterr().out
    assert f"{fake} fake" in out and "| textbook |" in out and "| arun_agent (inline tool) |" in out
    assert "| floor: the same bookkeeping in one function |" in out
    assert "vs textbook N=10" in out and "peak memory / conversation deep size" in out
    assert "| one agent step's bookkeeping, each piece timed alone | µs |" in out and "For scale" in out


def test_the_memory_script_measures_each_sweep_in_its_own_process(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.perf import memory

    memory.main(["--trials", "21,42", "--tasks", "pipeline"])
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines[2:]]
    assert [int(r[0]) for r in rows] == [21, 42] and float(rows[0][3]) == 1.0
    assert all(100 < float(r[2]) < 2000 for r in rows)  # a peak RSS in MB, read from the child itself
