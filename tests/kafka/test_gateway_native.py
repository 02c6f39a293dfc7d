"""The reverse of test_gateway_http.py's first test: records a native Kafka producer writes
(keys placed by Kafka's murmur2, headers, timestamps it chose) read over HTTP through a gateway
with the same partition, offset, key, value, headers and timestamp; and a native transaction
is invisible to a read_committed HTTP read until the native producer commits it."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest
from confluent_kafka import Producer

from app.partitioner import partition_for_key
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_http import PARTITIONS, T0, gateway, http
from tests.kafka_cluster import KafkaCluster

__all__ = ["gateway", "http"]  # the fixtures, shared with test_gateway_http.py

pytestmark = pytest.mark.kafka


def test_records_a_native_producer_writes_are_read_over_http_as_written(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    topic = f"gw-rev-{uuid.uuid4().hex[:8]}"
    assert (
        http.post("/v1/topics", json={"name": topic, "partitions": PARTITIONS}).status_code == 201
    )
    Header = tuple[str, str | bytes | None]
    written: list[tuple[str, bytes, list[Header], int]] = [
        (f"user-{i % 5}", f"v{i}".encode(), [("source", b"native"), ("n", str(i).encode())], T0 + i)
        for i in range(20)
    ]
    producer = Producer(
        {"bootstrap.servers": kafka_cluster.bootstrap, "partitioner": "murmur2_random"}
    )
    for key, value, headers, ts in written:
        producer.produce(topic, key=key, value=value, headers=list(headers), timestamp=ts)
    assert producer.flush(TIMEOUT) == 0

    by_partition: dict[int, list[tuple[str, bytes, list[Header], int]]] = {}
    for w in written:
        by_partition.setdefault(partition_for_key(w[0].encode(), PARTITIONS), []).append(w)
    for partition, expected in by_partition.items():
        read = http.get(f"/v1/topics/{topic}/partitions/{partition}/records", params={"offset": 0})
        assert read.status_code == 200, read.text
        got = [
            (r["offset"], r["key"], r["value"], r["headers"], r["timestamp"])
            for r in read.json()["records"]
        ]
        assert got == [
            (
                offset,
                key,
                value.decode(),
                [
                    {"key": k, "value": v.decode() if isinstance(v, bytes) else v}
                    for k, v in headers
                ],
                ts,
            )
            for offset, (key, value, headers, ts) in enumerate(expected)
        ]


def test_a_native_transaction_is_invisible_over_http_until_committed(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    topic = f"gw-rev-txn-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    producer = Producer(
        {
            "bootstrap.servers": kafka_cluster.bootstrap,
            "transactional.id": f"native-{uuid.uuid4().hex[:8]}",
        }
    )
    producer.init_transactions(TIMEOUT)
    producer.begin_transaction()
    producer.produce(topic, value=b"t1", partition=0)
    producer.produce(topic, value=b"t2", partition=0)
    assert producer.flush(TIMEOUT) == 0

    def committed_values() -> list[str]:
        read = http.get(
            f"/v1/topics/{topic}/partitions/0/records",
            params={"offset": 0, "isolation_level": "read_committed"},
        )
        assert read.status_code == 200, read.text
        return [r["value"] for r in read.json()["records"]]

    uncommitted = http.get(f"/v1/topics/{topic}/partitions/0/records", params={"offset": 0})
    assert [r["value"] for r in uncommitted.json()["records"]] == ["t1", "t2"]
    assert committed_values() == []
    producer.commit_transaction(TIMEOUT)
    # the native producer's commit returns once the coordinator has decided; the markers reach
    # the partition a moment later (under the second version of transactions), and only then
    # does a read_committed read see the records: waited for, with a deadline
    deadline = time.monotonic() + TIMEOUT
    while (seen := committed_values()) != ["t1", "t2"]:
        assert seen == [] and time.monotonic() < deadline, seen
        time.sleep(0.05)
