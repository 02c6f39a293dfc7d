"""The Kafka backend's producers and transactions (app/kafka/transactions.py) against the native
broker of make kafka: producer ids and epochs, fencing, a transaction's records and group offsets
committed or aborted together, the one-request commit, abort by prefix, and a transaction the
broker aborted at its timeout answered as the contract's TRANSACTION_TIMED_OUT."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from app.errors import ErrorCode, SluiceError
from app.groups.group import OffsetCommit
from app.kafka.cluster import GROUP, Cluster, PartitionInfo, TopicInfo
from app.kafka.groups import KafkaGroups
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.errors import NONE
from app.kafka.protocol.messages import FetchRequest, FetchResponse, OffsetFetchRequest
from app.kafka.reads import KafkaReads
from app.kafka.transactions import KafkaTransactions
from app.producers.appender import ProduceBatch
from app.storage.record import Record, check_batch, decode_records
from app.transactions.state import TxnState
from app.transactions.work import GroupOffsets, TxnWork
from tests.kafka.test_groups import join, parts, settle
from tests.kafka.test_produce import READ_COMMITTED, create_topic
from tests.kafka.test_produce import produce as produce

pytestmark = pytest.mark.kafka

T0 = 1_767_225_600_000
DEADLINE = 30.0


@pytest.fixture
def txns(cluster: Cluster, produce: KafkaProduce) -> KafkaTransactions:
    return KafkaTransactions(cluster, produce)


def tid_of(prefix: str = "kt-") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


async def write(
    produce: KafkaProduce,
    topic: str,
    partition: int,
    pid: int,
    epoch: int,
    tid: str,
    values: list[bytes],
    sequence: int = 0,
) -> None:
    await produce.produce_records(
        topic,
        [(partition, Record(T0 + i, None, v, [])) for i, v in enumerate(values)],
        producer_id=pid,
        producer_epoch=epoch,
        base_sequences={partition: sequence},
        transactional_id=tid,
    )


async def fetch_from(
    cluster: Cluster, topic: str, partition: int, offset: int
) -> FetchResponse.PartitionData:
    """One read_committed Fetch of the partition from ``offset``, answered at once."""

    def build(t: TopicInfo, p: PartitionInfo) -> FetchRequest:
        return FetchRequest(
            max_wait_ms=0,
            min_bytes=0,
            isolation_level=READ_COMMITTED,
            topics=[
                FetchRequest.FetchTopic(
                    topic=topic,
                    topic_id=t.topic_id,
                    partitions=[
                        FetchRequest.FetchPartition(
                            partition=partition,
                            current_leader_epoch=p.leader_epoch,
                            fetch_offset=offset,
                            partition_max_bytes=1 << 20,
                        )
                    ],
                )
            ],
        )

    answer = await cluster.send_to_leader(
        topic, partition, build, lambda a: a.error_code or a.responses[0].partitions[0].error_code
    )
    (part,) = answer.responses[0].partitions
    assert part.error_code == NONE
    return part


async def offsets_of(cluster: Cluster, group: str, topic: str) -> dict[int, int]:
    """The group's committed offsets of ``topic``, as OffsetFetch answers (require_stable: a
    pending transactional offset would answer an error)."""
    info = await cluster.topic(topic)
    answer = await cluster.send_to_coordinator(
        group,
        GROUP,
        lambda: OffsetFetchRequest(
            require_stable=True,
            groups=[
                OffsetFetchRequest.OffsetFetchRequestGroup(
                    group_id=group,
                    topics=[
                        OffsetFetchRequest.OffsetFetchRequestTopics(
                            name=topic, topic_id=info.topic_id, partition_indexes=[0, 1]
                        )
                    ],
                )
            ],
        ),
        lambda a: a.groups[0].error_code,
    )
    (g,) = answer.groups
    assert g.error_code == NONE
    out: dict[int, int] = {}
    for t in g.topics:
        for p in t.partitions:
            assert p.error_code == NONE
            if p.committed_offset >= 0:
                out[p.partition_index] = p.committed_offset
    return out


async def wait_state(txns: KafkaTransactions, tid: str, states: set[TxnState]) -> None:
    deadline = time.monotonic() + DEADLINE
    while (await txns.describe_one(tid)).state not in states:
        assert time.monotonic() < deadline, f"{tid} never reached {states}"
        await asyncio.sleep(0.05)


async def test_an_idempotent_producer_gets_a_new_id_at_epoch_0(txns: KafkaTransactions) -> None:
    first = await txns.init_producer_id(None, 60_000, None, None, None)
    second = await txns.init_producer_id(None, 60_000, None, None, None)
    assert first[1] == 0 and second[1] == 0
    assert first[0] >= 0 and second[0] >= 0 and first[0] != second[0]


async def test_a_new_instance_bumps_the_epoch_and_fences_the_old_one(
    cluster: Cluster,
    produce: KafkaProduce,
    txns: KafkaTransactions,
) -> None:
    topic = await create_topic(cluster)
    tid = tid_of()
    pid, e0 = await txns.init_producer_id(tid, 60_000, None, None, None)
    assert (await txns.init_producer_id(tid, 60_000, None, None, None)) == (pid, e0 + 1)
    # the current epoch opens a transaction; a new instance aborts it and fences that epoch
    await write(produce, topic, 0, pid, e0 + 1, tid, [b"open"])
    pid2, e2 = await txns.init_producer_id(tid, 60_000, None, None, None)
    assert pid2 == pid and e2 > e0 + 1
    assert (await txns.describe_one(tid)).state is not TxnState.ONGOING
    with pytest.raises(SluiceError) as produced:
        await write(produce, topic, 0, pid, e0 + 1, tid, [b"late"], sequence=1)
    assert produced.value.code is ErrorCode.INVALID_PRODUCER_EPOCH
    with pytest.raises(SluiceError) as offsets:
        await txns.add_offsets(
            tid, pid, e0 + 1, tid_of("g-"), None, -1, None, [OffsetCommit(topic, 0, 1)], None
        )
    assert offsets.value.code is ErrorCode.PRODUCER_FENCED
    assert await committed_values(cluster, topic, 0) == []


async def test_records_in_two_partitions_and_offsets_commit_together(
    cluster: Cluster,
    produce: KafkaProduce,
    txns: KafkaTransactions,
) -> None:
    out, source = await create_topic(cluster, 2), await create_topic(cluster, 2)
    tid, group = tid_of(), tid_of("g-")
    pid, epoch = await txns.init_producer_id(tid, 60_000, None, None, None)
    await write(produce, out, 0, pid, epoch, tid, [b"a0", b"a1"])
    await write(produce, out, 1, pid, epoch, tid, [b"b0"])
    # no AddOffsetsToTxn: under the second version of transactions the offsets join alone
    await txns.add_offsets(
        tid,
        pid,
        epoch,
        group,
        None,
        -1,
        None,
        [OffsetCommit(source, 0, 7), OffsetCommit(source, 1, 3)],
        None,
    )
    assert (await txns.describe_one(tid)).partitions >= {(out, 0), (out, 1)}
    assert await txns.end_txn(tid, pid, epoch, commit=True) == (pid, epoch + 1)
    # the answer comes once the end is complete: the records and offsets are there at once
    assert (await txns.describe_one(tid)).state is TxnState.COMPLETE_COMMIT
    assert await committed_values(cluster, out, 0) == [b"a0", b"a1"]
    assert await committed_values(cluster, out, 1) == [b"b0"]
    assert await offsets_of(cluster, group, source) == {0: 7, 1: 3}
    # the commit sent again after its answer was lost answers the same
    assert await txns.end_txn(tid, pid, epoch, commit=True) == (pid, epoch + 1)


async def test_an_abort_hides_the_records_and_the_offsets(
    cluster: Cluster,
    produce: KafkaProduce,
    txns: KafkaTransactions,
) -> None:
    out, source = await create_topic(cluster, 2), await create_topic(cluster, 2)
    tid, group = tid_of(), tid_of("g-")
    pid, epoch = await txns.init_producer_id(tid, 60_000, None, None, None)
    await write(produce, out, 0, pid, epoch, tid, [b"a0"])
    await write(produce, out, 1, pid, epoch, tid, [b"b0"])
    await txns.add_offsets(
        tid, pid, epoch, group, None, -1, None, [OffsetCommit(source, 0, 7)], None
    )
    assert await txns.end_txn(tid, pid, epoch, commit=False) == (pid, epoch + 1)
    assert (await txns.describe_one(tid)).state is TxnState.COMPLETE_ABORT
    assert await committed_values(cluster, out, 0) == []
    assert await committed_values(cluster, out, 1) == []
    assert await offsets_of(cluster, group, source) == {}
    # with nothing open, an end answers the identity and changes nothing
    assert await txns.end_txn(tid, pid, epoch + 1, commit=True) == (pid, epoch + 1)


async def test_a_transaction_in_one_request_commits_records_and_offsets(
    cluster: Cluster,
    txns: KafkaTransactions,
) -> None:
    out, source = await create_topic(cluster, 2), await create_topic(cluster, 2)
    tid, group = tid_of(), tid_of("g-")
    pid, epoch = await txns.init_producer_id(tid, 60_000, None, None, None)
    work = TxnWork(
        batches=[
            ProduceBatch(out, 0, 0, [Record(T0, b"k", b"one", [])]),
            ProduceBatch(out, 1, 0, [Record(T0, None, b"two", []), Record(T0, None, b"three", [])]),
        ],
        offsets=[GroupOffsets(group, None, -1, None, [OffsetCommit(source, 1, 42)])],
    )
    assert await txns.commit_with(tid, pid, epoch, work) == (pid, epoch + 1)
    assert await committed_values(cluster, out, 0) == [b"one"]
    assert await committed_values(cluster, out, 1) == [b"two", b"three"]
    assert await offsets_of(cluster, group, source) == {1: 42}
    # sent again after its answer was lost: the same answer, nothing written twice
    assert await txns.commit_with(tid, pid, epoch, work) == (pid, epoch + 1)
    assert await committed_values(cluster, out, 1) == [b"two", b"three"]


async def test_a_part_refused_after_another_was_written_leaves_only_an_abort(
    cluster: Cluster,
    txns: KafkaTransactions,
) -> None:
    out = await create_topic(cluster, 2)
    tid = tid_of()
    pid, epoch = await txns.init_producer_id(tid, 60_000, None, None, None)
    work = TxnWork(
        batches=[
            ProduceBatch(out, 0, 0, [Record(T0, None, b"written", [])]),
            # a gap in the sequence: Kafka refuses it after the first batch was written
            ProduceBatch(out, 1, 5, [Record(T0, None, b"refused", [])]),
        ]
    )
    with pytest.raises(SluiceError) as refused:
        await txns.commit_with(tid, pid, epoch, work)
    assert refused.value.code is ErrorCode.INVALID_TXN_STATE
    assert "batches[1]" in refused.value.message and "only be aborted" in refused.value.message
    assert (await txns.describe_one(tid)).state is TxnState.ONGOING
    assert await txns.end_txn(tid, pid, epoch, commit=False) == (pid, epoch + 1)
    assert await committed_values(cluster, out, 0) == []


async def test_abort_prefix_ends_the_open_transactions_under_the_prefix_only(
    cluster: Cluster,
    produce: KafkaProduce,
    txns: KafkaTransactions,
) -> None:
    topic = await create_topic(cluster)
    prefix = tid_of("job-") + "-"
    mine = [prefix + "0", prefix + "1"]
    other = tid_of("job-") + "-0"
    opened = {}
    for i, tid in enumerate([*mine, other]):
        pid, epoch = await txns.init_producer_id(tid, 60_000, None, None, None)
        await write(produce, topic, 0, pid, epoch, tid, [f"v{i}".encode()])
        opened[tid] = (pid, epoch)
    assert await txns.list_transactions(TxnState.ONGOING, prefix) == mine
    assert await txns.abort_prefix(prefix, lambda t: True) == mine
    for tid in mine:
        d = await txns.describe_one(tid)
        assert d.state is not TxnState.ONGOING and d.producer_epoch > opened[tid][1]
    assert (await txns.describe_one(other)).state is TxnState.ONGOING
    assert await txns.abort_prefix(prefix, lambda t: True) == []
    await txns.end_txn(other, *opened[other], commit=True)
    assert await committed_values(cluster, topic, 0) == [b"v2"]


async def test_a_transaction_past_its_timeout_is_aborted_and_answers_timed_out(
    cluster: Cluster,
    produce: KafkaProduce,
    txns: KafkaTransactions,
) -> None:
    topic, source = await create_topic(cluster), await create_topic(cluster)
    tid = tid_of()
    pid, epoch = await txns.init_producer_id(tid, 1_000, None, None, None)
    await write(produce, topic, 0, pid, epoch, tid, [b"abandoned"])
    # the broker aborts it within a second of its timeout (make kafka's setting)
    await wait_state(txns, tid, {TxnState.COMPLETE_ABORT})
    with pytest.raises(SluiceError) as commit:
        await txns.end_txn(tid, pid, epoch, commit=True)
    assert commit.value.code is ErrorCode.TRANSACTION_TIMED_OUT
    with pytest.raises(SluiceError) as offsets:
        await txns.add_offsets(
            tid, pid, epoch, tid_of("g-"), None, -1, None, [OffsetCommit(source, 0, 1)], None
        )
    assert offsets.value.code is ErrorCode.TRANSACTION_TIMED_OUT
    with pytest.raises(SluiceError) as produced:
        await write(produce, topic, 0, pid, epoch, tid, [b"late"], sequence=1)
    assert produced.value.code is ErrorCode.INVALID_PRODUCER_EPOCH
    # recovery with the timed-out producer id and epoch (KIP-360): the next epoch, twice
    recovered = await txns.init_producer_id(tid, 1_000, pid, epoch, None)
    assert recovered[0] == pid and recovered[1] > epoch
    assert await txns.init_producer_id(tid, 1_000, pid, epoch, None) == recovered
    await write(produce, topic, 0, pid, recovered[1], tid, [b"again"])
    await txns.end_txn(tid, *recovered, commit=True)
    assert await committed_values(cluster, topic, 0) == [b"again"]


async def committed_values(
    cluster: Cluster,
    topic: str,
    partition: int,
) -> list[bytes | None]:
    """The values a read_committed reader sees once the partition is stable (its last stable
    offset at its high watermark: every marker written): the records of the aborted
    transactions Fetch lists dropped, and the markers."""
    out: list[bytes | None] = []
    aborted: list[tuple[int, int]] = []
    open_aborted: set[int] = set()
    offset = 0
    while True:
        part = await fetch_from(cluster, topic, partition, offset)
        assert part.last_stable_offset == part.high_watermark
        aborted.extend((a.producer_id, a.first_offset) for a in part.aborted_transactions or [])
        data = bytes(part.records or b"")
        if not data:
            return out
        pos = 0
        while pos < len(data):
            h = check_batch(data, pos)
            # an aborted transaction of this producer starts here: its records up to its
            # marker are dropped (each listed range taken once, as a reader takes it)
            for entry in [a for a in aborted if a[0] == h.producer_id and a[1] <= h.base_offset]:
                aborted.remove(entry)
                open_aborted.add(entry[0])
            if h.is_control:
                open_aborted.discard(h.producer_id)
            elif h.producer_id not in open_aborted:
                out.extend(r.value for r in decode_records(data, pos, h))
            pos += h.size
            offset = h.base_offset + h.last_offset_delta + 1


async def test_offsets_at_a_stale_member_epoch_answer_illegal_generation(
    cluster: Cluster, produce: KafkaProduce, txns: KafkaTransactions
) -> None:
    """docs/api.md: offsets in a transaction with a member epoch that is not current are
    ``ILLEGAL_GENERATION`` (the offset commit's ``STALE_MEMBER_EPOCH`` is outside one)."""
    groups = KafkaGroups(cluster, KafkaReads(cluster))
    topic = await create_topic(cluster, 2)
    group = tid_of("g-")
    (a,) = await settle(groups, group, [await join(groups, group, topic)], 2)
    b = await join(groups, group, topic)
    a, b = await settle(groups, group, [a, b], 2)
    _, given_away = min(parts(b))
    tid = tid_of()
    pid, epoch = await txns.init_producer_id(tid, 60_000, None, None, None)
    with pytest.raises(SluiceError) as stale:
        await txns.add_offsets(
            tid,
            pid,
            epoch,
            group,
            a.member_id,
            a.member_epoch - 1,
            None,
            [OffsetCommit(topic, given_away, 1)],
            None,
        )
    assert stale.value.code is ErrorCode.ILLEGAL_GENERATION, stale.value
    await txns.end_txn(tid, pid, epoch, commit=False)
