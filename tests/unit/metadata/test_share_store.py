"""The share-state queries on a real SQLite file: round trip, epoch fencing, reset, delete."""

from __future__ import annotations

import pytest

from app.metadata.db import Database
from app.metadata.share_store import PartitionRow, ShareStore


@pytest.fixture
def store(metadata_db: Database) -> ShareStore:
    return ShareStore(metadata_db)


async def test_round_trip_and_replace_batches(store: ShareStore) -> None:
    await store.save_group("g", {"delivery_count_limit": 3}, 1)
    row = PartitionRow("g", 7, 0, 0, 10, [(11, 12, 0, 2), (14, 14, 4, 1)])
    assert await store.write([row], 5) == [True]
    assert await store.write([PartitionRow("g", 7, 0, 0, 12, [(14, 14, 4, 1)])], 6) == [True]
    (loaded,) = await store.load_partitions()
    assert (loaded.start_offset, loaded.batches) == (12, [(14, 14, 4, 1)])
    groups = await store.load_groups()
    assert [(g.group_id, g.config) for g in groups] == [("g", {"delivery_count_limit": 3})]


async def test_a_write_staged_before_a_reset_is_fenced(store: ShareStore) -> None:
    await store.save_group("g", {}, 1)
    assert await store.write([PartitionRow("g", 7, 0, 0, 10, [(11, 11, 2, 1)])], 1) == [True]
    await store.replace("g", 7, [(0, 1, 3)], 2)
    stale = PartitionRow("g", 7, 0, 0, 20, [(21, 21, 2, 1)])
    fresh = PartitionRow("g", 7, 1, 0, 0, [])
    assert await store.write([stale, fresh], 3) == [False, True]
    rows = {r.partition: r for r in await store.load_partitions()}
    assert (rows[0].state_epoch, rows[0].start_offset, rows[0].batches) == (1, 3, [])


async def test_forget_topic_and_delete_group(store: ShareStore) -> None:
    await store.save_group("g", {}, 1)
    await store.write(
        [PartitionRow("g", 7, 0, 0, 1, [(2, 2, 4, 1)]), PartitionRow("g", 8, 0, 0, 1, [])], 1
    )
    await store.forget_topic("g", 7)
    assert [r.topic_id for r in await store.load_partitions()] == [8]
    await store.delete_group("g")
    assert await store.load_partitions() == []
    assert await store.load_groups() == []
