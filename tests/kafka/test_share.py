"""The Kafka backend's share groups (app/kafka/share.py) against the native broker of make
kafka: records acquired by a member with delivery count 1, as records and as batches; accepted
records not delivered again; released ones delivered again with count 2, rejected ones not; an
acknowledgement naming the wrong delivery count refused; two members splitting a topic with
every record accepted once; a closed session releasing what it held."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.errors import NONE
from app.kafka.protocol.messages import DescribeConfigsRequest, IncrementalAlterConfigsRequest
from app.kafka.share import KafkaMember, KafkaShareFetch, KafkaShareGroups
from app.kafka.topics import KafkaTopics
from app.share.partition import AckBatch, AckType
from app.storage.record import Record, decode_records, read_header

pytestmark = pytest.mark.kafka

DEADLINE = 30.0
BIG = 1 << 20
T0 = 1_767_225_600_000
GROUP_RESOURCE = 32  # ConfigResource type of a group


@pytest.fixture
async def groups(cluster: Cluster) -> AsyncIterator[KafkaShareGroups]:
    g = KafkaShareGroups(cluster)
    try:
        yield g
    finally:
        await g.close()


async def new_topic(cluster: Cluster, partitions: int = 1) -> str:
    name = f"ks-{uuid.uuid4().hex[:12]}"
    await KafkaTopics(cluster, replication_factor=-1, max_partitions=100).create(
        name, partitions, {}
    )
    return name


async def new_group(
    cluster: Cluster, renew: bool = False, more: dict[str, str] | None = None
) -> str:
    """A group id whose share partitions start at the earliest offset (Kafka's default is the
    latest: records produced before the first fetch would never be delivered), with the group
    configs of ``more``."""
    group = f"ksg-{uuid.uuid4().hex[:12]}"
    configs = {"share.auto.offset.reset": "earliest", **(more or {})}
    if renew:
        configs["share.renew.acknowledge.enable"] = "true"
    conn = await cluster.any_connection()
    answer = await conn.send(
        IncrementalAlterConfigsRequest(
            resources=[
                IncrementalAlterConfigsRequest.AlterConfigsResource(
                    resource_type=GROUP_RESOURCE,
                    resource_name=group,
                    configs=[
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name=key, config_operation=0, value=value
                        )
                        for key, value in configs.items()
                    ],
                )
            ]
        )
    )
    assert [r.error_code for r in answer.responses] == [NONE], answer
    # the controller answers once it has the change; the broker's group coordinator learns it
    # from the metadata log a moment later, and a member joining before then would start at
    # the latest offset: wait until the broker describes the configs
    deadline = time.monotonic() + DEADLINE
    while True:
        described = await conn.send(
            DescribeConfigsRequest(
                resources=[
                    DescribeConfigsRequest.DescribeConfigsResource(
                        resource_type=GROUP_RESOURCE,
                        resource_name=group,
                        configuration_keys=list(configs),
                    )
                ]
            )
        )
        (result,) = described.results
        have = {c.name: c.value for c in result.configs}
        if result.error_code == NONE and have == configs:
            return group
        assert time.monotonic() < deadline, f"group {group} describes {have}, not {configs}"
        await asyncio.sleep(0.05)


async def produce(writer: KafkaProduce, topic: str, values: list[tuple[int, bytes]]) -> None:
    await writer.produce_records(
        topic, [(p, Record(T0 + i, f"k{i}".encode(), v, [])) for i, (p, v) in enumerate(values)]
    )


async def joined(
    groups: KafkaShareGroups, group: str, topic: str, partitions: int = 1
) -> KafkaMember:
    """A member that joined and heartbeat until the coordinator assigned it partitions."""
    member = await groups.heartbeat(group, None, 0, [topic])
    deadline = time.monotonic() + DEADLINE
    while not member.assignment.get(topic):
        assert time.monotonic() < deadline, "no assignment"
        await asyncio.sleep(0.05)
        member = await groups.heartbeat(group, member.member_id, member.member_epoch, None)
    return member


async def fetch_some(
    groups: KafkaShareGroups, group: str, member: KafkaMember, wait_ms: int = 2000
) -> KafkaShareFetch:
    """The first fetch that acquires records, within the deadline."""
    deadline = time.monotonic() + DEADLINE
    while True:
        got = await groups.fetch(
            group, member.member_id, max_records=100, max_wait_ms=wait_ms, max_bytes=BIG
        )
        if got.answer.records or time.monotonic() > deadline:
            return got


def offsets(got: KafkaShareFetch) -> list[tuple[int, int]]:
    """(offset, delivery count) of the records a fetch acquired, in partition 0 order."""
    return [(r.offset, n) for fr in got.answer.records for r, n in fr.records]


async def test_acquired_with_count_1_and_accepted_not_delivered_again(
    cluster: Cluster, writer: KafkaProduce, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), await new_group(cluster)
    await produce(writer, topic, [(0, b"a"), (0, b"b"), (0, b"c")])
    member = await joined(groups, group, topic)
    assert member.member_epoch > 0
    assert member.assignment == {topic: [0]}

    got = await fetch_some(groups, group, member)
    assert offsets(got) == [(0, 1), (1, 1), (2, 1)]
    assert [r.value for fr in got.answer.records for r, _ in fr.records] == [b"a", b"b", b"c"]
    assert [(a.first, a.last, a.delivery_count) for a in got.answer.acquired] == [(0, 2, 1)]
    assert got.answer.lock_timeout_ms > 0
    # the batches as the broker sent them hold the same records
    ((t, p, batches),) = got.batches
    assert (t, p) == (topic, 0)
    decoded = [r.value for b in batches for r in decode_records(b, 0, read_header(b, 0))]
    assert decoded == [b"a", b"b", b"c"]

    errors = await groups.acknowledge(
        group, member.member_id, {(topic, 0): [AckBatch(0, 2, [AckType.ACCEPT])]}
    )
    assert errors == [((topic, 0), None)]
    again = await groups.fetch(
        group, member.member_id, max_records=100, max_wait_ms=500, max_bytes=BIG
    )
    assert again.answer.records == [] and again.answer.ack_errors == []


async def test_released_come_back_with_count_2_rejected_do_not(
    cluster: Cluster, writer: KafkaProduce, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), await new_group(cluster)
    await produce(writer, topic, [(0, b"r0"), (0, b"r1"), (0, b"x2"), (0, b"x3")])
    member = await joined(groups, group, topic)
    got = await fetch_some(groups, group, member)
    assert offsets(got) == [(0, 1), (1, 1), (2, 1), (3, 1)]

    # a delivery count other than the one handed out is refused before anything is sent
    wrong = await groups.acknowledge(
        group,
        member.member_id,
        {(topic, 0): [AckBatch(0, 3, [AckType.ACCEPT], delivery_count=2)]},
    )
    ((key, err),) = wrong
    assert key == (topic, 0) and err is not None
    assert err.code is ErrorCode.INVALID_RECORD_STATE

    # release 0-1 and reject 2-3, carried by the next fetch (one type per offset)
    kinds = [AckType.RELEASE, AckType.RELEASE, AckType.REJECT, AckType.REJECT]
    again = await groups.fetch(
        group,
        member.member_id,
        max_records=100,
        max_wait_ms=2000,
        max_bytes=BIG,
        acks={(topic, 0): [AckBatch(0, 3, kinds, delivery_count=1)]},
    )
    assert again.answer.ack_errors == []
    if not again.answer.records:  # released records may come on the fetch after
        again = await fetch_some(groups, group, member)
    assert offsets(again) == [(0, 2), (1, 2)]
    assert [r.value for fr in again.answer.records for r, _ in fr.records] == [b"r0", b"r1"]

    done = await groups.acknowledge(
        group,
        member.member_id,
        {(topic, 0): [AckBatch(0, 1, [AckType.ACCEPT], delivery_count=2)]},
    )
    assert done == [((topic, 0), None)]
    rest = await groups.fetch(
        group, member.member_id, max_records=100, max_wait_ms=500, max_bytes=BIG
    )
    assert rest.answer.records == []


async def test_two_members_split_the_records_each_accepted_once(
    cluster: Cluster, writer: KafkaProduce, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster, partitions=2), await new_group(cluster)
    values = [(i % 2, f"v{i}".encode()) for i in range(40)]
    await produce(writer, topic, values)
    a = await joined(groups, group, topic)
    b = await joined(groups, group, topic)

    accepted: list[tuple[str, int, int]] = []
    by_member: dict[str, int] = {a.member_id: 0, b.member_id: 0}
    pending: dict[str, dict[tuple[str, int], list[AckBatch]]] = {a.member_id: {}, b.member_id: {}}
    deadline = time.monotonic() + DEADLINE
    while len(accepted) < len(values):
        assert time.monotonic() < deadline, f"accepted {len(accepted)} of {len(values)}"
        for m in (a, b):
            # heartbeats keep both members in the group and their assignments current
            await groups.heartbeat(group, m.member_id, m.member_epoch, None)
            got = await groups.fetch(
                group,
                m.member_id,
                max_records=7,
                max_wait_ms=200,
                max_bytes=BIG,
                acks=pending[m.member_id],
            )
            assert got.answer.ack_errors == []
            pending[m.member_id] = {}
            for fr in got.answer.records:
                by_member[m.member_id] += len(fr.records)
                accepted.extend((fr.topic, fr.partition, r.offset) for r, _ in fr.records)
                pending[m.member_id][(fr.topic, fr.partition)] = [
                    AckBatch(r.offset, r.offset, [AckType.ACCEPT], delivery_count=n)
                    for r, n in fr.records
                ]
    for m in (a, b):  # the last acceptances
        assert [
            e for _, e in await groups.acknowledge(group, m.member_id, pending[m.member_id])
        ] == [None] * len(pending[m.member_id])
    assert sorted(accepted) == sorted(
        (topic, p, o) for p in (0, 1) for o in range(len(values) // 2)
    )
    assert len(set(accepted)) == len(accepted)  # no record delivered twice
    assert all(n > 0 for n in by_member.values()), by_member  # both members took a share


async def test_closing_a_session_releases_what_it_held(
    cluster: Cluster, writer: KafkaProduce, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), await new_group(cluster)
    await produce(writer, topic, [(0, b"h0"), (0, b"h1"), (0, b"h2")])
    member = await joined(groups, group, topic)
    got = await fetch_some(groups, group, member)
    assert offsets(got) == [(0, 1), (1, 1), (2, 1)]

    await groups.close_sessions(group, member.member_id)
    assert member.sessions == {}
    # the next fetch opens a new session, and the released records are acquired again
    again = await fetch_some(groups, group, member)
    assert [o for o, _ in offsets(again)] == [0, 1, 2]
    # Kafka 4.4 counts the first delivery: released by the session's end, the records come
    # back with count 2 (the embedded engine lowers the count of records a leaving member held)
    assert {n for _, n in offsets(again)} == {2}


async def test_renew_keeps_records_acquired(
    cluster: Cluster, writer: KafkaProduce, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), await new_group(cluster, renew=True)
    await produce(writer, topic, [(0, b"n0"), (0, b"n1")])
    member = await joined(groups, group, topic)
    got = await fetch_some(groups, group, member)
    assert offsets(got) == [(0, 1), (1, 1)]
    renewed = await groups.acknowledge(
        group, member.member_id, {(topic, 0): [AckBatch(0, 1, [AckType.RENEW])]}
    )
    assert renewed == [((topic, 0), None)]
    # still the member's: accepted after the renewal, and never delivered again
    done = await groups.acknowledge(
        group, member.member_id, {(topic, 0): [AckBatch(0, 1, [AckType.ACCEPT], delivery_count=1)]}
    )
    assert done == [((topic, 0), None)]
    rest = await groups.fetch(
        group, member.member_id, max_records=100, max_wait_ms=500, max_bytes=BIG
    )
    assert rest.answer.records == []


async def test_a_member_that_leaves_releases_its_records_to_another(
    cluster: Cluster, writer: KafkaProduce, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), await new_group(cluster)
    await produce(writer, topic, [(0, b"l0"), (0, b"l1")])
    a = await joined(groups, group, topic)
    assert offsets(await fetch_some(groups, group, a)) == [(0, 1), (1, 1)]

    await groups.heartbeat(group, a.member_id, -1, None)
    with pytest.raises(SluiceError) as gone:
        await groups.fetch(group, a.member_id, max_records=10, max_wait_ms=0, max_bytes=BIG)
    assert gone.value.code is ErrorCode.UNKNOWN_MEMBER_ID

    b = await joined(groups, group, topic)
    assert offsets(await fetch_some(groups, group, b)) == [(0, 2), (1, 2)]
