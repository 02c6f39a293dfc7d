"""The Kafka backend's produce (app/kafka/produce.py) against a broker of the tests' own: a
leader that moved is learned again and the client's batch sent again as it was; a leader that
keeps moving is answered as INTERNAL naming Kafka's error; a transactional batch is refused on
a cluster without the second version of transactions, before it is sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.errors import NONE, NOT_LEADER_OR_FOLLOWER
from app.kafka.protocol.messages import MetadataRequest, ProduceRequest, ProduceResponse
from app.producers.appender import BatchResult
from app.storage.record import TRANSACTIONAL_FLAG, Record, encode_batch
from tests.unit.kafka.fake_broker import FakeBroker
from tests.unit.kafka.test_cluster import TOPIC, expect, metadata

BATCH = encode_batch(0, [Record(1_767_225_600_000, b"k", b"v")])


@pytest.fixture
async def broker() -> AsyncIterator[FakeBroker]:
    b = await FakeBroker().start()
    yield b
    await b.stop()


async def started(broker: FakeBroker, retries: int) -> Cluster:
    cluster = Cluster(f"127.0.0.1:{broker.port}", retries=retries, retry_backoff=0)
    starting = asyncio.ensure_future(cluster.start())
    broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker))
    await starting
    return cluster


def answer(code: int, base_offset: int = -1) -> ProduceResponse:
    part = ProduceResponse.PartitionProduceResponse(
        index=0, error_code=code, base_offset=base_offset
    )
    return ProduceResponse(
        responses=[ProduceResponse.TopicProduceResponse(partition_responses=[part])]
    )


def records_of(request: object) -> bytes:
    assert isinstance(request, ProduceRequest)
    (topic,) = request.topic_data
    (part,) = topic.partition_data
    assert part.records is not None
    return bytes(part.records)


async def test_a_leader_that_moved_is_learned_again_and_the_batch_sent_again_unchanged(
    broker: FakeBroker,
) -> None:
    cluster = await started(broker, retries=5)
    try:
        sending = asyncio.ensure_future(
            KafkaProduce(cluster, Settings()).produce_batches(TOPIC, 0, BATCH, None)
        )
        first = await expect(broker, ProduceRequest.API_KEY)
        assert records_of(first.request) == BATCH
        broker.answer(first, answer(NOT_LEADER_OR_FOLLOWER))
        broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker, 1))
        second = await expect(broker, ProduceRequest.API_KEY)
        assert records_of(second.request) == BATCH
        broker.answer(second, answer(NONE, base_offset=42))
        assert await sending == [BatchResult(TOPIC, 0, 42, None)]
    finally:
        await cluster.close()


async def test_a_leader_that_keeps_moving_is_a_retriable_503_naming_kafka_s_error(
    broker: FakeBroker,
) -> None:
    cluster = await started(broker, retries=1)
    try:
        sending = asyncio.ensure_future(
            KafkaProduce(cluster, Settings()).produce_batches(TOPIC, 0, BATCH, None)
        )
        broker.answer(await expect(broker, ProduceRequest.API_KEY), answer(NOT_LEADER_OR_FOLLOWER))
        broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker, 1))
        broker.answer(await expect(broker, ProduceRequest.API_KEY), answer(NOT_LEADER_OR_FOLLOWER))
        with pytest.raises(SluiceError) as refused:
            await sending
        assert refused.value.code is ErrorCode.CLUSTER_UNAVAILABLE
        assert refused.value.code.retriable and refused.value.code.status == 503
        assert "NOT_LEADER_OR_FOLLOWER" in refused.value.message
    finally:
        await cluster.close()


async def test_a_transactional_batch_needs_the_second_version_of_transactions(
    broker: FakeBroker,
) -> None:
    # the fake broker's ApiVersions answer finalizes no feature: transaction.version 0
    cluster = await started(broker, retries=5)
    batch = encode_batch(
        0,
        [Record(1_767_225_600_000, b"k", b"v")],
        producer_id=7,
        producer_epoch=0,
        base_sequence=0,
        attributes=TRANSACTIONAL_FLAG,
    )
    try:
        with pytest.raises(SluiceError) as refused:
            await KafkaProduce(cluster, Settings()).produce_batches(TOPIC, 0, batch, "t1")
        assert refused.value.code is ErrorCode.INTERNAL
        assert "transaction.version 2 (it has 0)" in refused.value.message
        assert broker.received.empty()  # no Produce was sent
    finally:
        await cluster.close()
