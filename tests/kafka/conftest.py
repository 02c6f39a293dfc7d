"""What this package's tests share: the native Kafka cluster (tests/kafka_cluster.py) and the
gateway's connections to it."""

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from tests.conftest import ServerProcess
from tests.kafka_cluster import KafkaCluster
from tests.kafka_cluster import kafka_cluster as kafka_cluster


@pytest.fixture
async def cluster(kafka_cluster: KafkaCluster) -> AsyncIterator[Cluster]:
    """The gateway's view of the cluster, started."""
    c = Cluster(kafka_cluster.bootstrap, client_id="sluice-test", request_timeout=30.0)
    await c.start()
    try:
        yield c
    finally:
        await c.close()


@pytest.fixture
async def writer(kafka_cluster: KafkaCluster) -> AsyncIterator[KafkaProduce]:
    """Produce over connections of its own: a broker answers one connection's requests in
    order, so a produce behind a long poll on the same connection would wait for it."""
    c = Cluster(kafka_cluster.bootstrap, client_id="sluice-test-writer", request_timeout=30.0)
    await c.start()
    try:
        yield KafkaProduce(c, Settings())
    finally:
        await c.close()


@contextlib.contextmanager
def keyed_gateways(
    bootstrap: str,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
    count: int,
    *,
    check_stop: bool = True,
) -> Iterator[list[tuple[ServerProcess, httpx.Client]]]:
    """``count`` gateway processes of one cluster, each with a client of a key of the tests'
    principal (a super user); stopped after (their exit code checked with ``check_stop``)."""
    from tests.kafka.native import TIMEOUT
    from tests.kafka.test_gateway_http import PRINCIPAL, api_key

    key = api_key(bootstrap)
    servers = [
        server_factory(
            data_dir=tmp_path / f"unused-{n}",
            SLUICE_BACKEND="kafka",
            SLUICE_KAFKA_BOOTSTRAP=bootstrap,
            SLUICE_SUPER_USERS=PRINCIPAL,
        )
        for n in range(count)
    ]
    for s in servers:
        s.start(timeout=60)
    headers = {"Authorization": f"Bearer {key}"}
    clients = [httpx.Client(base_url=s.url, timeout=TIMEOUT, headers=headers) for s in servers]
    try:
        yield list(zip(servers, clients, strict=True))
    finally:
        for c in clients:
            c.close()
        for s in servers:
            if s.proc is not None and s.proc.poll() is None:
                code = s.stop()
                assert code == 0 or not check_stop
