"""The Kafka backend's produce (app/kafka/produce.py) against the native broker of make kafka:
a client's batches reach the broker as built and come back byte for byte, a duplicate is
answered at its first offset without a second copy, Kafka's sequence and epoch refusals are the
contract's codes, a corrupt batch never leaves the gateway, a transactional batch joins its
transaction through the Produce alone, and JSON records come back as they were given."""

from __future__ import annotations

import time
import uuid

import pytest

from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import TRANSACTION, Cluster, PartitionInfo, TopicInfo
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.errors import NONE
from app.kafka.protocol.messages import (
    CreateTopicsRequest,
    EndTxnRequest,
    FetchRequest,
    FetchResponse,
    InitProducerIdRequest,
    InitProducerIdResponse,
)
from app.producers.appender import BatchResult
from app.producers.produce import Produced
from app.storage.record import (
    TRANSACTIONAL_FLAG,
    Header,
    Record,
    StoredRecord,
    check_batch,
    decode_records,
    encode_batch,
)
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

T0 = 1_767_225_600_000
RECORDS = [
    Record(T0, b"order-1", b'{"qty": 3}', [Header("trace", b"a1")]),
    Record(T0 + 5, None, b"", []),
    Record(T0 - 3, b"order-2", None, [Header("trace", None)]),
]
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
DEADLINE = 30.0
CONCURRENT_TRANSACTIONS = 51


@pytest.fixture
def produce(cluster: Cluster) -> KafkaProduce:
    return KafkaProduce(cluster, Settings())


async def create_topic(cluster: Cluster, partitions: int = 1) -> str:
    name = f"kp-{uuid.uuid4().hex[:12]}"
    conn = await cluster.any_connection()
    answer = await conn.send(
        CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(
                    name=name, num_partitions=partitions, replication_factor=-1
                )
            ],
            timeout_ms=30_000,
        )
    )
    (result,) = answer.topics
    assert result.error_code == NONE, result.error_message
    return name


async def fetch(
    cluster: Cluster,
    topic: str,
    partition: int = 0,
    isolation: int = READ_UNCOMMITTED,
    wait_ms: int = 0,
) -> FetchResponse.PartitionData:
    """What the partition holds from offset 0, as its leader answers a Fetch (at once, or
    once it has a byte to answer or ``wait_ms`` has passed)."""

    def build(t: TopicInfo, p: PartitionInfo) -> FetchRequest:
        return FetchRequest(
            max_wait_ms=wait_ms,
            min_bytes=1 if wait_ms else 0,
            isolation_level=isolation,
            topics=[
                FetchRequest.FetchTopic(
                    topic=topic,
                    topic_id=t.topic_id,
                    partitions=[
                        FetchRequest.FetchPartition(
                            partition=partition,
                            current_leader_epoch=p.leader_epoch,
                            fetch_offset=0,
                            partition_max_bytes=1 << 20,
                        )
                    ],
                )
            ],
        )

    # a topic just created: the leader may not know its epoch yet, and the cluster asks again
    answer = await cluster.send_to_leader(
        topic, partition, build, lambda a: a.error_code or a.responses[0].partitions[0].error_code
    )
    assert answer.error_code == NONE
    (part,) = answer.responses[0].partitions
    assert part.error_code == NONE
    return part


def records_of(data: bytes) -> list[StoredRecord]:
    """The data records of fetched batches (control batches, the markers, left out)."""
    out: list[StoredRecord] = []
    pos = 0
    while pos < len(data):
        h = check_batch(data, pos)
        if not h.is_control:
            out.extend(decode_records(data, pos, h))
        pos += h.size
    return out


async def idempotent_producer(cluster: Cluster, topic: str) -> InitProducerIdResponse:
    _, p = await cluster.leader(topic, 0)
    answer = await (await cluster.connection(p.leader_id)).send(
        InitProducerIdRequest(transactional_id=None)
    )
    assert answer.error_code == NONE
    return answer


async def transactional_producer(cluster: Cluster, tid: str) -> InitProducerIdResponse:
    """The transactional id's producer id and epoch, from InitProducerId. With a transaction
    open the coordinator first aborts it, answering CONCURRENT_TRANSACTIONS until the abort is
    done: asked again until then, within a deadline."""
    deadline = time.monotonic() + DEADLINE
    while True:
        answer = await cluster.send_to_coordinator(
            tid,
            TRANSACTION,
            lambda: InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000),
            lambda a: a.error_code,
        )
        if answer.error_code != CONCURRENT_TRANSACTIONS or time.monotonic() > deadline:
            break
    assert answer.error_code == NONE
    return answer


