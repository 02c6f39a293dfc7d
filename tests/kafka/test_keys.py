"""The Kafka backend's API keys (app/kafka/keys.py) against the native broker of make kafka:
two gateways over one cluster, a key created or revoked through one holding on the other
within about a second; the topic holding salted hashes and never a key; a gateway started
later reading every key from the topic; the WebSocket tokens' secret shared, so that a token
issued by one gateway opens a socket on the other (app/kafka/ws_tokens.py); a tombstone
removing a key, and a record that is not a key's row left out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

import pytest
from confluent_kafka import Consumer, TopicPartition

from app.clock import SystemClock
from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.keys import TOKEN_SECRET, TOPIC, KafkaKeys
from app.kafka.produce import KafkaProduce
from app.kafka.ws_tokens import SignedWsTokens
from app.security.keys import BEARER, digest, split
from app.storage.record import Record
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

DEADLINE = 30.0
MAX_LAG_S = 1.0  # docs/kafka.md: a change holds on every gateway within about a second


class Gateway:
    """One gateway's keys: a cluster of its own, started."""

    def __init__(self, bootstrap: str) -> None:
        self.cluster = Cluster(bootstrap, client_id="sluice-test", request_timeout=30.0)
        self.keys = KafkaKeys(self.cluster, SystemClock())

    async def start(self) -> Gateway:
        await self.cluster.start()
        await self.keys.start()
        return self

    async def close(self) -> None:
        await self.keys.close()
        await self.cluster.close()


@pytest.fixture
async def gateways(kafka_cluster: KafkaCluster) -> AsyncIterator[tuple[Gateway, Gateway]]:
    a = await Gateway(kafka_cluster.bootstrap).start()
    b = await Gateway(kafka_cluster.bootstrap).start()
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


async def until(keys: KafkaKeys, condition: Callable[[], bool]) -> float:
    """Wait, with a deadline, until ``condition`` holds on ``keys`` (checked as each record
    it reads is applied); how long it took."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    async with keys.changed:
        await asyncio.wait_for(keys.changed.wait_for(condition), DEADLINE)
    return loop.time() - began


def topic_records(bootstrap: str, topic: str = TOPIC) -> list[tuple[bytes, bytes | None]]:
    """Every record of ``topic`` (one partition; ``__sluice_keys`` unless named) as a native
    consumer reads it."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False}
    )
    try:
        _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=DEADLINE)
        consumer.assign([TopicPartition(topic, 0, 0)])
        out: list[tuple[bytes, bytes | None]] = []
        while len(out) < high:
            message = consumer.poll(DEADLINE)
            assert message is not None and message.error() is None
            key = message.key()
            assert isinstance(key, bytes)
            value = message.value()
            assert value is None or isinstance(value, bytes)
            out.append((key, value))
            if message.offset() == high - 1:
                break
        return out
    finally:
        consumer.close()


async def test_a_key_created_or_revoked_on_one_gateway_holds_on_the_other_within_a_second(
    gateways: tuple[Gateway, Gateway],
) -> None:
    a, b = gateways
    row, key = await a.keys.create("alice", "reads the orders")
    assert a.keys.required
    assert a.keys.authenticate(key) is not None  # effective when create returned
    took = await until(b.keys, lambda: b.keys.authenticate(key) is not None)
    assert took < MAX_LAG_S
    identity = b.keys.authenticate_header(BEARER + key.encode())
    assert identity is not None and (identity.key_id, identity.principal) == (
        row.key_id,
        "alice",
    )
    assert b.keys.required and b.keys.active(row.key_id)
    assert row in b.keys.list()
    assert b.keys.authenticate(key[:-1] + ("A" if key[-1] != "A" else "B")) is None

    # revoked through the other gateway, whose revoke first reads what a wrote
    await b.keys.revoke(row.key_id)
    assert b.keys.authenticate(key) is None
    took = await until(a.keys, lambda: not a.keys.active(row.key_id))
    assert took < MAX_LAG_S
    assert a.keys.authenticate(key) is None
    (revoked,) = [r for r in a.keys.list() if r.key_id == row.key_id]
    assert revoked.revoked_ms is not None and revoked.public()["principal"] == "alice"

    # revoking twice keeps the first time; an unknown key is NOT_FOUND
    await a.keys.revoke(row.key_id)
    (again,) = [r for r in a.keys.list() if r.key_id == row.key_id]
    assert again.revoked_ms == revoked.revoked_ms
    with pytest.raises(SluiceError) as missing:
        await a.keys.revoke("nosuchkey000")
    assert missing.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(SluiceError) as invalid:
        await a.keys.create("not a principal")
    assert invalid.value.code is ErrorCode.INVALID_REQUEST


