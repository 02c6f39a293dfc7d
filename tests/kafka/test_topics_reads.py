"""The Kafka backend's topics and reads (app/kafka/topics.py, app/kafka/reads.py) against the
native broker of make kafka: a topic created, described, changed, grown and deleted; records
produced by the backend's produce read back as JSON and as the broker's batches byte for byte;
an aborted transaction hidden under read_committed; a long poll answered when a record arrives;
delete-records moving the log start; ListOffsets at the ends and at a time."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import TRANSACTION, Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.errors import NONE, UNKNOWN_TOPIC_OR_PARTITION, BrokerError
from app.kafka.protocol.messages import EndTxnRequest
from app.kafka.reads import KafkaReads
from app.kafka.topics import KafkaTopic, KafkaTopics, PartitionView
from app.storage.record import Record, encode_batch, read_header, set_base_offset
from tests.kafka.test_produce import RECORDS, T0, transactional_producer
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

DEADLINE = 30.0
BIG = 1 << 20


@pytest.fixture
def topics(cluster: Cluster) -> KafkaTopics:
    return KafkaTopics(cluster, replication_factor=-1, max_partitions=100)


@pytest.fixture
def reads(cluster: Cluster) -> KafkaReads:
    return KafkaReads(cluster)


def name() -> str:
    return f"kt-{uuid.uuid4().hex[:12]}"


async def read_all(reads: KafkaReads, topic: str, committed: bool = False) -> list[Record]:
    """Every record of partition 0, read on from each answer's next offset to the end: a
    Fetch may answer fewer batches than the partition holds."""
    out: list[Record] = []
    offset = 0
    while True:
        answer = await reads.read(
            topic, 0, offset, max_records=1000, max_bytes=BIG, max_wait_ms=0, committed=committed
        )
        out.extend(
            Record(r.timestamp, r.key, r.value, list(r.headers)) for r in answer.result.records
        )
        end = answer.last_stable_offset if committed else answer.high_watermark
        if answer.result.next_offset >= end:
            return out
        assert answer.result.next_offset > offset
        offset = answer.result.next_offset


async def test_a_topic_is_created_described_changed_grown_and_deleted(
    topics: KafkaTopics,
) -> None:
    topic = name()
    created = await topics.create(topic, 2, {"retention_ms": 3_600_000, "max_message_bytes": 2048})
    assert created == KafkaTopic(
        topic,
        {"retention_ms": 3_600_000, "max_message_bytes": 2048},
        [PartitionView(0, 0, 0), PartitionView(0, 0, 0)],
        created.topic_id,
    )
    assert created.partitions == 2 and not created.deleting
    assert (await topics.get(topic)).config == created.config
    assert (topic, 2) in await topics.list()

    with pytest.raises(SluiceError) as again:
        await topics.create(topic, 1, {})
    assert again.value.code is ErrorCode.TOPIC_ALREADY_EXISTS

    changed = await topics.update(topic, 3, {"retention_ms": None, "segment_ms": 600_000})
    assert changed.config == {"max_message_bytes": 2048, "segment_ms": 600_000}
    assert changed.partitions == 3
    assert [p.high_watermark for p in changed.logs] == [0, 0, 0]

    with pytest.raises(SluiceError) as fewer:
        await topics.update(topic, 2, None)
    assert fewer.value.code is ErrorCode.INVALID_PARTITIONS
    # a value Kafka refuses (segment.bytes below its minimum) is INVALID_CONFIG with Kafka's
    # reason, and the partitions asked for in the same change are not added
    with pytest.raises(SluiceError) as refused:
        await topics.update(topic, 5, {"segment_bytes": 1024})
    assert refused.value.code is ErrorCode.INVALID_CONFIG
    assert "segment.bytes" in refused.value.message
    assert (await topics.get(topic)).partitions == 3

    await topics.delete(topic)
    with pytest.raises(SluiceError) as gone:
        await topics.get(topic)
    assert gone.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert topic not in [t.name for t in await topics.list()]
    with pytest.raises(SluiceError) as twice:
        await topics.delete(topic)
    assert twice.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


async def test_records_read_back_as_json_and_as_the_brokers_batches(
    cluster: Cluster, topics: KafkaTopics, reads: KafkaReads, writer: KafkaProduce
) -> None:
    topic = name()
    await topics.create(topic, 1, {})
    _, p = await cluster.leader(topic, 0)
    # the broker sets the base offset and the leader epoch, outside the CRC: built with
    # those, each batch is stored as it was sent
    first = encode_batch(0, RECORDS, leader_epoch=p.leader_epoch)
    second = bytearray(encode_batch(0, RECORDS[:2], leader_epoch=p.leader_epoch))
    await writer.produce_batches(topic, 0, first + bytes(second), None)
    set_base_offset(second, len(RECORDS))

    whole = await reads.read_batches(topic, 0, 0, max_records=100, max_bytes=BIG, max_wait_ms=0)
    assert whole.result.batches == [first, bytes(second)]
    assert (whole.result.next_offset, whole.result.records) == (5, 5)
    assert (whole.high_watermark, whole.last_stable_offset, whole.log_start_offset) == (5, 5, 0)
    # from inside the first batch: the whole batch, and no more than max_records asks
    part = await reads.read_batches(topic, 0, 1, max_records=2, max_bytes=BIG, max_wait_ms=0)
    assert part.result.batches == [first]
    assert part.result.next_offset == len(RECORDS)

    answer = await reads.read(topic, 0, 1, max_records=3, max_bytes=BIG, max_wait_ms=0)
    got = [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in answer.result.records]
    expected = [*RECORDS[1:], RECORDS[0]]
    assert got == [
        (i + 1, r.timestamp, r.key, r.value, tuple(r.headers)) for i, r in enumerate(expected)
    ]
    assert answer.result.next_offset == 4
    assert (answer.high_watermark, answer.last_stable_offset, answer.log_start_offset) == (5, 5, 0)

    with pytest.raises(SluiceError) as beyond:
        await reads.read(topic, 0, 9, max_records=1, max_bytes=BIG, max_wait_ms=0)
    assert beyond.value.code is ErrorCode.OFFSET_OUT_OF_RANGE
    with pytest.raises(SluiceError) as unknown:
        await reads.read(topic, 4, 0, max_records=1, max_bytes=BIG, max_wait_ms=0)
    assert unknown.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


async def test_read_committed_hides_an_aborted_transaction(
    cluster: Cluster, topics: KafkaTopics, reads: KafkaReads, writer: KafkaProduce
) -> None:
    topic = name()
    await topics.create(topic, 1, {})
    tid = f"kt-txn-{uuid.uuid4().hex[:8]}"
    pid = await transactional_producer(writer.cluster, tid)
    await writer.produce_records(
        topic,
        [(0, r) for r in RECORDS],
        producer_id=pid.producer_id,
        producer_epoch=pid.producer_epoch,
        base_sequences={0: 0},
        transactional_id=tid,
    )
    # open: read_committed stops before it, and ListOffsets' latest is the last stable offset
    assert await reads.list_offsets(topic, 0, "latest", committed=True) == (0, -1)
    assert await reads.list_offsets(topic, 0, "latest") == (len(RECORDS), -1)
    ended = await writer.cluster.send_to_coordinator(
        tid,
        TRANSACTION,
        lambda: EndTxnRequest(
            transactional_id=tid,
            producer_id=pid.producer_id,
            producer_epoch=pid.producer_epoch,
            committed=False,
        ),
        lambda a: a.error_code,
    )
    assert ended.error_code == NONE
    # the marker is written after EndTxn answers: wait until the last stable offset passes it
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if await reads.list_offsets(topic, 0, "latest", committed=True) == (len(RECORDS) + 1, -1):
            break
    plain = Record(T0 + 100, b"after", b"committed", [])
    (after,) = await writer.produce_records(topic, [(0, plain)])
    assert after.offset == len(RECORDS) + 1  # past the abort marker
    answer = await reads.read(
        topic, 0, 0, max_records=100, max_bytes=BIG, max_wait_ms=0, committed=True
    )
    assert answer.last_stable_offset == after.offset + 1
    assert [(r.offset, r.value) for r in answer.result.records] == [(after.offset, b"committed")]
    assert answer.result.next_offset == after.offset + 1
    # read_uncommitted sees the aborted records; the marker is left out either way
    assert await read_all(reads, topic) == [*RECORDS, plain]
    batches = await reads.read_batches(
        topic, 0, 0, max_records=100, max_bytes=BIG, max_wait_ms=0, committed=True
    )
    assert len(batches.result.batches) == 1
    assert batches.result.next_offset == after.offset + 1
    everything = await reads.read_batches(
        topic, 0, 0, max_records=100, max_bytes=BIG, max_wait_ms=0
    )
    # read_uncommitted: the aborted batch as the broker holds it
    assert read_header(everything.result.batches[0]).is_transactional


async def test_a_long_poll_answers_when_a_record_arrives(
    topics: KafkaTopics, reads: KafkaReads, writer: KafkaProduce
) -> None:
    topic = name()
    await topics.create(topic, 1, {})
    empty = await reads.read(topic, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=200)
    assert empty.result.records == [] and empty.result.next_offset == 0

    started = time.monotonic()
    poll = asyncio.create_task(
        reads.read(topic, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=25_000)
    )
    conn = await reads.cluster.connection((await reads.cluster.leader(topic, 0))[1].leader_id)
    deadline = time.monotonic() + DEADLINE
    while conn.in_flight == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0)  # until the Fetch is on the wire
    assert conn.in_flight == 1 and not poll.done()
    await writer.produce_records(topic, [(0, Record(T0, b"k", b"v", []))])
    answer = await poll
    assert [(r.offset, r.value) for r in answer.result.records] == [(0, b"v")]
    assert time.monotonic() - started < 20.0  # answered by the record, not the wait


async def test_delete_records_moves_the_log_start(
    topics: KafkaTopics, reads: KafkaReads, writer: KafkaProduce
) -> None:
    topic = name()
    await topics.create(topic, 2, {})
    await writer.produce_records(
        topic, [(0, Record(T0 + i, None, b"%d" % i, [])) for i in range(5)]
    )
    assert await topics.delete_records(topic, [(0, 3), (1, -1)]) == [(0, 3), (1, 0)]
    described = await topics.get(topic)
    assert described.logs == [PartitionView(3, 5, 5), PartitionView(0, 0, 0)]
    assert await reads.list_offsets(topic, 0, "earliest") == (3, -1)
    with pytest.raises(SluiceError) as below:
        await reads.read(topic, 0, 1, max_records=10, max_bytes=BIG, max_wait_ms=0)
    assert below.value.code is ErrorCode.OFFSET_OUT_OF_RANGE
    assert [
        r.value
        for r in (
            await reads.read(topic, 0, 3, max_records=10, max_bytes=BIG, max_wait_ms=0)
        ).result.records
    ] == [b"3", b"4"]
    assert await topics.delete_records(topic, [(0, -1)]) == [(0, 5)]
    with pytest.raises(SluiceError) as beyond:
        await topics.delete_records(topic, [(0, 9)])
    assert beyond.value.code is ErrorCode.OFFSET_OUT_OF_RANGE
    with pytest.raises(SluiceError) as unknown:
        await topics.delete_records(topic, [(7, 0)])
    assert unknown.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


async def test_list_offsets_at_the_ends_and_at_a_time(
    topics: KafkaTopics, reads: KafkaReads, writer: KafkaProduce
) -> None:
    topic = name()
    await topics.create(topic, 1, {})
    # timestamps T0, T0 + 5, T0 - 3
    await writer.produce_records(topic, [(0, r) for r in RECORDS])
    assert await reads.list_offsets(topic, 0, "earliest") == (0, -1)
    assert await reads.list_offsets(topic, 0, "latest") == (3, -1)
    assert await reads.list_offsets(topic, 0, str(T0 + 1)) == (1, T0 + 5)
    assert await reads.list_offsets(topic, 0, str(T0 - 3)) == (0, T0)
    assert await reads.list_offsets(topic, 0, str(T0 + 6)) == (-1, -1)
    for at, code in (("-5", ErrorCode.INVALID_TIMESTAMP), ("soon", ErrorCode.INVALID_REQUEST)):
        with pytest.raises(SluiceError) as bad:
            await reads.list_offsets(topic, 0, at)
        assert bad.value.code is code
    with pytest.raises(SluiceError) as unknown:
        await reads.list_offsets(topic, 1, "latest")
    assert unknown.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


async def test_a_partition_added_by_another_client_is_found(
    kafka_cluster: KafkaCluster, cluster: Cluster
) -> None:
    """The gateway caches a topic's metadata; partitions another client (or gateway) adds are
    found when first asked for, not answered UNKNOWN_TOPIC_OR_PARTITION."""
    topic = f"grown-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(30)
    await cluster.leader(topic, 0)  # cached with one partition
    for f in admin.create_partitions([NewPartitions(topic, 3)]).values():
        f.result(30)
    _, p = await cluster.leader(topic, 2)
    assert p.leader_id >= 0
    with pytest.raises(BrokerError) as refused:
        await cluster.leader(topic, 3)
    assert refused.value.code == UNKNOWN_TOPIC_OR_PARTITION


async def test_a_topic_of_many_partitions_is_described_once_created(cluster: Cluster) -> None:
    """A new topic's partitions become led one after another: Metadata may name a leader that
    does not answer for its partition yet (NOT_LEADER_OR_FOLLOWER) for longer than a request's
    retries on a loaded broker. The creation waits for them, rather than answering an
    error for a topic it made."""
    many = KafkaTopics(cluster, replication_factor=-1, max_partitions=1000)
    topic = name()
    created = await many.create(topic, 500, {})
    assert created.partitions == 500
    assert all(p.high_watermark == 0 for p in created.logs)
