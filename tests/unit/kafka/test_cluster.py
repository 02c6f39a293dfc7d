"""The cluster against a broker of the tests' own: the bootstrap list, Metadata asked again when
a leader moved, FindCoordinator asked again when a coordinator moved, and a connection that
ended replaced by a new one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.kafka.cluster import GROUP, Cluster, PartitionInfo, TopicInfo, parse_bootstrap
from app.kafka.protocol.errors import (
    NONE,
    NOT_COORDINATOR,
    NOT_LEADER_OR_FOLLOWER,
    BrokerError,
    ConnectionClosedError,
)
from app.kafka.protocol.messages import (
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    ListGroupsRequest,
    ListGroupsResponse,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
    ProduceResponse,
)
from tests.unit.kafka.fake_broker import FakeBroker, Received

TOPIC = "orders"


@pytest.fixture
async def broker() -> AsyncIterator[FakeBroker]:
    b = await FakeBroker().start()
    yield b
    await b.stop()


def metadata(broker: FakeBroker, leader_epoch: int = 0) -> MetadataResponse:
    """One broker (node 1, the fake itself) leading the one partition of TOPIC."""
    return MetadataResponse(
        cluster_id="fake",
        controller_id=1,
        brokers=[MetadataResponse.MetadataResponseBroker(1, "127.0.0.1", broker.port)],
        topics=[
            MetadataResponse.MetadataResponseTopic(
                name=TOPIC,
                partitions=[
                    MetadataResponse.MetadataResponsePartition(
                        partition_index=0,
                        leader_id=1,
                        leader_epoch=leader_epoch,
                        replica_nodes=[1],
                        isr_nodes=[1],
                    )
                ],
            )
        ],
    )


async def expect(broker: FakeBroker, api_key: int) -> Received:
    got = await broker.next()
    assert got.api_key == api_key, got.request.NAME
    return got


async def started(broker: FakeBroker) -> Cluster:
    cluster = Cluster(f"127.0.0.1:{broker.port}", retry_backoff=0)
    starting = asyncio.ensure_future(cluster.start())
    broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker))
    await starting
    return cluster


def test_the_bootstrap_list_is_host_port_pairs() -> None:
    assert parse_bootstrap("a:1, b:2,[::1]:9092,") == [("a", 1), ("b", 2), ("::1", 9092)]
    for bad in ("", "a", "a:", ":9", "a:x", "a:70000"):
        with pytest.raises(ValueError, match="bootstrap"):
            parse_bootstrap(bad)


async def test_start_tries_the_bootstrap_brokers_in_turn(broker: FakeBroker) -> None:
    gone = await FakeBroker().start()
    gone_port = gone.port
    await gone.stop()
    cluster = Cluster(f"127.0.0.1:{gone_port},127.0.0.1:{broker.port}", retry_backoff=0)
    starting = asyncio.ensure_future(cluster.start())
    broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker))
    await starting
    try:
        assert cluster.cluster_id == "fake"
        assert cluster.topics[TOPIC].partitions[0].leader_id == 1
    finally:
        await cluster.close()


async def test_a_leader_that_moved_is_learned_again_and_the_request_sent_again(
    broker: FakeBroker,
) -> None:
    cluster = await started(broker)
    epochs: list[int] = []

    def produce(t: TopicInfo, p: PartitionInfo) -> ProduceRequest:
        epochs.append(p.leader_epoch)
        return ProduceRequest(acks=-1, topic_data=[ProduceRequest.TopicProduceData(name=t.name)])

    def answer(code: int) -> ProduceResponse:
        part = ProduceResponse.PartitionProduceResponse(index=0, error_code=code)
        return ProduceResponse(
            responses=[ProduceResponse.TopicProduceResponse(partition_responses=[part])]
        )

    def error_of(a: ProduceResponse) -> int:
        return a.responses[0].partition_responses[0].error_code

    try:
        sending = asyncio.ensure_future(cluster.send_to_leader(TOPIC, 0, produce, error_of))
        broker.answer(await expect(broker, ProduceRequest.API_KEY), answer(NOT_LEADER_OR_FOLLOWER))
        broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker, 1))
        broker.answer(await expect(broker, ProduceRequest.API_KEY), answer(NONE))
        assert error_of(await sending) == NONE
        assert epochs == [0, 1]
    finally:
        await cluster.close()


async def test_a_coordinator_that_moved_is_found_again_and_the_request_sent_again(
    broker: FakeBroker,
) -> None:
    cluster = await started(broker)

    def found() -> FindCoordinatorResponse:
        c = FindCoordinatorResponse.Coordinator(
            key="g", node_id=1, host="127.0.0.1", port=broker.port
        )
        return FindCoordinatorResponse(coordinators=[c])

    try:
        sending = asyncio.ensure_future(
            cluster.send_to_coordinator(
                "g", GROUP, lambda: ListGroupsRequest(), lambda a: a.error_code
            )
        )
        ask = await expect(broker, FindCoordinatorRequest.API_KEY)
        assert isinstance(ask.request, FindCoordinatorRequest)
        assert (ask.request.key_type, ask.request.coordinator_keys) == (GROUP, ["g"])
        broker.answer(ask, found())
        broker.answer(
            await expect(broker, ListGroupsRequest.API_KEY),
            ListGroupsResponse(error_code=NOT_COORDINATOR),
        )
        broker.answer(await expect(broker, FindCoordinatorRequest.API_KEY), found())
        broker.answer(await expect(broker, ListGroupsRequest.API_KEY), ListGroupsResponse())
        assert (await sending).error_code == NONE
        # kept: the next lookup asks nobody
        assert await cluster.coordinator("g", GROUP) == 1
    finally:
        await cluster.close()


async def test_a_connection_that_ended_is_replaced_by_a_new_one(broker: FakeBroker) -> None:
    cluster = await started(broker)
    try:
        conn = await cluster.connection(1)
        opened = broker.connections
        sending = asyncio.ensure_future(
            cluster.send_to_leader(
                TOPIC,
                0,
                lambda t, p: ProduceRequest(acks=-1),
                lambda a: NONE,
            )
        )
        await expect(broker, ProduceRequest.API_KEY)
        broker.drop()
        with pytest.raises(ConnectionClosedError):
            await sending
        again = await cluster.connection(1)
        assert again is not conn and not again.closed
        assert broker.connections == opened + 1
    finally:
        await cluster.close()


async def test_an_unknown_topic_is_a_broker_error(broker: FakeBroker) -> None:
    cluster = await started(broker)
    try:
        looking = asyncio.ensure_future(cluster.topic("missing"))
        ask = await expect(broker, MetadataRequest.API_KEY)
        assert isinstance(ask.request, MetadataRequest)
        assert ask.request.allow_auto_topic_creation is False
        missing = MetadataResponse.MetadataResponseTopic(error_code=3, name="missing")
        broker.answer(ask, MetadataResponse(brokers=metadata(broker).brokers, topics=[missing]))
        with pytest.raises(BrokerError, match="UNKNOWN_TOPIC_OR_PARTITION"):
            await looking
    finally:
        await cluster.close()


async def test_callers_asking_for_a_connection_at_once_share_one_opening(
    broker: FakeBroker,
) -> None:
    cluster = await started(broker)
    try:
        opened = broker.connections
        broker.answer_api_versions = False  # the opening waits on the test's answer
        first = asyncio.ensure_future(cluster.connection(1))
        second = asyncio.ensure_future(cluster.connection(1))
        ask = await expect(broker, 18)
        # the first caller gives up; the opening goes on for the second
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        broker.answer(ask, broker.versions_answer())
        broker.answer_api_versions = True
        conn = await second
        assert broker.connections == opened + 1
        # kept for the next caller, not opened again
        assert await cluster.connection(1) is conn
        assert broker.connections == opened + 1
    finally:
        await cluster.close()


async def test_the_leader_of_a_topic_not_yet_known_is_asked_for_again(
    broker: FakeBroker,
) -> None:
    cluster = await started(broker)
    try:
        del cluster.topics[TOPIC]
        looking = asyncio.ensure_future(cluster.leader(TOPIC, 0))
        # a topic just created, which this broker has not learned yet
        missing = MetadataResponse.MetadataResponseTopic(error_code=3, name=TOPIC)
        broker.answer(
            await expect(broker, MetadataRequest.API_KEY),
            MetadataResponse(brokers=metadata(broker).brokers, topics=[missing]),
        )
        broker.answer(await expect(broker, MetadataRequest.API_KEY), metadata(broker, 4))
        info, p = await looking
        assert (info.name, p.leader_id, p.leader_epoch) == (TOPIC, 1, 4)
    finally:
        await cluster.close()
