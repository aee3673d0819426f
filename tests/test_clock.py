"""Real and virtual clocks: virtual time costs no waiting, and each asyncio task has its own timeline."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from patterns.clock import REAL_CLOCK, RealClock, VirtualClock, clock_of, gather_timed

from .fake_loop import fake_seconds


def test_virtual_sleep_does_not_really_wait() -> None:
    clock = VirtualClock()

    async def main() -> float:
        await clock.sleep(1000.0)
        return clock.now()

    assert fake_seconds(main()) == (1000.0, 0.0)  # 1,000 s on the virtual clock, none on the event loop's


def test_virtual_clock_starts_at_zero() -> None:
    assert VirtualClock().now() == 0.0


def test_virtual_negative_sleep_does_not_go_back() -> None:
    clock = VirtualClock()

    async def main() -> float:
        await clock.sleep(2.0)
        await clock.sleep(-5.0)
        return clock.now()

    assert asyncio.run(main()) == 2.0


def test_advance_to_moves_forward_only() -> None:
    clock = VirtualClock()

    async def main() -> list[float]:
        clock.advance_to(5.0)
        first = clock.now()
        clock.advance_to(3.0)
        return [first, clock.now()]

    assert asyncio.run(main()) == [5.0, 5.0]


def test_each_task_has_its_own_timeline() -> None:
    clock = VirtualClock()

    async def branch(seconds: float) -> tuple[float, float]:
        start = clock.now()
        await clock.sleep(seconds)
        return start, clock.now()

    async def main() -> tuple[list[tuple[float, float]], float]:
        await clock.sleep(10.0)
        a = asyncio.create_task(branch(1.0))
        b = asyncio.create_task(branch(4.0))
        ends = [await a, await b]
        return ends, clock.now()

    ends, parent = asyncio.run(main())
    assert ends == [(10.0, 11.0), (10.0, 14.0)]  # each starts at the parent's time, advances alone
    assert parent == 10.0  # plain tasks do not move the parent


def test_two_virtual_clocks_are_independent() -> None:
    a, b = VirtualClock(), VirtualClock()

    async def main() -> tuple[float, float]:
        await a.sleep(3.0)
        return a.now(), b.now()

    assert asyncio.run(main()) == (3.0, 0.0)


def test_gather_timed_ends_at_the_slowest_branch_not_the_sum() -> None:
    clock = VirtualClock()

    async def branch(seconds: float) -> float:
        await clock.sleep(seconds)
        return seconds

    async def main() -> tuple[list[float], float]:
        await clock.sleep(100.0)
        values = await gather_timed(clock, [branch(1.0), branch(3.0), branch(2.0)])
        return values, clock.now()

    values, now = asyncio.run(main())
    assert values == [1.0, 3.0, 2.0]  # in input order
    assert now == 103.0  # +3 s, not +6 s


def test_gather_timed_of_nothing_leaves_the_clock() -> None:
    clock = VirtualClock()

    async def main() -> tuple[list[object], float]:
        await clock.sleep(1.0)
        return await gather_timed(clock, []), clock.now()

    assert asyncio.run(main()) == ([], 1.0)


def test_gather_timed_branches_run_concurrently_in_real_time() -> None:
    async def branch() -> int:
        await REAL_CLOCK.sleep(0.1)
        return 1

    async def main() -> list[int]:
        return await gather_timed(REAL_CLOCK, [branch() for _ in range(5)])

    assert fake_seconds(main()) == ([1] * 5, pytest.approx(0.1))  # 5 x 0.1 s would be 0.5 s if serial


def test_real_clock_really_sleeps() -> None:
    clock = RealClock()

    async def main() -> float:
        start = clock.now()
        await clock.sleep(0.05)
        return clock.now() - start

    assert asyncio.run(main()) >= 0.045
    assert clock.virtual is False and VirtualClock.virtual is True


def test_real_clock_negative_sleep_returns() -> None:
    asyncio.run(RealClock().sleep(-1.0))


def test_clock_of_uses_the_models_clock() -> None:
    clock = VirtualClock()
    assert clock_of(SimpleNamespace(clock=clock)) is clock


def test_clock_of_defaults_to_wall_time() -> None:
    assert clock_of(object()) is REAL_CLOCK
    assert clock_of(SimpleNamespace(clock=None)) is REAL_CLOCK
