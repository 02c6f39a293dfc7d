"""The gateway's connection and cluster (app/kafka/connection.py, app/kafka/cluster.py) against
the native broker of make kafka: versions chosen from its ApiVersions, a topic created and its
leader learned from Metadata, an idempotent producer id, a record batch built by the server's
own codec produced and fetched back byte for byte, a group's coordinator, and a stale cache
learned again when the broker says so."""

from __future__ import annotations

import asyncio
import socket
import uuid

import pytest

from app.kafka.cluster import GROUP, TRANSACTION, Broker, Cluster, PartitionInfo, TopicInfo
from app.kafka.connection import BrokerConnection
from app.kafka.protocol.errors import NONE, UNKNOWN_TOPIC_ID
from app.kafka.protocol.messages import (
    REQUESTS,
    ConsumerGroupDescribeRequest,
    CreateTopicsRequest,
    FetchRequest,
    FetchResponse,
    InitProducerIdRequest,
    MetadataRequest,
    ProduceRequest,
    ProduceResponse,
)
from app.storage.record import Header, Record, encode_batch
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

T0 = 1_767_225_600_000
RECORDS = [
    Record(T0, b"order-1", b'{"qty": 3}', [Header("trace", b"a1")]),
    Record(T0 + 5, None, b"", []),
    Record(T0 - 3, b"order-2", None, [Header("trace", None)]),
]


async def create_topic(cluster: Cluster, partitions: int = 1) -> str:
    name = f"gw-{uuid.uuid4().hex[:12]}"
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
    assert (result.name, result.error_code) == (name, NONE), result.error_message
    assert result.num_partitions == partitions
    return name


async def test_versions_are_the_highest_the_broker_and_the_codec_both_take(
    kafka_cluster: KafkaCluster,
) -> None:
    host, _, port = kafka_cluster.bootstrap.split(",")[0].rpartition(":")
    conn = await BrokerConnection.open(host, int(port))
    try:
        for key in (0, 1, 3, 10, 18, 19, 22):
            theirs = conn.broker_versions[key]
            ours = REQUESTS[key].MAX_STABLE_VERSION
            assert conn.versions[key] == min(ours, theirs.max_version)
        # the versions this backend is written for: topics by id in Produce and Fetch
        assert conn.version(ProduceRequest) >= 13
        assert conn.version(FetchRequest) >= 13
        # many requests on one connection at once, each answered
        answers = await asyncio.gather(
            *(conn.send(MetadataRequest(topics=None)) for _ in range(10))
        )
        assert len({a.cluster_id for a in answers}) == 1
    finally:
        await conn.close()


async def test_a_created_topic_shows_in_metadata_with_its_leader(cluster: Cluster) -> None:
    topic = await create_topic(cluster, partitions=3)
    info, p = await cluster.leader(topic, 2)
    assert info.name == topic and info.topic_id != uuid.UUID(int=0)
    assert sorted(info.partitions) == [0, 1, 2]
    assert p.leader_id in cluster.brokers
    assert p.leader_id in p.replicas and p.leader_id in p.isr
    # a connection per broker, made on demand and then reused
    conn = await cluster.connection(p.leader_id)
    assert await cluster.connection(p.leader_id) is conn


async def test_produce_of_a_batch_built_by_the_codec_comes_back_byte_for_byte(
    cluster: Cluster,
) -> None:
    topic = await create_topic(cluster)
    info, p = await cluster.leader(topic, 0)
    conn = await cluster.connection(p.leader_id)

    pid = await conn.send(InitProducerIdRequest(transactional_id=None))
    assert pid.error_code == NONE
    assert pid.producer_id >= 0 and pid.producer_epoch >= 0

    # the broker stamps the batch with its base offset (0) and the partition's leader epoch;
    # the CRC covers neither, so the batch comes back as built once those are the same
    batch = encode_batch(
        0,
        RECORDS,
        producer_id=pid.producer_id,
        producer_epoch=pid.producer_epoch,
        base_sequence=0,
        leader_epoch=p.leader_epoch,
    )

    def produce(t: TopicInfo, part: PartitionInfo) -> ProduceRequest:
        return ProduceRequest(
            acks=-1,
            timeout_ms=30_000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name=t.name,
                    topic_id=t.topic_id,
                    partition_data=[
                        ProduceRequest.PartitionProduceData(index=part.partition, records=batch)
                    ],
                )
            ],
        )

    produced = await cluster.send_to_leader(topic, 0, produce, produce_error)
    (presp,) = produced.responses[0].partition_responses
    assert (presp.error_code, presp.base_offset) == (NONE, 0), presp.error_message

    fetched = await conn.send(
        FetchRequest(
            max_wait_ms=0,
            min_bytes=0,
            topics=[
                FetchRequest.FetchTopic(
                    topic=topic,
                    topic_id=info.topic_id,
                    partitions=[
                        FetchRequest.FetchPartition(
                            partition=0,
                            current_leader_epoch=p.leader_epoch,
                            fetch_offset=0,
                            partition_max_bytes=1 << 20,
                        )
                    ],
                )
            ],
        )
    )
    assert fetched.error_code == NONE
    (fresp,) = fetched.responses[0].partitions
    assert fresp.error_code == NONE
    assert fresp.high_watermark == len(RECORDS)
    assert fresp.records is not None
    assert bytes(fresp.records) == batch


