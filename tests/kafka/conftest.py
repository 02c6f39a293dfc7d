"""What this package's tests share: the native Kafka cluster (tests/kafka_cluster.py) and the
gateway's connections to it."""

from collections.abc import AsyncIterator

import pytest

from app.config import Settings
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
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
