"""``Idempotency-Key`` on two gateways of one cluster, as real processes over HTTP: a retry
through the other gateway answers the first answer and appends nothing; the key with another
body is refused; many requests with one key at once, half through each gateway, commit the
records once, and every request answers the same offsets. In process: an answer committed
above another request's open transaction is found by a retry through another gateway."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from app.clock import FakeClock, SystemClock
from app.config import Settings
from app.kafka.cluster import Cluster
from app.kafka.idempotency import TOPIC as IDEMPOTENCY_TOPIC
from app.kafka.idempotency import KafkaIdempotency, transactional_id
from app.kafka.produce import KafkaProduce
from app.kafka.reads import KafkaReads
from app.kafka.transactions import KafkaTransactions
from app.producers.produce import Placed
from app.storage.record import Record
from tests.conftest import ServerProcess
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_http import PRINCIPAL, api_key
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka


@pytest.fixture
def gateways(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    key = api_key(kafka_cluster.bootstrap)
    servers = [
        server_factory(
            data_dir=tmp_path / f"unused-{i}",
            SLUICE_BACKEND="kafka",
            SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
            SLUICE_SUPER_USERS=PRINCIPAL,
        )
        for i in (1, 2)
    ]
    for s in servers:
        s.start(timeout=60)
    headers = {"Authorization": f"Bearer {key}"}
    with (
        httpx.Client(base_url=servers[0].url, timeout=TIMEOUT, headers=headers) as a,
        httpx.Client(base_url=servers[1].url, timeout=TIMEOUT, headers=headers) as b,
    ):
        yield a, b
    for s in servers:
        assert s.stop() == 0


def keyed(client: httpx.Client, topic: str, key: str, body: Mapping[str, object]) -> httpx.Response:
    return client.post(f"/v1/topics/{topic}/records", json=body, headers={"Idempotency-Key": key})


def values(client: httpx.Client, topic: str, partition: int) -> list[str]:
    read = client.get(
        f"/v1/topics/{topic}/partitions/{partition}/records",
        params={"offset": 0, "isolation_level": "read_committed"},
    )
    assert read.status_code == 200, read.text
    return [r["value"] for r in read.json()["records"]]


def test_a_retry_through_another_gateway_answers_the_first_answer(
    gateways: tuple[httpx.Client, httpx.Client],
) -> None:
    a, b = gateways
    topic = f"idem-{uuid.uuid4().hex[:8]}"
    assert a.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    body = {"records": [{"value": "once"}, {"value": "twice?"}]}
    # keys of their own: the cluster keeps keys for a day, across tests
    key, other_key = f"order-{uuid.uuid4().hex}", f"order-{uuid.uuid4().hex}"
    first = keyed(a, topic, key, body)
    assert first.status_code == 200, first.text
    again = keyed(b, topic, key, body)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    assert values(a, topic, 0) == ["once", "twice?"]

    other = keyed(b, topic, key, {"records": [{"value": "different"}]})
    assert other.status_code == 409, other.text
    assert other.json()["error"]["code"] == "IDEMPOTENCY_KEY_REUSED"
    # another key appends
    assert keyed(b, topic, other_key, body).status_code == 200
    assert values(a, topic, 0) == ["once", "twice?", "once", "twice?"]


def test_one_key_at_once_through_both_gateways_commits_its_records_once(
    gateways: tuple[httpx.Client, httpx.Client],
) -> None:
    a, b = gateways
    topic = f"idem-{uuid.uuid4().hex[:8]}"
    assert a.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    body = {"records": [{"value": "paid"}]}
    key = f"pay-{uuid.uuid4().hex}"

    def attempt(i: int) -> tuple[int, object]:
        answer = keyed(a if i % 2 else b, topic, key, body)
        return answer.status_code, answer.json()

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(attempt, range(16)))
    ok = [body for status, body in answers if status == 200]
    assert ok, answers
    # a request fenced by another starts again and finds the answer of the one that committed
    assert all(answer == ok[0] for answer in ok), answers
    assert all(status == 200 for status, _ in answers), answers
    # retried now, each answers the same
    assert keyed(a, topic, key, body).json() == ok[0]
    assert keyed(b, topic, key, body).json() == ok[0]
    assert values(a, topic, 0) == ["paid"]


async def test_an_answer_committed_above_another_open_transaction_is_found(
    kafka_cluster: KafkaCluster,
) -> None:
    """Gateway A's keyed produce commits its answer in ``__sluice_idempotency`` above a
    transaction of another key still open there (a committed read stops at that one). A retry
    through gateway B, which has not read the answer yet, waits for the open transaction to end
    and answers A's offsets: it does not write the records again."""
    clock = SystemClock()
    settings = Settings()
    clusters = [
        Cluster(kafka_cluster.bootstrap, client_id=f"idem-{n}", request_timeout=30.0)
        for n in ("a", "b", "x")
    ]
    for c in clusters:
        await c.start()
    a_cluster, b_cluster, x_cluster = clusters

    def gateway(cluster: Cluster) -> KafkaIdempotency:
        produce = KafkaProduce(cluster, settings)
        txns = KafkaTransactions(cluster, produce, clock=clock)
        return KafkaIdempotency(cluster, produce, txns, clock, retention_ms=86_400_000)

    a = gateway(a_cluster)
    await a.start()
    b: KafkaIdempotency | None = None
    try:
        topic = f"idem-{uuid.uuid4().hex[:8]}"
        admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
        for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
            f.result(TIMEOUT)
        # another request's transaction, open in __sluice_idempotency (aborted by Kafka when
        # its 3 s timeout passes)
        x_produce = KafkaProduce(x_cluster, settings)
        x_txns = KafkaTransactions(x_cluster, x_produce, clock=clock)
        x_tid = transactional_id(f"x-{uuid.uuid4().hex}")
        pid, epoch = await x_txns.init_producer_id(x_tid, 3000, None, None, None)
        await x_produce.produce_records(
            IDEMPOTENCY_TOPIC,
            [(0, Record(clock.now_ms(), b"x", b"{}"))],
            producer_id=pid,
            producer_epoch=epoch,
            base_sequences={0: 0},
            transactional_id=x_tid,
        )
        key, body = f"k-{uuid.uuid4().hex}", b'{"records":[{"value":"v"}]}'
        records: Placed = [(0, Record(clock.now_ms(), None, b"v"))]
        first = await a.produce_keyed(topic, records, key, body, None)

        b = gateway(b_cluster)
        await b.start()  # reads what is committed: not A's answer, above the open transaction
        again = await b.produce_keyed(topic, records, key, body, None)
        assert again == first
        reads = KafkaReads(b_cluster, clock=clock)
        got = await reads.read(
            topic, 0, 0, max_records=10, max_bytes=1 << 20, max_wait_ms=0, committed=True
        )
        assert [r.value for r in got.result.records] == [b"v"]
    finally:
        await a.close()
        if b is not None:
            await b.close()
        for c in clusters:
            await c.close()


