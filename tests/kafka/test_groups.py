"""The Kafka backend's consumer groups (app/kafka/groups.py) against the native broker of
make kafka: two members splitting a topic's partitions by KIP-848 heartbeats, a commit at a
stale member epoch refused with the contract's code, offsets committed and fetched back and
deleted, a member leaving and its partitions going to the other, description and listing."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable

import pytest

from app.errors import ErrorCode, SluiceError
from app.groups.coordinator import HeartbeatAnswer
from app.groups.group import OffsetCommit
from app.groups.state import GroupState
from app.kafka.cluster import Cluster
from app.kafka.groups import KafkaGroups
from app.kafka.produce import KafkaProduce
from app.kafka.reads import KafkaReads
from app.storage.record import Record
from tests.kafka.test_produce import create_topic
from tests.kafka.test_produce import produce as produce

pytestmark = pytest.mark.kafka

DEADLINE = 30.0
T0 = 1_767_225_600_000


@pytest.fixture
def groups(cluster: Cluster) -> KafkaGroups:
    return KafkaGroups(cluster, KafkaReads(cluster))


def allow(topics: Iterable[str]) -> None:
    """The READ check of OffsetDelete, for a principal that may read every topic."""


def group_of() -> str:
    return f"kg-{uuid.uuid4().hex[:10]}"


def parts(a: HeartbeatAnswer) -> set[tuple[str, int]]:
    return {(t, p) for t, ps in a.assignment for p in ps}


async def join(groups: KafkaGroups, group: str, topic: str) -> HeartbeatAnswer:
    return await groups.heartbeat(group, None, 0, None, [topic], 60_000, None, None)


async def beat(groups: KafkaGroups, group: str, a: HeartbeatAnswer) -> HeartbeatAnswer:
    return await groups.heartbeat(group, a.member_id, a.member_epoch, None, None, None, None, None)


async def settle(
    groups: KafkaGroups, group: str, members: list[HeartbeatAnswer], want: int
) -> list[HeartbeatAnswer]:
    """Heartbeat every member in turn until their assignments are disjoint, cover ``want``
    partitions and each member's is stable across a round; fails at the deadline."""
    deadline = time.monotonic() + DEADLINE
    while True:
        before = [parts(m) for m in members]
        members = [await beat(groups, group, m) for m in members]
        after = [parts(m) for m in members]
        union = set().union(*after)
        disjoint = sum(len(s) for s in after) == len(union)
        if before == after and disjoint and len(union) == want and all(after):
            return members
        assert time.monotonic() < deadline, f"assignments did not settle: {after}"


async def test_two_members_split_then_one_leaves(groups: KafkaGroups, cluster: Cluster) -> None:
    topic = await create_topic(cluster, 4)
    group = group_of()
    a = await join(groups, group, topic)
    assert a.member_epoch > 0 and a.member_id
    (a,) = await settle(groups, group, [a], 4)
    assert parts(a) == {(topic, p) for p in range(4)}

    b = await join(groups, group, topic)
    a, b = await settle(groups, group, [a, b], 4)
    assert len(parts(a)) == 2 and len(parts(b)) == 2
    assert parts(a) | parts(b) == {(topic, p) for p in range(4)}

    left = await groups.heartbeat(group, a.member_id, -1, None, None, None, None, None)
    assert left.member_epoch == -1 and left.assignment == []
    (b,) = await settle(groups, group, [b], 4)
    assert parts(b) == {(topic, p) for p in range(4)}

    described = await groups.describe_group(group)
    assert list(described.members) == [b.member_id]
    assert described.members[b.member_id].assigned == frozenset(parts(b))
    assert described.state is GroupState.STABLE


