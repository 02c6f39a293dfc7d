"""A gateway killed under load, behind nginx (docs/kafka.md#several-gateways): three gateways
round-robin, the Python client's idempotent producer and share consumer pointed at nginx. The
gateway that holds the share consumer's member is killed with SIGKILL halfway; the clients
carry on through the other two. Nothing answered is lost and nothing is written twice (the
producer's retries carry their producer id and sequences, which Kafka deduplicates); the
consumer, answered ``UNKNOWN_MEMBER_ID``, joins again, gets the records the dead gateway's
sessions held with their delivery count one higher, and every record ends acknowledged."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections import Counter

import pytest
import sluice
from confluent_kafka import Consumer, TopicPartition

from app.kafka.gateways import TOPIC as GATEWAYS_TOPIC
from app.kafka.share_members import gateway_of
from tests.conftest import ServerProcess
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_forward import Gateway
from tests.kafka.test_gateway_nginx import balancer as balancer
from tests.kafka.test_gateway_nginx import gateways as gateways
from tests.kafka.test_gateway_share import new_group
from tests.kafka.test_keys import topic_records
from tests.kafka_cluster import KafkaCluster

pytestmark = [pytest.mark.kafka, pytest.mark.slow, pytest.mark.trials]

TOTAL = 400


def holder(bootstrap: str, member_id: str, servers: list[ServerProcess]) -> ServerProcess:
    """The gateway whose id the member id names, by the address it announced."""
    gateway_id = gateway_of(member_id)
    urls = {
        k.decode(): json.loads(v)["url"]
        for k, v in topic_records(bootstrap, GATEWAYS_TOPIC)
        if v is not None
    }
    (owner,) = [s for s in servers if urls.get(gateway_id or "", "").endswith(f":{s.port}")]
    return owner


def test_a_gateway_killed_under_load_loses_nothing_answered(
    kafka_cluster: KafkaCluster, gateways: list[Gateway], balancer: str
) -> None:
    servers = [server for server, _ in gateways]
    key = gateways[0][1].headers["Authorization"].removeprefix("Bearer ")
    group = new_group(kafka_cluster.bootstrap)
    topic = f"gw-kill-{uuid.uuid4().hex[:8]}"
    with sluice.Sluice(balancer, api_key=key, retries=20) as client:
        client.admin.create_topic(topic, partitions=2)
        # the producer, in a thread of its own: requests in flight when the gateway dies
        produced: list[int] = []
        failures: list[BaseException] = []

        def produce() -> None:
            try:
                producer = client.producer()
                for start in range(0, TOTAL, 20):
                    batch = [producer.send(topic, f"r{i}") for i in range(start, start + 20)]
                    producer.flush()
                    produced.extend(f.result(TIMEOUT).offset for f in batch)
            except BaseException as exc:  # the test fails on it below
                failures.append(exc)

        producing = threading.Thread(target=produce)
        producing.start()
        consumer = client.share_consumer(
            group, max_records=20, acknowledgement_mode="explicit", acquire_mode="record_limit"
        )
        consumer.subscribe([topic])
        seen: list[tuple[str | None, int]] = []
        killed: ServerProcess | None = None
        deadline = time.monotonic() + 4 * TIMEOUT
        while len({v for v, _ in seen}) < TOTAL and not failures:
            assert time.monotonic() < deadline, f"{len(seen)} records came of {TOTAL}"
            if killed is None and len(seen) >= TOTAL // 4 and consumer.member_id is not None:
                killed = holder(kafka_cluster.bootstrap, consumer.member_id, servers)
                killed.kill()  # SIGKILL: its sessions end with its connections
            for r in consumer.poll(0.5):
                seen.append((r.text(), r.delivery_count))
                consumer.acknowledge(r)
            # its gateway may die with the acknowledgements: those records come again
            with contextlib.suppress(sluice.errors.UnknownMemberIdError):
                consumer.commit_sync()
        producing.join(TIMEOUT)
        consumer.close()
    assert not failures, failures
    assert len(produced) == TOTAL and all(offset >= 0 for offset in produced)
    assert killed is not None
    # nothing answered is lost, nothing written twice
    stored = stored_values(kafka_cluster.bootstrap, topic, partitions=2)
    assert Counter(stored) == Counter(f"r{i}" for i in range(TOTAL))
    # every record consumed; those the dead gateway's sessions held came again, counted
    assert {v for v, _ in seen} == {f"r{i}" for i in range(TOTAL)}
    again = [v for v, count in seen if count > 1]
    assert all(count in (1, 2) for _, count in seen)
    assert len(seen) == TOTAL + len(again)


def stored_values(bootstrap: str, topic: str, partitions: int) -> list[str]:
    """Every record value of the topic, as a native consumer reads it, to the high watermarks."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
        }
    )
    try:
        ends = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT)[1]
            for p in range(partitions)
        }
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[str] = []
        done = {p for p, end in ends.items() if end == 0}
        deadline = time.monotonic() + TIMEOUT
        while len(done) < partitions:
            assert time.monotonic() < deadline, f"read {len(out)} records"
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            value = msg.value()
            assert isinstance(value, bytes)
            out.append(value.decode())
            partition, offset = msg.partition(), msg.offset()
            assert partition is not None and offset is not None
            if offset >= ends[partition] - 1:
                done.add(partition)
        return out
    finally:
        consumer.close()
