"""The native Kafka client as the outside party: records it produces to a native broker, and the
batch the broker stores for them, saved as a test vector.

tests/vectors/native_batch_plain.bin is one record batch exactly as a Kafka 4.4 broker stored
it (base offset 0, partition leader epoch 0) for RECORDS, produced by the native client without
compression or idempotence; tests/vectors/native_batch_plain.json describes it, field by field
and record by record (keys, values and header values in hex, null as null). A codec test can
compare its bytes with its own encoding of the records without a broker; the tests marked
kafka check that a broker still writes those bytes. To write the files anew, with a cluster
running (make kafka):

    .venv/bin/python -m tests.kafka.native
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

import confluent_kafka
from confluent_kafka import Consumer, Message, Producer, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)

from tests.conftest import ROOT
from tests.kafka.batch import Batch, parse_segment
from tests.kafka_cluster import RUN_DIR, KafkaCluster, running

VECTORS = ROOT / "tests" / "vectors"
VECTOR_BIN = VECTORS / "native_batch_plain.bin"
VECTOR_JSON = VECTORS / "native_batch_plain.json"
KAFKA_VERSION = "4.4.0"  # kafka/pom.xml's
TIMEOUT = 30.0


@dataclass(frozen=True)
class NativeRecord:
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    timestamp: int  # milliseconds, the producer's (CreateTime)


T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
# Keys, values and headers of every shape a batch holds: text and binary, empty and null, a
# header with a null value, a record with no headers, and a timestamp earlier than the one
# before it (a negative delta) so that the batch's max timestamp is not its last.
RECORDS = (
    NativeRecord(b"order-1", b'{"qty": 3}', (("trace", b"a1"), ("source", b"web")), T0),
    NativeRecord(b"order-2", b"", (("trace", None),), T0 + 1_500),
    NativeRecord(None, bytes(range(0, 256, 15)), (), T0 + 1_501),
    NativeRecord(b"order-1", None, (("trace", b""),), T0 - 200),
)


def producer_config(bootstrap: str) -> dict[str, Any]:
    """Plain batches: no compression, no idempotence (producer id, epoch and base sequence stay
    -1), every record of a flush in one batch."""
    return {
        "bootstrap.servers": bootstrap,
        "enable.idempotence": False,
        "compression.type": "none",
        "acks": "all",
        "linger.ms": 1000,  # flush() sends at once; until then the records gather in one batch
    }


def create_topic(bootstrap: str, partitions: int = 1) -> str:
    topic = f"native-{uuid.uuid4().hex[:12]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions)])
    futures[topic].result(timeout=TIMEOUT)
    return topic


def produce(bootstrap: str, topic: str, records: tuple[NativeRecord, ...]) -> None:
    producer = Producer(producer_config(bootstrap))
    failures: list[str] = []

    def delivered(err: Any, msg: Message) -> None:
        if err is not None:
            failures.append(str(err))

    for r in records:
        producer.produce(
            topic,
            key=r.key,
            value=r.value,
            headers=list(r.headers),
            timestamp=r.timestamp,
            partition=0,
            on_delivery=delivered,
        )
    left = producer.flush(TIMEOUT)
    assert left == 0 and failures == [], (left, failures)


def consume(bootstrap: str, topic: str, count: int) -> list[Message]:
    """The first ``count`` records of partition 0, read from its start."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, 0, confluent_kafka.OFFSET_BEGINNING)])
        got: list[Message] = []
        deadline = time.monotonic() + TIMEOUT
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            got.append(msg)
        return got
    finally:
        consumer.close()


def leader(bootstrap: str, topic: str) -> int:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    meta = admin.list_topics(topic, timeout=TIMEOUT)
    return int(meta.topics[topic].partitions[0].leader)


def stored_batches(cluster: KafkaCluster, topic: str) -> list[Batch]:
    """The batches of partition 0 as its leader stored them, from its log segment files."""
    segments = cluster.segments(leader(cluster.bootstrap, topic), topic, 0)
    assert segments, f"no log segment for {topic}-0 under {cluster.run_dir}"
    return [b for s in segments for b in parse_segment(s.read_bytes())]


def _hex(b: bytes | None) -> str | None:
    return None if b is None else b.hex()


def describe(batch: Batch, records: tuple[NativeRecord, ...]) -> dict[str, Any]:
    """What the JSON vector says: the batch's header fields and the records that made it."""
    return {
        "written_by": {
            "kafka_broker": KAFKA_VERSION,
            "native_client": confluent_kafka.libversion()[0],
            "producer": {k: v for k, v in producer_config("").items() if k != "bootstrap.servers"},
        },
        "batch": {
            "length": len(batch.raw),
            "base_offset": batch.base_offset,
            "batch_length": batch.batch_length,
            "partition_leader_epoch": batch.partition_leader_epoch,
            "magic": batch.magic,
            "crc": batch.crc,
            "attributes": batch.attributes,
            "last_offset_delta": batch.last_offset_delta,
            "base_timestamp": batch.base_timestamp,
            "max_timestamp": batch.max_timestamp,
            "producer_id": batch.producer_id,
            "producer_epoch": batch.producer_epoch,
            "base_sequence": batch.base_sequence,
            "record_count": len(batch.records),
        },
        "records": [
            {
                "offset_delta": i,
                "timestamp": r.timestamp,
                "key": _hex(r.key),
                "value": _hex(r.value),
                "headers": [[name, _hex(value)] for name, value in r.headers],
            }
            for i, r in enumerate(records)
        ],
    }


def native_batch(cluster: KafkaCluster) -> Batch:
    """RECORDS produced to a new topic, and the one batch the broker stored for them."""
    topic = create_topic(cluster.bootstrap)
    produce(cluster.bootstrap, topic, RECORDS)
    (batch,) = stored_batches(cluster, topic)
    return batch


def write_vectors(cluster: KafkaCluster) -> None:
    batch = native_batch(cluster)
    VECTORS.mkdir(exist_ok=True)
    VECTOR_BIN.write_bytes(batch.raw)
    VECTOR_JSON.write_text(json.dumps(describe(batch, RECORDS), indent=2) + "\n")


def set_group_configs(admin: AdminClient, group: str, settings: list[tuple[str, str]]) -> None:
    """Set a group's configs and return once the broker describes them. The controller answers
    the change once it has it, and the broker's group coordinator learns it from the metadata
    log a moment later: a member that joins in between starts with the old configs (a share
    group at the latest offset, say, so records produced before never come)."""
    resource = ConfigResource(
        ResourceType.GROUP,
        group,
        incremental_configs=[
            ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in settings
        ],
    )
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(timeout=TIMEOUT)
    want = dict(settings)
    deadline = time.monotonic() + TIMEOUT
    while True:
        (described,) = admin.describe_configs([ConfigResource(ResourceType.GROUP, group)]).values()
        entries = described.result(timeout=TIMEOUT)
        have = {k: entries[k].value for k in want if k in entries}
        if have == want:
            return
        assert time.monotonic() < deadline, f"group {group} describes {have}, not {want}"
        time.sleep(0.05)


def main() -> int:
    bootstrap = running()
    if bootstrap is None:
        print("no cluster runs from kafka/run/: start one with make kafka", file=sys.stderr)
        return 1
    write_vectors(KafkaCluster(bootstrap=bootstrap, run_dir=RUN_DIR))
    print(f"wrote {VECTOR_BIN.relative_to(ROOT)} and {VECTOR_JSON.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
