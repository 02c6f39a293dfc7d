"""The share state writer on a real SQLite file: rounds hand back outcomes, apply nothing
themselves, and leave reserved partitions for a later round."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from app.errors import Conflict, ErrorCode
from app.metadata.db import Database
from app.metadata.share_store import ShareStore
from app.share.dead_letters import DeadLetters
from app.share.partition import AckType, Staged
from app.share.writer import StateWriter
from tests.unit.share.test_partition import A, Harness


@pytest.fixture
def store(metadata_db: Database) -> ShareStore:
    return ShareStore(metadata_db)


def no_dead_letter_topic(group_id: str) -> None:
    return None


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    h = Harness(tmp_path)
    h.produce(3)
    h.fetch("c1")
    return h


@pytest.fixture
def writer(store: ShareStore, h: Harness) -> StateWriter:
    # no group here has a dead-letter topic: nothing is ever copied
    dead_letters = DeadLetters(None, None)  # type: ignore[arg-type]
    return StateWriter(store, dead_letters, now_ms=h.clock.now_ms)


async def test_a_round_hands_back_its_outcome_and_applies_nothing(
    store: ShareStore, writer: StateWriter, h: Harness
) -> None:
    await store.save_group("g", {}, 0)
    staged = h.ack("c1", 0, 0, A)
    assert staged is not None
    waiter = asyncio.create_task(writer.persist(staged))
    await writer.wait()
    outcome = await writer.round(no_dead_letter_topic)
    assert (outcome.partitions, outcome.committed, outcome.failed) == ([h.sp], [staged], [])
    assert h.states(0, 0) == [(0, "acquired", 1)]  # durable, not applied: the caller does
    assert [(r.start_offset, r.batches) for r in await store.load_partitions()] == [(1, [])]
    h.sp.complete(staged, h.now, h.limits)
    assert not waiter.done()
    writer.answer(outcome)
    await asyncio.wait_for(waiter, 5)


async def test_a_fenced_partition_fails_its_changes(
    store: ShareStore, writer: StateWriter, h: Harness
) -> None:
    await store.save_group("g", {}, 0)
    await store.replace("g", h.sp.topic_id, [(0, 5, 0)], 0)  # a reset: state epoch 5
    staged = h.ack("c1", 0, 0, AckType.REJECT)
    assert staged is not None
    writer.mark(h.sp)
    outcome = await writer.round(no_dead_letter_topic)
    assert outcome.committed == []
    ((failed, error),) = outcome.failed
    assert failed is staged and isinstance(error, Conflict)
    assert error.code is ErrorCode.INVALID_RECORD_STATE


async def test_a_reserved_partition_is_written_once_released(
    store: ShareStore, writer: StateWriter, h: Harness
) -> None:
    await store.save_group("g", {}, 0)
    async with writer.exclusive([h.sp]):
        staged = h.ack("c1", 1, 1, A)
        assert staged is not None
        writer.mark(h.sp)
        await writer.wait()
        skipped = await writer.round(no_dead_letter_topic)
        assert skipped.partitions == [] and await store.load_partitions() == []
        writer.answer(skipped)
    await asyncio.wait_for(writer.wait(), 5)  # the release wakes the writer
    outcome = await writer.round(no_dead_letter_topic)
    assert outcome.committed == [staged]
    writer.answer(outcome)


async def test_exclusive_waits_for_the_round_under_way(
    store: ShareStore, writer: StateWriter, h: Harness
) -> None:
    await store.save_group("g", {}, 0)
    writer.mark(h.sp)
    outcome = await writer.round(no_dead_letter_topic)  # answered below: still under way
    entered = asyncio.Event()

    async def reserve() -> None:
        async with writer.exclusive([h.sp]):
            entered.set()

    task = asyncio.create_task(reserve())
    for _ in range(5):
        await asyncio.sleep(0)  # yields only: the reservation waits for the answer
    assert not entered.is_set()
    writer.answer(outcome)
    await asyncio.wait_for(task, 5)


class GatedCopies:
    """Dead-letter copies that wait for ``gate``: a round stays under way until it opens."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.copying = asyncio.Event()
        self.copied: list[object] = []

    async def copy(self, staged: list[Staged], topic_of: Callable[[str], str | None]) -> None:
        self.copying.set()
        await self.gate.wait()
        self.copied.extend(
            (s, topic_of(s.partition.group_id))
            for s in staged
            if s.dlq and not s.partition.retired and topic_of(s.partition.group_id) is not None
        )


async def test_a_round_cancelled_midway_is_taken_again_whole(store: ShareStore, h: Harness) -> None:
    await store.save_group("g", {}, 0)
    copies = GatedCopies()
    writer = StateWriter(store, copies, now_ms=h.clock.now_ms)  # type: ignore[arg-type]
    staged = h.ack("c1", 0, 0, AckType.REJECT)
    assert staged is not None
    waiter = asyncio.create_task(writer.persist(staged))
    flushed = asyncio.create_task(writer.flush(h.sp))
    await writer.wait()
    cancelled = asyncio.create_task(writer.round(lambda group_id: "dlq"))
    await asyncio.wait_for(copies.copying.wait(), 5)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert await store.load_partitions() == []
    await asyncio.wait_for(writer.wait(), 5)  # marked again
    copies.gate.set()
    outcome = await writer.round(lambda group_id: "dlq")
    assert outcome.committed == [staged] and copies.copied == [(staged, "dlq")]
    h.sp.complete(staged, h.now, h.limits)
    writer.answer(outcome)
    await asyncio.wait_for(asyncio.gather(waiter, flushed), 5)