async def test_an_expired_key_is_tombstoned_and_forgotten_by_every_gateway(
    kafka_cluster: KafkaCluster,
) -> None:
    """A key older than the retention: ``expire`` writes its tombstone, the gateway forgets it,
    a gateway started later never holds it, and the key used again writes its records again;
    a younger key is kept."""
    retention = 60_000
    clock = FakeClock()
    settings = Settings()
    clusters = [
        Cluster(kafka_cluster.bootstrap, client_id=f"idem-exp-{n}", request_timeout=30.0)
        for n in ("a", "b")
    ]
    for c in clusters:
        await c.start()

    def gateway(cluster: Cluster) -> KafkaIdempotency:
        produce = KafkaProduce(cluster, settings)
        txns = KafkaTransactions(cluster, produce, clock=clock)
        return KafkaIdempotency(cluster, produce, txns, clock, retention_ms=retention)

    a = gateway(clusters[0])
    await a.start()
    b: KafkaIdempotency | None = None
    try:
        topic = f"idem-exp-{uuid.uuid4().hex[:8]}"
        admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
        for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
            f.result(TIMEOUT)
        old, young = f"old-{uuid.uuid4().hex}", f"young-{uuid.uuid4().hex}"
        body = b'{"records":[{"value":"v"}]}'
        records: Placed = [(0, Record(clock.now_ms(), None, b"v"))]
        first = await a.produce_keyed(topic, records, old, body, None)
        clock.advance(retention // 2)
        await a.produce_keyed(topic, records, young, body, None)
        clock.advance(retention // 2 + 1)
        assert await a.expire() == 1
        assert old not in a.answers and young in a.answers

        b = gateway(clusters[1])
        await b.start()  # reads the topic from its start: the tombstone too
        assert old not in b.answers and young in b.answers
        again = await b.produce_keyed(topic, records, old, body, None)
        # written again: after the two keyed produces, each a record and its commit marker
        assert again[0].offset == first[0].offset + 4
    finally:
        await a.close()
        if b is not None:
            await b.close()
        for c in clusters:
            await c.close()