async def test_an_idempotent_batch_reaches_the_broker_as_built(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster)
    _, p = await cluster.leader(topic, 0)
    pid = await idempotent_producer(cluster, topic)
    # the broker sets the base offset (0) and the leader epoch, outside the CRC: built with
    # those, the batch comes back as it was sent
    batch = encode_batch(
        0,
        RECORDS,
        producer_id=pid.producer_id,
        producer_epoch=pid.producer_epoch,
        base_sequence=0,
        leader_epoch=p.leader_epoch,
    )
    assert await produce.produce_batches(topic, 0, batch, None) == [BatchResult(topic, 0, 0, None)]
    part = await fetch(cluster, topic)
    assert part.high_watermark == len(RECORDS)
    assert part.records is not None and bytes(part.records) == batch


async def test_a_batch_sent_twice_is_answered_at_its_first_offset_and_stored_once(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster)
    pid = await idempotent_producer(cluster, topic)

    def batch(sequence: int) -> bytes:
        return encode_batch(
            0,
            RECORDS,
            producer_id=pid.producer_id,
            producer_epoch=pid.producer_epoch,
            base_sequence=sequence,
        )

    first = await produce.produce_batches(topic, 0, batch(0), None)
    again = await produce.produce_batches(topic, 0, batch(0), None)
    assert first == again == [BatchResult(topic, 0, 0, None)]
    part = await fetch(cluster, topic)
    assert part.high_watermark == len(RECORDS)
    # the next sequence is the next batch
    after = await produce.produce_batches(topic, 0, batch(len(RECORDS)), None)
    assert after == [BatchResult(topic, 0, len(RECORDS), None)]


async def test_a_gap_in_sequences_is_out_of_order(cluster: Cluster, produce: KafkaProduce) -> None:
    topic = await create_topic(cluster)
    pid = await idempotent_producer(cluster, topic)
    fields = {"producer_id": pid.producer_id, "producer_epoch": pid.producer_epoch}
    await produce.produce_batches(
        topic, 0, encode_batch(0, RECORDS, base_sequence=0, **fields), None
    )
    gap = encode_batch(0, RECORDS, base_sequence=len(RECORDS) + 2, **fields)
    with pytest.raises(SluiceError) as refused:
        await produce.produce_batches(topic, 0, gap, None)
    assert refused.value.code is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert refused.value.code.status == 409
    assert (await fetch(cluster, topic)).high_watermark == len(RECORDS)


async def test_an_old_epoch_is_fenced_once_init_producer_id_bumps_it(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster)
    tid = f"kp-txn-{uuid.uuid4().hex[:8]}"
    old = await transactional_producer(cluster, tid)

    def batch(epoch: int, sequence: int) -> bytes:
        return encode_batch(
            0,
            RECORDS,
            producer_id=old.producer_id,
            producer_epoch=epoch,
            base_sequence=sequence,
            attributes=TRANSACTIONAL_FLAG,
        )

    await produce.produce_batches(topic, 0, batch(old.producer_epoch, 0), tid)
    # a new instance of the transactional id: the open transaction is aborted, the epoch bumped
    new = await transactional_producer(cluster, tid)
    assert new.producer_id == old.producer_id
    assert new.producer_epoch > old.producer_epoch
    with pytest.raises(SluiceError) as refused:
        await produce.produce_batches(topic, 0, batch(old.producer_epoch, len(RECORDS)), tid)
    # the partition holds the bumped epoch (the abort marker): the broker answers the epoch
    assert refused.value.code is ErrorCode.INVALID_PRODUCER_EPOCH, refused.value
    assert refused.value.code.status == 409


async def test_a_corrupt_batch_is_refused_before_it_is_sent(
    kafka_cluster: KafkaCluster, cluster: Cluster
) -> None:
    topic = await create_topic(cluster)
    batch = bytearray(encode_batch(0, RECORDS))
    batch[-1] ^= 0x01  # the last byte of the last record: the CRC no longer matches
    # a cluster that can send nothing: a request that reached it would fail otherwise
    closed = Cluster(kafka_cluster.bootstrap)
    await closed.close()
    with pytest.raises(SluiceError) as refused:
        await KafkaProduce(closed, Settings()).produce_batches(topic, 0, bytes(batch), None)
    assert refused.value.code is ErrorCode.CORRUPT_MESSAGE
    assert "CRC" in refused.value.message
    # and on the live cluster: refused, nothing stored
    with pytest.raises(SluiceError) as again:
        await KafkaProduce(cluster, Settings()).produce_batches(topic, 0, bytes(batch), None)
    assert again.value.code is ErrorCode.CORRUPT_MESSAGE
    assert (await fetch(cluster, topic)).high_watermark == 0


