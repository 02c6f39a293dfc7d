"""The native Kafka cluster of make kafka, with the native client as the outside party: records
go in and come back as they were produced, the broker's log segment holds them as one record
batch (magic 2) whose fields say what was produced, and the saved vector of
tests/vectors is still the batch a broker writes for its records."""

from __future__ import annotations

import json
import time
import uuid
from typing import cast

import pytest
from confluent_kafka import TIMESTAMP_CREATE_TIME, ShareConsumer
from confluent_kafka.admin import AdminClient

from tests.kafka.native import (
    RECORDS,
    TIMEOUT,
    VECTOR_BIN,
    VECTOR_JSON,
    NativeRecord,
    consume,
    create_topic,
    describe,
    produce,
    set_group_configs,
    stored_batches,
)
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka


def test_records_come_back_as_produced_and_the_segment_holds_them_as_one_batch(
    kafka_cluster: KafkaCluster,
) -> None:
    topic = create_topic(kafka_cluster.bootstrap)
    produce(kafka_cluster.bootstrap, topic, RECORDS)

    got = consume(kafka_cluster.bootstrap, topic, len(RECORDS))
    assert [m.offset() for m in got] == list(range(len(RECORDS)))
    assert {m.timestamp()[0] for m in got} == {TIMESTAMP_CREATE_TIME}
    # the client gives headers as it was given them: a list of (name, bytes or None)
    headers = [cast(list[tuple[str, bytes | None]], m.headers() or []) for m in got]
    assert [
        NativeRecord(m.key(), m.value(), tuple(h), m.timestamp()[1])
        for m, h in zip(got, headers, strict=True)
    ] == list(RECORDS)
    epochs = {m.leader_epoch() for m in got}

    (batch,) = stored_batches(kafka_cluster, topic)
    assert batch.magic == 2
    assert batch.crc == batch.computed_crc()
    assert batch.base_offset == got[0].offset() == 0
    assert {batch.partition_leader_epoch} == epochs
    assert batch.attributes == 0  # no compression, CreateTime, not transactional, not control
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence) == (-1, -1, -1)
    assert batch.last_offset_delta == len(RECORDS) - 1
    assert batch.base_timestamp == RECORDS[0].timestamp
    assert batch.max_timestamp == max(r.timestamp for r in RECORDS)
    assert [r.offset_delta for r in batch.records] == list(range(len(RECORDS)))
    assert [
        NativeRecord(r.key, r.value, r.headers, batch.base_timestamp + r.timestamp_delta)
        for r in batch.records
    ] == list(RECORDS)
    assert {r.attributes for r in batch.records} == {0}


def test_the_saved_vector_is_the_batch_a_broker_writes_for_its_records(
    kafka_cluster: KafkaCluster,
) -> None:
    """The records produced twice to a new partition: both batches are the saved one's bytes
    but for the base offset the broker gives each (0, then one past the first's last)."""
    saved = VECTOR_BIN.read_bytes()
    topic = create_topic(kafka_cluster.bootstrap)
    produce(kafka_cluster.bootstrap, topic, RECORDS)
    produce(kafka_cluster.bootstrap, topic, RECORDS)

    first, second = stored_batches(kafka_cluster, topic)
    assert (first.base_offset, second.base_offset) == (0, len(RECORDS))
    assert first.raw == saved
    assert second.raw[8:] == saved[8:]
    assert describe(first, RECORDS) | {"written_by": None} == json.loads(
        VECTOR_JSON.read_text()
    ) | {"written_by": None}


def test_share_groups_are_on_and_take_a_record_lock_of_one_second(
    kafka_cluster: KafkaCluster,
) -> None:
    """A share group's record lock set to 1 s, its heartbeats to 200 ms and its session timeout
    to 6 s, all below Kafka's default minimums (15 s, 5 s and 45 s), which make kafka lowers: a
    record that one member holds and never acknowledges goes to the other member as its second
    delivery once the lock expires."""
    topic = create_topic(kafka_cluster.bootstrap)
    group = f"share-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    settings = [
        ("share.auto.offset.reset", "earliest"),
        ("share.record.lock.duration.ms", "1000"),
        # a member learns its partitions at its next heartbeat: 200 ms rather than 5 s
        ("share.heartbeat.interval.ms", "200"),
        ("share.session.timeout.ms", "6000"),
    ]
    set_group_configs(admin, group, settings)
    produce(kafka_cluster.bootstrap, topic, RECORDS[:1])

    def member(mode: str) -> ShareConsumer:
        consumer = ShareConsumer(
            {
                "bootstrap.servers": kafka_cluster.bootstrap,
                "group.id": group,
                "share.acknowledgement.mode": mode,
            }
        )
        consumer.subscribe([topic])
        return consumer

    def first_record(consumer: ShareConsumer) -> tuple[bytes | None, int | None, float]:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            for msg in consumer.poll(0.5):
                assert msg.error() is None, msg.error()
                return msg.value(), msg.delivery_count(), time.monotonic()
        raise AssertionError(f"no record for {consumer} within {TIMEOUT}s")

    holder = member("explicit")  # takes the record and neither acknowledges it nor polls again
    try:
        value, count, held_at = first_record(holder)
        assert (value, count) == (RECORDS[0].value, 1)
        other = member("implicit")
        try:
            value, count, again_at = first_record(other)
            assert (value, count) == (RECORDS[0].value, 2)
            assert again_at - held_at < 15
        finally:
            other.close()
    finally:
        holder.close()


def test_consumer_groups_take_timeouts_below_kafkas_default_minimums(
    kafka_cluster: KafkaCluster,
) -> None:
    """A consumer group's session timeout of 2 s and heartbeats of 200 ms: below Kafka's default
    minimums (45 s and 5 s), which make kafka lowers, so tests of a member's loss finish in
    seconds."""
    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    settings = [("consumer.session.timeout.ms", "2000"), ("consumer.heartbeat.interval.ms", "200")]
    group = f"group-{uuid.uuid4().hex[:8]}"
    # the broker describes the values it was given, within the deadline (they are under the
    # defaults' minimums, which it would refuse unless make kafka lowered them)
    set_group_configs(admin, group, settings)
