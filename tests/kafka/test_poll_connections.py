"""Long polls of reads on the Kafka backend each wait on a connection of their own
(``app/kafka/poll_connections.py``), against the native broker: a poll of a quiet topic does
not hold up a read of another topic, nor a poll that records answer; a poll whose client went
away closes its connection rather than hand it, with an answer still owed, to the next poll;
a connection that answered is used again; polls beyond the bound wait for a connection."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from app.kafka.cluster import Cluster
from app.kafka.poll_connections import PollConnections
from app.kafka.produce import KafkaProduce
from app.kafka.reads import KafkaReads
from app.kafka.topics import KafkaTopics
from app.storage.record import Record

pytestmark = pytest.mark.kafka

BIG = 1 << 20
QUIET_WAIT_MS = 8_000  # a poll of a topic nothing is written to: it ends by its wait
T0 = 1_767_225_600_000


def name() -> str:
    return f"kp-{uuid.uuid4().hex[:12]}"


async def topic_of(cluster: Cluster) -> str:
    topic = name()
    await KafkaTopics(cluster, replication_factor=-1, max_partitions=100).create(topic, 1, {})
    return topic


async def on_the_wire(polls: PollConnections, node_id: int, count: int) -> None:
    """Until ``count`` connections to ``node_id`` are open: the polls have sent their Fetch."""
    async with asyncio.timeout(30):
        while polls.open_count(node_id) < count:
            await asyncio.sleep(0.01)


async def test_a_quiet_poll_holds_up_no_other_read(cluster: Cluster, writer: KafkaProduce) -> None:
    polls = PollConnections(cluster)
    reads = KafkaReads(cluster, polls=polls)
    quiet, busy = await topic_of(cluster), await topic_of(cluster)
    leader = (await cluster.leader(quiet, 0))[1].leader_id
    try:
        started = time.monotonic()
        waiting = asyncio.create_task(
            reads.read(quiet, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=QUIET_WAIT_MS)
        )
        await on_the_wire(polls, leader, 1)
        # a read without a wait, on the shared connection
        now = await reads.read(busy, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=0)
        assert now.result.records == []
        # another poll, which a record answers
        poll = asyncio.create_task(
            reads.read(busy, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=QUIET_WAIT_MS)
        )
        await on_the_wire(polls, leader, 2)
        await writer.produce_records(busy, [(0, Record(T0, b"k", b"v", []))])
        answer = await poll
        assert [r.value for r in answer.result.records] == [b"v"]
        took = time.monotonic() - started
        assert not waiting.done(), "the quiet poll ended before its wait"
        assert took < QUIET_WAIT_MS / 1000 - 1, f"{took:.1f} s: held up behind the quiet poll"
        assert (await waiting).result.records == []
        # both connections came back idle, and the next poll takes one of them
        assert polls.open_count(leader) == 2
        again = await reads.read(busy, 0, 1, max_records=10, max_bytes=BIG, max_wait_ms=50)
        assert again.result.records == [] and polls.open_count(leader) == 2
    finally:
        await polls.close()


async def test_a_poll_whose_client_went_away_closes_its_connection(
    cluster: Cluster, writer: KafkaProduce
) -> None:
    polls = PollConnections(cluster)
    reads = KafkaReads(cluster, polls=polls)
    topic = await topic_of(cluster)
    leader = (await cluster.leader(topic, 0))[1].leader_id
    try:
        gone = asyncio.create_task(
            reads.read(topic, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=QUIET_WAIT_MS)
        )
        await on_the_wire(polls, leader, 1)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        async with asyncio.timeout(30):
            while polls.open_count(leader):
                await asyncio.sleep(0.01)
        # the next poll opens a connection of its own, and a record answers it at once
        started = time.monotonic()
        poll = asyncio.create_task(
            reads.read(topic, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=QUIET_WAIT_MS)
        )
        await on_the_wire(polls, leader, 1)
        await writer.produce_records(topic, [(0, Record(T0, b"k", b"v", []))])
        assert [r.value for r in (await poll).result.records] == [b"v"]
        assert time.monotonic() - started < QUIET_WAIT_MS / 1000 - 1
    finally:
        await polls.close()


async def test_polls_beyond_the_bound_wait_for_a_connection(
    cluster: Cluster, writer: KafkaProduce
) -> None:
    polls = PollConnections(cluster, per_broker=1)
    reads = KafkaReads(cluster, polls=polls)
    topic = await topic_of(cluster)
    leader = (await cluster.leader(topic, 0))[1].leader_id
    try:
        first = asyncio.create_task(
            reads.read(topic, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=QUIET_WAIT_MS)
        )
        await on_the_wire(polls, leader, 1)
        second = asyncio.create_task(
            reads.read(topic, 0, 0, max_records=10, max_bytes=BIG, max_wait_ms=QUIET_WAIT_MS)
        )
        await asyncio.sleep(0.2)
        assert polls.open_count(leader) == 1 and not second.done()
        await writer.produce_records(topic, [(0, Record(T0, b"k", b"v", []))])
        # the record answers the first; the second then takes its connection and finds it too
        assert [r.value for r in (await first).result.records] == [b"v"]
        assert [r.value for r in (await second).result.records] == [b"v"]
        assert polls.open_count(leader) == 1
    finally:
        await polls.close()