async def test_a_transactional_batch_is_read_committed_once_committed(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster)
    tid = f"kp-txn-{uuid.uuid4().hex[:8]}"
    pid = await transactional_producer(cluster, tid)
    batch = encode_batch(
        0,
        RECORDS,
        producer_id=pid.producer_id,
        producer_epoch=pid.producer_epoch,
        base_sequence=0,
        attributes=TRANSACTIONAL_FLAG,
    )
    # no AddPartitionsToTxn: the Produce adds the partition to the transaction (KIP-890)
    assert await produce.produce_batches(topic, 0, batch, tid) == [BatchResult(topic, 0, 0, None)]
    pending = await fetch(cluster, topic, isolation=READ_COMMITTED)
    assert pending.last_stable_offset == 0
    assert records_of(bytes(pending.records or b"")) == []

    ended = await cluster.send_to_coordinator(
        tid,
        TRANSACTION,
        lambda: EndTxnRequest(
            transactional_id=tid,
            producer_id=pid.producer_id,
            producer_epoch=pid.producer_epoch,
            committed=True,
        ),
        lambda a: a.error_code,
    )
    assert ended.error_code == NONE
    # the commit marker is written after EndTxn answers: wait for it, with a deadline
    deadline = time.monotonic() + DEADLINE
    while True:
        part = await fetch(cluster, topic, isolation=READ_COMMITTED, wait_ms=500)
        if part.last_stable_offset > len(RECORDS) or time.monotonic() > deadline:
            break
    assert part.last_stable_offset == len(RECORDS) + 1  # the records and the marker
    got = records_of(bytes(part.records or b""))
    assert [(r.key, r.value, r.timestamp) for r in got] == [
        (r.key, r.value, r.timestamp) for r in RECORDS
    ]


async def test_json_records_come_back_with_key_value_headers_and_timestamp(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster, partitions=3)
    placed: list[tuple[int | None, Record]] = [
        (1, Record(T0, b"k-a", b"\x00\xffbinary", [Header("h", b"1"), Header("n", None)])),
        (1, Record(T0 + 7, None, None, [])),
        (None, Record(T0 - 2, b"k-b", b'{"x": 1}', [Header("trace", b"")])),
    ]
    produced = await produce.produce_records(topic, placed)
    keyed = produced[2].partition
    assert [(o.partition, o.offset, o.timestamp) for o in produced[:2]] == [
        (1, 0, T0),
        (1, 1, T0 + 7),
    ]
    assert produced[2].timestamp == T0 - 2
    assert produced[2].offset == (2 if keyed == 1 else 0)
    got = {p: records_of(bytes((await fetch(cluster, topic, p)).records or b"")) for p in (0, 1, 2)}
    by_partition: dict[int, list[Record]] = {}
    for o, (_, rec) in zip(produced, placed, strict=True):
        by_partition.setdefault(o.partition, []).append(rec)
    for p in (0, 1, 2):
        assert [(r.timestamp, r.key, r.value, r.headers) for r in got[p]] == [
            (r.timestamp, r.key, r.value, tuple(r.headers)) for r in by_partition.get(p, [])
        ]


async def test_json_records_with_a_producer_id_follow_its_sequences(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster)
    pid = await idempotent_producer(cluster, topic)
    placed: list[tuple[int | None, Record]] = [(0, r) for r in RECORDS]

    async def send(sequence: int) -> list[Produced]:
        return await produce.produce_records(
            topic,
            placed,
            producer_id=pid.producer_id,
            producer_epoch=pid.producer_epoch,
            base_sequences={0: sequence},
        )

    first = await send(0)
    assert [o.offset for o in first] == [0, 1, 2]
    # the same sequence again: the broker's duplicate, answered at the first offsets
    again = await send(0)
    assert again == first
    with pytest.raises(SluiceError) as refused:
        await send(10)
    assert refused.value.code is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    part = await fetch(cluster, topic)
    assert part.high_watermark == len(RECORDS)
    (stored,) = [check_batch(bytes(part.records or b""))]
    assert (stored.producer_id, stored.base_sequence) == (pid.producer_id, 0)


async def test_with_acks_0_nothing_is_answered_and_the_batch_is_written(
    cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster)
    _, p = await cluster.leader(topic, 0)
    batch = encode_batch(0, RECORDS, leader_epoch=p.leader_epoch)
    assert await produce.produce_batches(topic, 0, batch, None, acks=0) == [
        BatchResult(topic, 0, -1, None)
    ]
    # no answer says when it is written: wait for it, with a deadline
    deadline = time.monotonic() + DEADLINE
    while True:
        part = await fetch(cluster, topic, wait_ms=500)
        if part.high_watermark > 0 or time.monotonic() > deadline:
            break
    assert part.records is not None and bytes(part.records) == batch
    # and the leader's own acknowledgement
    assert await produce.produce_batches(topic, 0, batch, None, acks=1) == [
        BatchResult(topic, 0, len(RECORDS), None)
    ]