async def test_commit_fetch_and_fencing(
    groups: KafkaGroups, cluster: Cluster, produce: KafkaProduce
) -> None:
    topic = await create_topic(cluster, 4)
    await produce.produce_records(topic, [(0, Record(T0 + i, None, b"v", [])) for i in range(5)])
    group = group_of()
    (a,) = await settle(groups, group, [await join(groups, group, topic)], 4)

    errors = await groups.commit_offsets(
        group,
        a.member_id,
        a.member_epoch,
        [OffsetCommit(topic, 0, 3, "m0"), OffsetCommit(topic, 2, 7), OffsetCommit("kg-no", 0, 1)],
        None,
    )
    assert errors[:2] == [None, None]
    assert errors[2] is not None and errors[2].code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    views = await groups.fetch_offsets(group, None, False)
    assert [(v.topic, v.partition, v.offset, v.metadata) for v in views] == [
        (topic, 0, 3, "m0"),
        (topic, 2, 7, ""),
    ]
    assert [v.offset for v in await groups.fetch_offsets(group, topic, True)] == [3, 7]

    # a second member bumps the first one's epoch: its old epoch is stale for a partition it
    # no longer has (Kafka takes an older epoch for a partition the member still has since
    # then), and so is one ahead
    b = await join(groups, group, topic)
    a, b = await settle(groups, group, [a, b], 4)
    _, given_away = min(parts(b))
    with pytest.raises(SluiceError) as stale:
        await groups.commit_offsets(
            group, a.member_id, a.member_epoch - 1, [OffsetCommit(topic, given_away, 1)], None
        )
    assert stale.value.code is ErrorCode.STALE_MEMBER_EPOCH
    with pytest.raises(SluiceError) as ahead:
        await groups.commit_offsets(
            group, a.member_id, a.member_epoch + 1, [OffsetCommit(topic, 1, 1)], None
        )
    assert ahead.value.code is ErrorCode.STALE_MEMBER_EPOCH
    # a heartbeat at an epoch the member does not have is fenced
    with pytest.raises(SluiceError) as fenced:
        await groups.heartbeat(group, a.member_id, a.member_epoch + 1, None, None, None, None, None)
    assert fenced.value.code is ErrorCode.FENCED_MEMBER_EPOCH
    a = await groups.heartbeat(group, a.member_id, 0, None, [topic], 60_000, None, None)
    with pytest.raises(SluiceError) as unknown:
        await groups.commit_offsets(group, "nobody", 1, [OffsetCommit(topic, 1, 1)], None)
    assert unknown.value.code is ErrorCode.UNKNOWN_MEMBER_ID

    g, lags = await groups.describe(group)
    assert set(g.members) == {a.member_id, b.member_id}
    assert [(x.partition, x.offset, x.lag) for x in lags] == [(0, 3, 2), (2, 7, 0)]
    assert group in await groups.list_groups()
    assert group in [x.group_id for x in await groups.all()]

    # offsets of a topic the group is subscribed to stay while it has members
    with pytest.raises(SluiceError) as busy:
        await groups.delete_offsets(group, topic, allow)
    assert busy.value.code is ErrorCode.NON_EMPTY_GROUP
    for m in (a, b):
        await groups.heartbeat(group, m.member_id, -1, None, None, None, None, None)
    await groups.delete_offsets(group, topic, allow)
    assert await groups.fetch_offsets(group, None, False) == []
    await groups.delete_group(group)
    with pytest.raises(SluiceError) as gone:
        await groups.describe_group(group)
    assert gone.value.code is ErrorCode.GROUP_ID_NOT_FOUND


async def test_owner_and_unknown_group(groups: KafkaGroups, cluster: Cluster) -> None:
    topic = await create_topic(cluster, 1)
    group = group_of()
    a = await groups.heartbeat(group, None, 0, None, [topic], None, None, "alice")
    groups.check_owner(group, a.member_id, "alice")
    with pytest.raises(SluiceError) as other:
        groups.check_owner(group, a.member_id, "bob")
    assert other.value.code is ErrorCode.UNKNOWN_MEMBER_ID
    with pytest.raises(SluiceError) as missing:
        await groups.describe(group_of())
    assert missing.value.code is ErrorCode.GROUP_ID_NOT_FOUND
    assert await groups.fetch_offsets(group_of(), None, False) == []


async def test_a_group_of_offsets_only_is_listed_and_described_empty(
    groups: KafkaGroups, cluster: Cluster
) -> None:
    """Offsets committed without a member make a group of Kafka's classic type, which
    ConsumerGroupDescribe does not describe: the contract's empty consumer group all the same,
    listed, described with no member, and deleted."""
    topic = await create_topic(cluster, 1)
    group = group_of()
    assert await groups.commit_offsets(group, None, -1, [OffsetCommit(topic, 0, 3)], None) == [None]
    assert group in await groups.list_groups()
    g, lags = await groups.describe(group)
    assert (g.group_id, g.state, g.members) == (group, GroupState.EMPTY, {})
    assert [(x.partition, x.offset) for x in lags] == [(0, 3)]
    assert group in [x.group_id for x in await groups.all()]
    await groups.delete_group(group)
    assert group not in await groups.list_groups()
    with pytest.raises(SluiceError) as gone:
        await groups.describe_group(group)
    assert gone.value.code is ErrorCode.GROUP_ID_NOT_FOUND
