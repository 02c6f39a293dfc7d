"""A ShareFetch answer with an error for one partition (other than stale metadata) against a
broker of the tests' own: the fetch gives nothing of that partition, the error is logged once
per partition and error, not at every poll, and the member's next fetch asks for the partition
again and gets its records once the broker answers them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from app.kafka.cluster import Cluster
from app.kafka.protocol.errors import COORDINATOR_NOT_AVAILABLE, NONE
from app.kafka.protocol.messages import ShareFetchRequest, ShareFetchResponse
from app.kafka.share import KafkaMember, KafkaShareFetch, KafkaShareGroups
from app.storage.record import Record, encode_batch
from tests.unit.kafka.fake_broker import FakeBroker
from tests.unit.kafka.test_cluster import TOPIC, expect, started

T0 = 1_767_225_600_000
UNKNOWN_SERVER_ERROR = -1  # Kafka's code for an error it did not expect: not retriable


@pytest.fixture
async def broker() -> AsyncIterator[FakeBroker]:
    b = await FakeBroker().start()
    yield b
    await b.stop()


def answer(request: object, code: int, first: int = -1) -> ShareFetchResponse:
    """The partition of ``request`` answered with ``code``, or with one record at ``first``."""
    assert isinstance(request, ShareFetchRequest)
    (topic,) = request.topics
    part = ShareFetchResponse.PartitionData(partition_index=0, error_code=code, records=b"")
    if first >= 0:
        part.records = encode_batch(first, [Record(T0, None, f"v{first}".encode(), [])])
        part.acquired_records = [
            ShareFetchResponse.AcquiredRecords(
                first_offset=first, last_offset=first, delivery_count=1
            )
        ]
    return ShareFetchResponse(
        acquisition_lock_timeout_ms=30000,
        responses=[
            ShareFetchResponse.ShareFetchableTopicResponse(
                topic_id=topic.topic_id, partitions=[part]
            )
        ],
    )


async def fetch(
    groups: KafkaShareGroups, broker: FakeBroker, code: int, first: int = -1
) -> list[int]:
    """One fetch of the member, the broker answering ``code``; the offsets it got."""
    fetching = asyncio.ensure_future(
        groups.fetch("g", "m", max_records=10, max_wait_ms=0, max_bytes=1 << 20)
    )
    got = await expect(broker, ShareFetchRequest.API_KEY)
    # the partition is asked for at every fetch, whatever the last answer for it was
    assert isinstance(got.request, ShareFetchRequest)
    assert [p.partition_index for t in got.request.topics for p in t.partitions] == [0]
    broker.answer(got, answer(got.request, code, first))
    done: KafkaShareFetch = await fetching
    return [r.offset for fr in done.answer.records for r, _ in fr.records]


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "sluice.kafka.share"]


async def test_a_partition_error_is_logged_once_and_the_next_fetch_recovers(
    broker: FakeBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sluice.kafka.share")
    cluster: Cluster = await started(broker)
    groups = KafkaShareGroups(cluster)
    groups.members[("g", "m")] = KafkaMember("g", "m", 1, [TOPIC], assignment={TOPIC: [0]})
    try:
        # the share partition's state not loaded yet on its leader: retriable on Kafka's side
        for _ in range(3):
            assert await fetch(groups, broker, COORDINATOR_NOT_AVAILABLE) == []
        (warned,) = logged(caplog)
        assert "COORDINATOR_NOT_AVAILABLE" in warned and f"{TOPIC}-0" in warned
        assert "retriable" in warned and "'g'" in warned
        # the next fetch gets the partition's records: its recovery is logged too, once
        assert await fetch(groups, broker, NONE, first=0) == [0]
        assert await fetch(groups, broker, NONE, first=1) == [1]
        assert len(logged(caplog)) == 2 and f"{TOPIC}-0" in logged(caplog)[1]
        # another error, and the same one again after a recovery, are logged again
        assert await fetch(groups, broker, UNKNOWN_SERVER_ERROR) == []
        assert await fetch(groups, broker, COORDINATOR_NOT_AVAILABLE) == []
        assert await fetch(groups, broker, COORDINATOR_NOT_AVAILABLE) == []
        messages = logged(caplog)
        assert len(messages) == 4
        assert "UNKNOWN_SERVER_ERROR" in messages[2] and "not retriable" in messages[2]
        assert "COORDINATOR_NOT_AVAILABLE" in messages[3]
    finally:
        await cluster.close()
