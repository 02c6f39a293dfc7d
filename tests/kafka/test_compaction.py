"""A compacted topic after Kafka's cleaner has run: its batches keep their last offset and hold
fewer records (the records of a key written again later are gone), and the gateway reads them,
reads past them, hands them out as batches and acquires their records for a share group, with
no offset acquired that holds no record."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.reads import KafkaReads
from app.kafka.share import KafkaShareGroups
from app.storage.record import Record, read_header
from tests.kafka.test_produce import T0
from tests.kafka.test_share import joined, new_group
from tests.kafka_cluster import KafkaCluster

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

BIG = 1 << 20
# the broker's cleaner looks for work every 15 s (log.cleaner.backoff.ms)
CLEANED_WITHIN_S = 120.0


def compacted_topic(bootstrap: str) -> str:
    """A compacted topic whose segments roll within 100 ms and are cleaned as soon as they
    are: a test's records are compacted within the cleaner's next round."""
    name = f"kc-{uuid.uuid4().hex[:12]}"
    configs = {
        "cleanup.policy": "compact",
        "segment.ms": "100",
        "min.cleanable.dirty.ratio": "0.001",
        "min.compaction.lag.ms": "0",
    }
    admin = AdminClient({"bootstrap.servers": bootstrap})
    (future,) = admin.create_topics([NewTopic(name, 1, -1, config=configs)]).values()
    future.result(timeout=60)
    return name


async def offsets_read(reads: KafkaReads, topic: str) -> list[int]:
    out: list[int] = []
    offset = 0
    while True:
        answer = await reads.read(topic, 0, offset, max_records=1000, max_bytes=BIG, max_wait_ms=0)
        out.extend(r.offset for r in answer.result.records)
        if answer.result.next_offset >= answer.high_watermark:
            return out
        assert answer.result.next_offset > offset, "a read that does not move on"
        offset = answer.result.next_offset


async def test_a_thinned_topic_is_read_and_its_records_acquired(
    kafka_cluster: KafkaCluster, cluster: Cluster, writer: KafkaProduce
) -> None:
    topic = compacted_topic(kafka_cluster.bootstrap)
    keys = [b"a", b"b", b"a", b"b"]  # one batch: the cleaner keeps offsets 2 and 3 of it
    await writer.produce_records(
        topic, [(0, Record(T0 + i, k, b"v%d" % i, [])) for i, k in enumerate(keys)]
    )
    reads = KafkaReads(cluster)
    deadline = time.monotonic() + CLEANED_WITHIN_S
    written = 4
    while (got := await offsets_read(reads, topic))[:2] != [2, 3]:
        assert time.monotonic() < deadline, f"not compacted in time: {got}"
        # a record more each second: it rolls the segment before it, which the cleaner takes
        await asyncio.sleep(1.0)
        more = Record(T0 + written, b"c%d" % written, b"c", [])  # a key of its own: kept
        await writer.produce_records(topic, [(0, more)])
        written += 1
    # the batch as the cleaner left it: its last offset kept, two records
    batches = await reads.read_batches(topic, 0, 0, max_records=1000, max_bytes=BIG, max_wait_ms=0)
    first = read_header(batches.result.batches[0], compacted=True)
    assert (first.base_offset, first.last_offset_delta, first.record_count) == (0, 3, 2)
    assert got[:2] == [2, 3] and got == sorted(set(got))
    # a share group acquires the records there are, whether the fetch decodes them or not
    groups = KafkaShareGroups(cluster)
    try:
        for decode in (True, False):
            group = await new_group(cluster)
            member = await joined(groups, group, topic)
            acquired: list[int] = []
            records: list[int] = []
            while not acquired or acquired[-1] < got[-1]:
                assert time.monotonic() < deadline, f"acquired {acquired} of {got}"
                answer = await groups.fetch(
                    group,
                    member.member_id,
                    max_records=1000,
                    max_wait_ms=500,
                    max_bytes=BIG,
                    decode=decode,
                )
                acquired += [o for a in answer.answer.acquired for o in range(a.first, a.last + 1)]
                records += [r.offset for fr in answer.answer.records for r, _ in fr.records]
            # 0 and 1 are not acquired: they hold no record
            assert acquired == got, decode
            assert records == (got if decode else []), decode
    finally:
        await groups.close()