def produce_error(answer: ProduceResponse) -> int:
    return answer.responses[0].partition_responses[0].error_code


def fetch_error(answer: FetchResponse) -> int:
    return answer.error_code or answer.responses[0].partitions[0].error_code


async def test_a_stale_topic_id_is_learned_again_and_the_request_sent_again(
    cluster: Cluster,
) -> None:
    topic = await create_topic(cluster)
    info, _ = await cluster.leader(topic, 0)
    # the cache says the topic has another id (as after the topic was deleted and created
    # again): the broker answers UNKNOWN_TOPIC_ID, and the cluster asks Metadata again
    cluster.topics[topic] = TopicInfo(topic, uuid.uuid4(), info.partitions)
    seen: list[uuid.UUID] = []

    def fetch(t: TopicInfo, part: PartitionInfo) -> FetchRequest:
        seen.append(t.topic_id)
        return FetchRequest(
            max_wait_ms=0,
            topics=[
                FetchRequest.FetchTopic(
                    topic_id=t.topic_id,
                    partitions=[
                        FetchRequest.FetchPartition(
                            partition=part.partition, fetch_offset=0, partition_max_bytes=1024
                        )
                    ],
                )
            ],
        )

    answer = await cluster.send_to_leader(topic, 0, fetch, fetch_error)
    assert fetch_error(answer) == NONE
    assert seen[-1] == info.topic_id and len(seen) == 2
    assert seen[0] != info.topic_id
    assert cluster.stale(topic, UNKNOWN_TOPIC_ID)
    assert topic not in cluster.topics


async def test_the_coordinator_of_a_group_is_found_and_kept(cluster: Cluster) -> None:
    group = f"gw-group-{uuid.uuid4().hex[:8]}"
    node_id = await cluster.coordinator(group, GROUP)
    assert node_id in cluster.brokers
    assert await cluster.coordinator(group, GROUP) == node_id
    conn = await cluster.connection(node_id)
    assert not conn.closed


async def test_a_transactional_id_gets_a_producer_id_from_its_coordinator(
    cluster: Cluster,
) -> None:
    txn = f"gw-txn-{uuid.uuid4().hex[:8]}"
    answer = await cluster.send_to_coordinator(
        txn,
        TRANSACTION,
        lambda: InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=60_000),
        lambda a: a.error_code,
    )
    assert answer.error_code == NONE
    assert answer.producer_id >= 0
    assert await cluster.coordinator(txn, TRANSACTION) in cluster.brokers


def refusing_broker(cluster: Cluster) -> tuple[int, socket.socket]:
    """A broker in the cluster's cache whose address refuses connections, as a broker killed
    does until the controllers fence it: a port bound and not listening (the socket is
    returned, to be closed by the caller)."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    node_id = max(cluster.brokers) + 100
    cluster.brokers[node_id] = Broker(node_id, "127.0.0.1", held.getsockname()[1])
    return node_id, held


async def test_a_leader_that_refuses_connections_is_forgotten_and_the_request_sent_again(
    cluster: Cluster,
) -> None:
    topic = await create_topic(cluster)
    info, part = await cluster.leader(topic, 0)
    dead, held = refusing_broker(cluster)
    try:
        # the cache names a leader that died; the metadata the cluster answers now names the
        # one that took over
        cluster.topics[topic] = TopicInfo(
            topic,
            info.topic_id,
            {0: PartitionInfo(0, dead, part.leader_epoch, part.replicas, part.isr, NONE)},
        )

        def fetch(t: TopicInfo, p: PartitionInfo) -> FetchRequest:
            return FetchRequest(
                max_wait_ms=0,
                topics=[
                    FetchRequest.FetchTopic(
                        topic_id=t.topic_id,
                        partitions=[
                            FetchRequest.FetchPartition(
                                partition=p.partition, fetch_offset=0, partition_max_bytes=1024
                            )
                        ],
                    )
                ],
            )

        answer = await cluster.send_to_leader(topic, 0, fetch, fetch_error)
        assert fetch_error(answer) == NONE
        assert cluster.topics[topic].partitions[0].leader_id == part.leader_id
    finally:
        held.close()


async def test_a_coordinator_that_refuses_connections_is_forgotten_and_found_again(
    cluster: Cluster,
) -> None:
    group = f"gw-group-{uuid.uuid4().hex[:8]}"
    live = await cluster.coordinator(group, GROUP)
    dead, held = refusing_broker(cluster)
    try:
        cluster._coordinators[(GROUP, group)] = dead
        answer = await cluster.send_to_coordinator(
            group,
            GROUP,
            lambda: ConsumerGroupDescribeRequest(group_ids=[group]),
            lambda a: a.groups[0].error_code,
        )
        assert answer.groups[0].group_id == group
        assert await cluster.coordinator(group, GROUP) == live
    finally:
        held.close()
