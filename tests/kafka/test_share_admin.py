"""Share-group administration on the Kafka backend (app/kafka/share_admin.py) against the
native broker of make kafka: a group's configs set and answered back in the contract's form,
a value out of Kafka's bounds refused as INVALID_CONFIG; the list and the description of a
group a member joined; the per-record view refused; an offset reset that a dry run leaves
alone and that a member then fetches from; NON_EMPTY_GROUP with a member; a group deleted."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from app.errors import ErrorCode, SluiceError, Unsupported
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.messages import DescribeConfigsRequest
from app.kafka.share import KafkaShareGroups
from app.kafka.share_admin import (
    DLQ_COPY_RECORD,
    DLQ_TOPIC_OPT_IN,
    GROUP_RESOURCE,
    TOPIC_RESOURCE,
    KafkaShareAdmin,
)
from app.kafka.topics import KafkaTopics
from app.share.admin import PartitionSummary, ResetKind, ResetTarget, TopicReset
from app.share.membership import ShareGroupState
from app.share.partition import AckBatch, AckType
from tests.kafka.test_share import DEADLINE, fetch_some, joined, new_topic, offsets, produce

pytestmark = pytest.mark.kafka

EARLIEST = {"auto_offset_reset": "earliest"}


@pytest.fixture
async def admin(cluster: Cluster) -> KafkaShareAdmin:
    return KafkaShareAdmin(cluster)


@pytest.fixture
async def groups(cluster: Cluster) -> AsyncIterator[KafkaShareGroups]:
    g = KafkaShareGroups(cluster)
    try:
        yield g
    finally:
        await g.close()


def new_group_id() -> str:
    return f"ksa-{uuid.uuid4().hex[:12]}"


async def kafka_configs(cluster: Cluster, group: str, names: list[str]) -> dict[str, str | None]:
    conn = await cluster.any_connection()
    answer = await conn.send(
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=GROUP_RESOURCE, resource_name=group, configuration_keys=names
                )
            ]
        )
    )
    (result,) = answer.results
    return {c.name: c.value for c in result.configs}


async def partition(admin: KafkaShareAdmin, group: str, topic: str) -> PartitionSummary | None:
    _, partitions = await admin.describe(group)
    return next((s for s in partitions if (s.topic, s.partition) == (topic, 0)), None)


async def wait_partition(
    admin: KafkaShareAdmin, group: str, topic: str, start: int, lag: int
) -> PartitionSummary:
    """The share coordinator writes a partition's state once the changes that move it are
    persisted: wait for the start offset and the lag within the deadline."""
    deadline = time.monotonic() + DEADLINE
    while True:
        have = await partition(admin, group, topic)
        if have is not None and (have.start_offset, have.lag) == (start, lag):
            return have
        assert time.monotonic() < deadline, f"{have}, not start {start} and lag {lag}"
        await asyncio.sleep(0.05)


async def test_configure_sets_kafka_group_configs_and_answers_them_back(
    cluster: Cluster, admin: KafkaShareAdmin
) -> None:
    group = new_group_id()
    changes: dict[str, object] = {
        "record_lock_duration_ms": 20_000,
        "delivery_count_limit": 3,
        "partition_max_record_locks": 500,
        "auto_offset_reset": "by_duration:3600000",
        "isolation_level": "read_committed",
        "renew_enabled": False,
    }
    configured = await admin.configure(group, changes)
    assert configured.config.to_dict() == changes | {"dead_letter_topic": None}
    assert configured.explicit == changes
    # as Kafka has them: the duration in ISO-8601
    assert await kafka_configs(
        cluster, group, ["share.auto.offset.reset", "share.record.lock.duration.ms"]
    ) == {
        "share.auto.offset.reset": "by_duration:PT3600S",
        "share.record.lock.duration.ms": "20000",
    }

    # null: back to Kafka's default, the other keys kept
    again = await admin.configure(group, {"delivery_count_limit": None, "renew_enabled": True})
    assert again.config.delivery_count_limit == 5
    assert again.config.renew_enabled is True
    assert again.config.record_lock_duration_ms == 20_000
    assert "delivery_count_limit" not in again.explicit


async def test_values_out_of_kafka_bounds_are_invalid_config_and_change_nothing(
    admin: KafkaShareAdmin,
) -> None:
    group = new_group_id()
    await admin.configure(group, {"record_lock_duration_ms": 20_000})
    for changes in (
        {"record_lock_duration_ms": 500},  # below the broker's minimum (1 s)
        {"delivery_count_limit": 11},
        {"record_lock_duration_ms": 25_000, "partition_max_record_locks": 1},
    ):
        with pytest.raises(SluiceError) as refused:
            await admin.configure(group, changes)
        assert refused.value.code is ErrorCode.INVALID_CONFIG, refused.value
        assert "share group" in refused.value.message
    for bad in ({"no_such_key": 1}, {"renew_enabled": "yes"}, {"auto_offset_reset": "soon"}):
        with pytest.raises(SluiceError) as refused:
            await admin.configure(group, bad)
        assert refused.value.code is ErrorCode.INVALID_CONFIG
    # the first change of the last request was not applied either
    unchanged = await admin.configure(group, {})
    assert unchanged.config.record_lock_duration_ms == 20_000


async def test_a_dead_letter_topic_needs_kafkas_prefix_and_opts_in(
    cluster: Cluster, writer: KafkaProduce, admin: KafkaShareAdmin, groups: KafkaShareGroups
) -> None:
    group = new_group_id()
    with pytest.raises(Unsupported) as refused:
        await admin.configure(group, {"dead_letter_topic": "orders-dead"})
    assert refused.value.unsupported == "dead_letter_topic_name"
    dlq = f"dlq.{uuid.uuid4().hex[:8]}"
    with pytest.raises(SluiceError) as missing:
        await admin.configure(group, {"dead_letter_topic": dlq})
    assert missing.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    await KafkaTopics(cluster, replication_factor=-1, max_partitions=100).create(dlq, 1, {})
    configured = await admin.configure(group, EARLIEST | {"dead_letter_topic": dlq})
    assert configured.config.dead_letter_topic == dlq
    assert await kafka_configs(cluster, group, [DLQ_COPY_RECORD]) == {DLQ_COPY_RECORD: "true"}
    conn = await cluster.any_connection()
    answer = await conn.send(
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=TOPIC_RESOURCE, resource_name=dlq, configuration_keys=None
                )
            ]
        )
    )
    assert {c.name: c.value for c in answer.results[0].configs}[DLQ_TOPIC_OPT_IN] == "true"

    # "" takes the group's dead-letter topic away
    cleared = await admin.configure(group, {"dead_letter_topic": ""})
    assert cleared.config.dead_letter_topic is None
    assert "dead_letter_topic" not in cleared.explicit


async def test_list_and_describe_show_a_member_and_its_start_offsets(
    cluster: Cluster, writer: KafkaProduce, admin: KafkaShareAdmin, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), new_group_id()
    await admin.configure(group, EARLIEST)
    with pytest.raises(SluiceError) as unknown:
        await admin.describe(group)  # configs alone make no group
    assert unknown.value.code is ErrorCode.GROUP_ID_NOT_FOUND
    await produce(writer, topic, [(0, b"a"), (0, b"b"), (0, b"c")])
    member = await joined(groups, group, topic)
    got = await fetch_some(groups, group, member)
    assert offsets(got) == [(0, 1), (1, 1), (2, 1)]
    assert await groups.acknowledge(
        group, member.member_id, {(topic, 0): [AckBatch(0, 2, [AckType.ACCEPT])]}
    ) == [((topic, 0), None)]

    listed = {g.group_id: g for g in await admin.list()}
    assert (listed[group].state, listed[group].members) == (ShareGroupState.STABLE, 1)

    # Kafka keeps the start offset where it was and counts the accepted records out of the lag
    p = await wait_partition(admin, group, topic, 0, 0)
    assert (p.topic, p.partition, p.end_offset) == (topic, 0, None)
    assert dict(p.counts) == dict.fromkeys(("available", "acquired", "acknowledged", "archived"))
    described, partitions = await admin.describe(group)
    assert described.state is ShareGroupState.STABLE
    assert described.config.auto_offset_reset == "earliest"
    (m,) = described.members.values()
    assert (m.member_id, m.subscribed_topics, m.assignment) == (
        member.member_id,
        [topic],
        [(topic, [0])],
    )
    assert [(s.topic, s.partition) for s in partitions] == [(topic, 0)]

    with pytest.raises(Unsupported) as refused:
        await admin.record_views(group, topic, 0, None, None, 10)
    assert refused.value.unsupported == "share_record_view"


async def test_reset_needs_an_empty_group_and_a_dry_run_changes_nothing(
    cluster: Cluster, writer: KafkaProduce, admin: KafkaShareAdmin, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), new_group_id()
    await admin.configure(group, EARLIEST)
    await produce(writer, topic, [(0, b"a"), (0, b"b"), (0, b"c")])
    member = await joined(groups, group, topic)
    assert offsets(await fetch_some(groups, group, member)) == [(0, 1), (1, 1), (2, 1)]
    # the first accepted, the two others released: available again
    await groups.acknowledge(
        group,
        member.member_id,
        {(topic, 0): [AckBatch(0, 0, [AckType.ACCEPT]), AckBatch(1, 2, [AckType.RELEASE])]},
    )
    latest = [TopicReset(topic, None, ResetTarget(ResetKind.LATEST))]

    # with a member: every change refused
    for refused_call in (
        admin.reset_offsets(group, latest, dry_run=True),
        admin.delete_offsets(group, topic),
        admin.delete_group(group),
    ):
        with pytest.raises(SluiceError) as refused:
            await refused_call
        assert refused.value.code is ErrorCode.NON_EMPTY_GROUP

    await groups.leave(group, member.member_id)
    before = await wait_partition(admin, group, topic, 0, 2)
    assert await admin.reset_offsets(group, latest, dry_run=True) == [(topic, [(0, 3)])]
    assert await partition(admin, group, topic) == before

    assert await admin.reset_offsets(group, latest, dry_run=False) == [(topic, [(0, 3)])]
    await wait_partition(admin, group, topic, 3, 0)
    # the released records are not delivered again: a member starts at the new start offset
    await produce(writer, topic, [(0, b"d")])
    again = await joined(groups, group, topic)
    assert offsets(await fetch_some(groups, group, again)) == [(3, 1)]
    await groups.leave(group, again.member_id)

    # an offset past the end is refused; a time past every record is the end
    with pytest.raises(SluiceError) as out:
        await admin.reset_offsets(
            group, [TopicReset(topic, [0], ResetTarget(ResetKind.OFFSET, 5))], dry_run=True
        )
    assert out.value.code is ErrorCode.OFFSET_OUT_OF_RANGE
    late = [TopicReset(topic, [0], ResetTarget(ResetKind.TIMESTAMP, 1 << 50))]
    assert await admin.reset_offsets(group, late, dry_run=True) == [(topic, [(0, 4)])]
    earliest = [TopicReset(topic, [0], ResetTarget(ResetKind.EARLIEST))]
    assert await admin.reset_offsets(group, earliest, dry_run=True) == [(topic, [(0, 0)])]
    await admin.delete_offsets(group, topic)
    assert await partition(admin, group, topic) is None
    await admin.delete_offsets(group, topic)  # none left: nothing to forget, no error
    with pytest.raises(SluiceError) as unknown:
        await admin.delete_offsets(group, f"no-such-{uuid.uuid4().hex[:8]}")
    assert unknown.value.code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


async def test_an_empty_group_is_deleted(
    cluster: Cluster, admin: KafkaShareAdmin, groups: KafkaShareGroups
) -> None:
    topic, group = await new_topic(cluster), new_group_id()
    member = await joined(groups, group, topic)
    await groups.leave(group, member.member_id)
    listed = {g.group_id: g for g in await admin.list()}
    assert (listed[group].state, listed[group].members) == (ShareGroupState.EMPTY, 0)

    await admin.delete_group(group)
    with pytest.raises(SluiceError) as gone:
        await admin.describe(group)
    assert gone.value.code is ErrorCode.GROUP_ID_NOT_FOUND
    assert group not in {g.group_id for g in await admin.list()}
    with pytest.raises(SluiceError) as again:
        await admin.delete_group(group)
    assert again.value.code is ErrorCode.GROUP_ID_NOT_FOUND
