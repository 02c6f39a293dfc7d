"""A producer id on the Kafka backend belongs to the principal it was issued to, as on the
embedded engine (docs/kafka.md#gateway-state): two gateway processes with keys of two principals,
over HTTP. An id issued through one gateway is used at once through the other by its owner;
another principal, an id never issued, and a client's batch with someone else's id are refused
``UNKNOWN_PRODUCER_ID`` before Kafka sees them; a transactional producer's id without its
transactional id is refused ``INVALID_TXN_STATE`` on every batch. In process, on a clock of the
test's: a producer in use has its record written again, an idle one is forgotten and its
record tombstoned."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.clock import FakeClock, SystemClock
from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.keys import KafkaKeys
from app.kafka.produce import KafkaProduce
from app.kafka.producer_owners import TOPIC, ProducerOwners
from app.storage.record import Record, encode_batch
from tests.conftest import ServerProcess
from tests.kafka.native import TIMEOUT
from tests.kafka.test_keys import topic_records
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

BATCH_TYPE = "application/vnd.sluice.record-batch"


def keys_of(bootstrap: str, *principals: str) -> list[str]:
    async def create() -> list[str]:
        cluster = Cluster(bootstrap, client_id="owners-test-keys", request_timeout=TIMEOUT)
        await cluster.start()
        keys = KafkaKeys(cluster, SystemClock())
        try:
            await keys.start()
            return [(await keys.create(p))[1] for p in principals]
        finally:
            await keys.close()
            await cluster.close()

    return asyncio.run(create())


@pytest.fixture
def clients(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[dict[str, httpx.Client]]:
    """alice and bob on gateway a, alice on gateway b."""
    alice, bob = keys_of(kafka_cluster.bootstrap, "alice", "bob")
    servers = [
        server_factory(
            data_dir=tmp_path / f"unused-{i}",
            SLUICE_BACKEND="kafka",
            SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
            SLUICE_SUPER_USERS="alice,bob",
        )
        for i in (1, 2)
    ]
    for s in servers:
        s.start(timeout=60)

    def client(server: ServerProcess, key: str) -> httpx.Client:
        return httpx.Client(
            base_url=server.url, timeout=TIMEOUT, headers={"Authorization": f"Bearer {key}"}
        )

    with (
        client(servers[0], alice) as alice_a,
        client(servers[1], alice) as alice_b,
        client(servers[0], bob) as bob_a,
    ):
        yield {"alice_a": alice_a, "alice_b": alice_b, "bob_a": bob_a}
    for s in servers:
        assert s.stop() == 0


def produce(
    http: httpx.Client, topic: str, pid: int, seq: int, tid: str | None = None
) -> httpx.Response:
    return http.post(
        "/v1/produce",
        json={
            "producer_id": pid,
            "producer_epoch": 0,
            "transactional_id": tid,
            "batches": [
                {
                    "topic": topic,
                    "partition": 0,
                    "base_sequence": seq,
                    "records": [{"value": f"v{seq}"}],
                }
            ],
        },
    )


def committed_values(http: httpx.Client, topic: str) -> list[str]:
    read = http.get(f"/v1/topics/{topic}/partitions/0/records", params={"offset": 0})
    assert read.status_code == 200, read.text
    return [r["value"] for r in read.json()["records"]]


def test_a_producer_id_is_its_principals_on_every_gateway(
    clients: dict[str, httpx.Client],
) -> None:
    alice_a, alice_b, bob_a = clients["alice_a"], clients["alice_b"], clients["bob_a"]
    topic = f"owners-{uuid.uuid4().hex[:8]}"
    assert alice_a.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    init = alice_a.post("/v1/producers", json={})
    assert init.status_code == 200, init.text
    pid = init.json()["producer_id"]

    # its owner, at once through the other gateway (which reads the producers' topic first)
    first = produce(alice_b, topic, pid, 0)
    assert first.status_code == 200, first.text
    assert first.json()["batches"][0]["error"] is None

    # another principal: refused before Kafka sees the batch, which would break alice's
    # sequences
    stolen = produce(bob_a, topic, pid, 1)
    assert stolen.status_code == 400, stolen.text
    assert stolen.json()["error"]["code"] == "UNKNOWN_PRODUCER_ID"
    stolen_batch = bob_a.post(
        f"/v1/topics/{topic}/partitions/0/batches",
        content=encode_batch(
            0, [Record(0, None, b"x")], producer_id=pid, producer_epoch=0, base_sequence=1
        ),
        headers={"Content-Type": BATCH_TYPE},
    )
    assert stolen_batch.status_code == 400, stolen_batch.text
    assert stolen_batch.json()["error"]["code"] == "UNKNOWN_PRODUCER_ID"

    # an id nobody was issued
    invented = produce(alice_a, topic, pid + 1_000_000, 0)
    assert invented.status_code == 400, invented.text
    assert invented.json()["error"]["code"] == "UNKNOWN_PRODUCER_ID"

    # the owner's next batch, as a client-built batch this time: its sequence was not broken
    own_batch = alice_a.post(
        f"/v1/topics/{topic}/partitions/0/batches",
        content=encode_batch(
            0, [Record(0, None, b"v1")], producer_id=pid, producer_epoch=0, base_sequence=1
        ),
        headers={"Content-Type": BATCH_TYPE},
    )
    assert own_batch.status_code == 200, own_batch.text
    assert committed_values(alice_a, topic) == ["v0", "v1"]


def test_a_transactional_producers_id_writes_only_in_its_transaction(
    clients: dict[str, httpx.Client],
) -> None:
    alice_a, alice_b = clients["alice_a"], clients["alice_b"]
    topic = f"owners-tx-{uuid.uuid4().hex[:8]}"
    assert alice_a.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    tid = f"owners-{uuid.uuid4().hex[:8]}"
    init = alice_a.post("/v1/producers", json={"transactional_id": tid})
    assert init.status_code == 200, init.text
    pid = init.json()["producer_id"]
    outside = produce(alice_b, topic, pid, 0)
    assert outside.status_code == 200, outside.text
    (batch,) = outside.json()["batches"]
    assert batch["base_offset"] == -1
    assert batch["error"]["code"] == "INVALID_TXN_STATE"
    assert committed_values(alice_a, topic) == []


def test_a_producer_in_use_is_kept_and_an_idle_one_forgotten(
    kafka_cluster: KafkaCluster,
) -> None:
    day = 86_400_000
    busy = 7_000_000_000 + uuid.uuid4().int % 1_000_000_000 * 2  # ids of this run alone
    idle = busy + 1

    async def scenario() -> None:
        clock = FakeClock()
        cluster = Cluster(kafka_cluster.bootstrap, client_id="owners-test", request_timeout=TIMEOUT)
        await cluster.start()
        owners = ProducerOwners(
            cluster, KafkaProduce(cluster, Settings()), clock, expiration_ms=day
        )
        try:
            await owners.start()
            await owners.issued(busy, "alice", None)
            await owners.issued(idle, "alice", None)
            written = owners.owners[busy].written_ms
            # a fifth of a day: nothing written again yet
            clock.advance(day // 5)
            await owners.check(busy, "alice")
            assert owners.owners[busy].written_ms == written
            # past a quarter since the last write: the record is written again
            clock.advance(day // 5)
            await owners.check(busy, "alice")
            assert owners.owners[busy].written_ms == clock.now_ms()
            # past the whole for the idle one: forgotten, tombstoned; the busy one stays
            clock.advance(day - 2 * (day // 5) + 1)
            assert await owners.expire() == 1
            await owners.check(busy, "alice")
            with pytest.raises(SluiceError) as refused:
                await owners.check(idle, "alice")
            assert refused.value.code is ErrorCode.UNKNOWN_PRODUCER_ID
        finally:
            await owners.close()
            await cluster.close()

    asyncio.run(scenario())
    ours = {str(busy).encode(), str(idle).encode()}
    rows = [(k, v) for k, v in topic_records(kafka_cluster.bootstrap, TOPIC) if k in ours]
    # busy issued, idle issued, busy written again, idle's tombstone, busy written again (its
    # last write more than a quarter ago at the last check)
    assert [(int(k), v is None) for k, v in rows] == [
        (busy, False),
        (idle, False),
        (busy, False),
        (idle, True),
        (busy, False),
    ]
    assert all(json.loads(v)["principal"] == "alice" for _, v in rows if v is not None)
