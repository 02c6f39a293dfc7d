"""``Idempotency-Key`` on two gateways of one cluster, as real processes over HTTP: a retry
through the other gateway answers the first answer and appends nothing; the key with another
body is refused; many requests with one key at once, half through each gateway, commit the
records once, and every request that succeeds answers the same offsets."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

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