async def test_the_topic_holds_salted_hashes_and_a_later_gateway_reads_every_key(
    gateways: tuple[Gateway, Gateway], kafka_cluster: KafkaCluster
) -> None:
    a, _ = gateways
    row, key = await a.keys.create("bob")
    parts = split(key)
    assert parts is not None
    key_id, secret = parts
    records = dict(topic_records(kafka_cluster.bootstrap))
    value = records[key_id.encode()]
    assert value is not None and secret.encode() not in value and key.encode() not in value
    stored = json.loads(value)
    assert digest(bytes.fromhex(stored["salt"]), secret) == bytes.fromhex(stored["hash"])
    assert stored["principal"] == "bob" and stored["revoked_ms"] is None
    assert TOKEN_SECRET in records

    later = await Gateway(kafka_cluster.bootstrap).start()
    try:
        # started: it has read the topic to its end, so the key holds at once
        identity = later.keys.authenticate(key)
        assert identity is not None and identity.key_id == row.key_id
        assert later.keys.token_secret == a.keys.token_secret
    finally:
        await later.close()


async def test_a_websocket_token_issued_by_one_gateway_opens_a_socket_on_the_other(
    gateways: tuple[Gateway, Gateway],
) -> None:
    a, b = gateways
    _, key = await a.keys.create("carol")
    identity = a.keys.authenticate(key)
    assert identity is not None
    clock = SystemClock()
    issued_by_a = SignedWsTokens(clock, 30_000, lambda: a.keys.token_secret)
    redeemed_by_b = SignedWsTokens(clock, 30_000, lambda: b.keys.token_secret)
    token, _ = issued_by_a.issue(identity)
    assert redeemed_by_b.redeem(token) == identity
    assert redeemed_by_b.redeem(token) is None  # once on each gateway
    forged = SignedWsTokens(clock, 30_000, lambda: b"another secret")
    other, _ = forged.issue(identity)
    assert redeemed_by_b.redeem(other) is None


async def test_a_tombstone_removes_a_key_and_a_record_not_a_row_is_left_out(
    gateways: tuple[Gateway, Gateway],
) -> None:
    a, b = gateways
    row, key = await a.keys.create("dave")
    await b.keys.sync()  # b has read the topic to its end: the key holds there
    assert b.keys.authenticate(key) is not None
    writer = KafkaProduce(a.cluster, Settings())
    await writer.produce_records(
        TOPIC,
        [
            (0, Record(0, b"junk-record", b"not a row")),
            (0, Record(0, row.key_id.encode(), None)),
        ],
    )
    took = await until(b.keys, lambda: row.key_id not in {r.key_id for r in b.keys.list()})
    assert took < MAX_LAG_S
    assert b.keys.authenticate(key) is None
    assert "junk-record" not in {r.key_id for r in b.keys.list()}
    await a.keys.load()  # read to the end: the tombstone too
    assert a.keys.authenticate(key) is None
    assert await a.keys.reload_if_changed() is False  # nothing written since


def test_the_token_secret_is_there_once_the_keys_are_read(kafka_cluster: KafkaCluster) -> None:
    keys = KafkaKeys(Cluster(kafka_cluster.bootstrap), SystemClock())
    with pytest.raises(SluiceError) as early:
        _ = keys.token_secret
    assert early.value.code is ErrorCode.INTERNAL
