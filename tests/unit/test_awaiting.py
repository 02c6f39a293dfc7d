"""Awaiting several steps together: results in order, failures as each helper says, and a
single step awaited in the caller's own task."""

from __future__ import annotations

import asyncio

import pytest

from app.awaiting import all_done, each_settled, side_by_side


async def _task_of(value: int) -> tuple[int, asyncio.Task[object] | None]:
    await asyncio.sleep(0)
    return value, asyncio.current_task()


async def _fails(message: str) -> int:
    await asyncio.sleep(0)
    raise ValueError(message)


async def test_side_by_side_answers_in_order_and_awaits_one_step_in_place() -> None:
    me = asyncio.current_task()
    ((value, task),) = await side_by_side([_task_of(1)])
    assert value == 1 and task is me  # no task of its own
    several = await side_by_side([_task_of(1), _task_of(2), _task_of(3)])
    assert [v for v, _ in several] == [1, 2, 3]
    assert all(t is not me for _, t in several)
    with pytest.raises(ValueError, match="one"):
        await side_by_side([_fails("one")])
    with pytest.raises(ValueError, match="two"):
        await side_by_side([_task_of(1), _fails("two")])
    assert await side_by_side([]) == []


async def test_each_settled_answers_errors_as_values_but_raises_a_cancellation() -> None:
    (only,) = await each_settled([_fails("alone")])
    assert isinstance(only, ValueError) and str(only) == "alone"
    first, second = await each_settled([_task_of(7), _fails("second")])
    assert first[0] == 7 and isinstance(second, ValueError)  # type: ignore[index]

    async def cancelled() -> int:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await each_settled([cancelled()])
    with pytest.raises(asyncio.CancelledError):
        await each_settled([_task_of(1), cancelled()])


async def test_all_done_runs_every_step_then_raises_the_first_failure() -> None:
    ran: list[int] = []

    async def step(i: int) -> int:
        await asyncio.sleep(0)
        ran.append(i)
        if i == 1:
            raise ValueError("step 1")
        return i

    with pytest.raises(ValueError, match="step 1"):
        await all_done([step(0), step(1), step(2)])
    assert sorted(ran) == [0, 1, 2]
