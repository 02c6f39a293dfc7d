"""The idempotent producer over HTTP: every retry case of docs/semantics.md#sequence-rules."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from app.clock import FakeClock
from app.config import Settings
from tests.integration.helpers import assert_error, create_topic
from tests.integration.txn_helpers import (
    batch,
    error_code,
    init_producer,
    partition_info,
    produce_ok,
    produce_one,
    produce_raw,
    values,
)


async def test_ids_are_new_each_time_and_start_at_epoch_0(client: httpx.AsyncClient) -> None:
    a = await init_producer(client)
    b = await init_producer(client, transactional_id=None)
    assert a[1] == b[1] == 0
    assert a[0] != b[0]


async def test_in_order_batches_append_and_count_records(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client)
    first = await produce_one(client, pid, epoch, "t", 0, 0, n=3)
    second = await produce_one(client, pid, epoch, "t", 0, 3, n=2)
    assert (first["base_offset"], first["error"]) == (0, None)
    assert (second["base_offset"], second["error"]) == (3, None)
    assert await values(client, "t") == ["v0", "v1", "v2", "v3", "v4"]


async def test_retry_of_each_of_the_last_five_batches_answers_its_offset(
    client: httpx.AsyncClient,
) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client)
    offsets = []
    for i in range(6):
        res = await produce_one(client, pid, epoch, "t", 0, seq=2 * i, n=2)
        offsets.append(res["base_offset"])
    for i in range(1, 6):  # the last five are retained
        res = await produce_one(client, pid, epoch, "t", 0, seq=2 * i, n=2)
        assert (res["base_offset"], res["error"]) == (offsets[i], None)
    # the oldest fell out of the window: OUT_OF_ORDER, never a second copy
    res = await produce_one(client, pid, epoch, "t", 0, seq=0, n=2)
    assert error_code(res) == "OUT_OF_ORDER_SEQUENCE_NUMBER"
    assert (await partition_info(client, "t"))["high_watermark"] == 12


async def test_gap_and_partial_overlap_are_out_of_order(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client)
    await produce_one(client, pid, epoch, "t", 0, 0, n=3)
    gap = await produce_one(client, pid, epoch, "t", 0, 4)
    overlap = await produce_one(client, pid, epoch, "t", 0, 1, n=3)
    for res in (gap, overlap):
        assert error_code(res) == "OUT_OF_ORDER_SEQUENCE_NUMBER"
        assert res["base_offset"] == -1
        assert res["error"]["kafka_code"] == 45
    assert (await partition_info(client, "t"))["high_watermark"] == 3


async def test_stale_epoch_and_new_epoch_must_start_at_zero(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, _ = await init_producer(client)
    await produce_one(client, pid, 0, "t", 0, 0, n=2)
    bumped = await init_producer(client, producer_id=pid, producer_epoch=0)
    assert bumped == (pid, 1)
    res = await produce_one(client, pid, 1, "t", 0, 2)
    assert error_code(res) == "OUT_OF_ORDER_SEQUENCE_NUMBER"
    assert (await produce_one(client, pid, 1, "t", 0, 0))["error"] is None
    stale = await produce_one(client, pid, 0, "t", 0, 2)
    assert error_code(stale) == "INVALID_PRODUCER_EPOCH"
    assert stale["error"]["kafka_code"] == 47
    assert (await partition_info(client, "t"))["high_watermark"] == 3


async def test_sequence_wraps_at_int_max(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client)
    top = 2**31 - 1
    # a producer with no state on a partition may start anywhere
    assert (await produce_one(client, pid, epoch, "t", 0, top - 1, n=2))["error"] is None
    wrapped = await produce_one(client, pid, epoch, "t", 0, 0, n=2)
    assert (wrapped["base_offset"], wrapped["error"]) == (2, None)
    dup = await produce_one(client, pid, epoch, "t", 0, 0, n=2)
    assert dup["base_offset"] == 2
    # a batch that itself wraps: seq top .. 1
    pid2, _ = await init_producer(client)
    assert (await produce_one(client, pid2, 0, "t", 0, top, n=2))["error"] is None
    assert (await produce_one(client, pid2, 0, "t", 0, 1))["error"] is None
    assert (await produce_one(client, pid2, 0, "t", 0, top, n=2))["base_offset"] == 4


async def test_no_state_producer_may_start_anywhere_per_partition(
    client: httpx.AsyncClient,
) -> None:
    await create_topic(client, "t", partitions=2)
    pid, epoch = await init_producer(client)
    res = await produce_ok(client, pid, epoch, [batch("t", 0, 100), batch("t", 1, 7)])
    assert [r["error"] for r in res] == [None, None]
    assert error_code(await produce_one(client, pid, epoch, "t", 0, 7)) == (
        "OUT_OF_ORDER_SEQUENCE_NUMBER"
    )
    assert (await produce_one(client, pid, epoch, "t", 1, 8))["error"] is None


async def test_unknown_producer_id_is_400_and_appends_nothing(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    r = await produce_raw(client, 987654, 0, [batch("t", 0, 0)])
    assert_error(r, 400, "UNKNOWN_PRODUCER_ID")
    r = await client.post("/v1/producers", json={"producer_id": 987654, "producer_epoch": 0})
    assert_error(r, 400, "UNKNOWN_PRODUCER_ID")
    assert (await partition_info(client, "t"))["high_watermark"] == 0


async def test_per_batch_errors_leave_other_batches_alone(client: httpx.AsyncClient) -> None:
    await create_topic(client, "t")
    pid, epoch = await init_producer(client)
    res = await produce_ok(
        client, pid, epoch, [batch("t", 0, 0), batch("t", 5, 0), batch("nope", 0, 0)]
    )
    assert res[0]["error"] is None
    assert [error_code(r) for r in res[1:]] == ["UNKNOWN_TOPIC_OR_PARTITION"] * 2
    assert [r["base_offset"] for r in res] == [0, -1, -1]


async def test_epoch_exhaustion_rolls_to_a_new_producer_id(client: httpx.AsyncClient) -> None:
    pid, _ = await init_producer(client)
    new_pid, epoch = await init_producer(client, producer_id=pid, producer_epoch=32765)
    assert new_pid != pid and epoch == 0
    assert await init_producer(client, producer_id=pid, producer_epoch=10) == (pid, 11)


async def test_producer_ids_never_repeat_across_restarts(settings_factory) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.conftest import running

    seen: set[int] = set()
    for _ in range(3):
        async with running(settings_factory(producer_id_block_size=2)) as s:
            for _ in range(3):
                pid, _ = await init_producer(s.client)
                assert pid not in seen
                seen.add(pid)
    assert len(seen) == 9


async def test_duplicate_state_survives_a_clean_restart(settings_factory) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.conftest import running

    settings = settings_factory()
    async with running(settings) as s:
        await create_topic(s.client, "t")
        pid, epoch = await init_producer(s.client)
        first = await produce_one(s.client, pid, epoch, "t", 0, 0, n=4)
    async with running(settings) as s:
        again = await produce_one(s.client, pid, epoch, "t", 0, 0, n=4)
        assert again == first
        nxt = await produce_one(s.client, pid, epoch, "t", 0, 4)
        assert (nxt["base_offset"], nxt["error"]) == (4, None)
        assert error_code(await produce_one(s.client, pid, epoch, "t", 0, 9)) == (
            "OUT_OF_ORDER_SEQUENCE_NUMBER"
        )


async def test_replayed_state_is_not_expired_by_old_record_timestamps(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> None:
    """After a crash (no producer-state snapshot, the log is replayed) a producer whose records
    carry old create times is as alive as before: its idleness counts from when it wrote, not
    from the timestamps its records carry, so the producer-expiry sweep keeps it and a retry
    is still recognised instead of being appended a second time."""
    import glob
    import os

    from tests.integration.conftest import running

    settings = settings_factory(producer_id_expiration_ms=3_600_000)
    old = {
        "topic": "t",
        "partition": 0,
        "base_sequence": 0,
        "records": [{"value": "a", "timestamp": 1_000}, {"value": "b", "timestamp": 2_000}],
    }
    async with running(settings, clock) as s:
        await create_topic(s.client, "t")
        pid, epoch = await init_producer(s.client)
        (first,) = await produce_ok(s.client, pid, epoch, [old])
        assert s.broker.producers.expire_producers() == 0
        data_dir = s.broker.data.path
    # a crash before any snapshot: only the log itself is left to rebuild the state from
    (snapshot,) = glob.glob(os.path.join(data_dir, "**", "producer-snapshot"), recursive=True)
    os.unlink(snapshot)
    async with running(settings, clock) as s:
        clock.advance(60_000)  # well within the expiration
        assert s.broker.producers.expire_producers() == 0
        (again,) = await produce_ok(s.client, pid, epoch, [old])
        assert again == first
        assert await values(s.client, "t") == ["a", "b"]
