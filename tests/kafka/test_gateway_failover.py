"""Brokers that die under two gateways: the leader of the partition in use is killed (SIGKILL)
during produce, share-group consumption with acknowledgements, and transactions, and nothing
answered as done is lost or done twice (benchmarks/failover.py, whose trials these are; it runs
many of them and says what each check is).

These tests need three brokers, which the package's ``kafka_cluster`` (one node, or whatever
``make kafka`` left running) does not promise: they start a three-node cluster of their own,
in its own run directory (``kafka/run-failover``, through ``KAFKA_RUN_DIR``) with the broker
session timeout lowered to 3 s so that a dead leader is replaced within seconds, reuse it when
it already runs there with that timeout, and stop it after the module's last test. They take
no other fixture of the package, so that no cluster of kafka/run/ is started for them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks import failover
from benchmarks.failover import KINDS, Cluster

pytestmark = [pytest.mark.kafka, pytest.mark.slow, pytest.mark.trials]


@pytest.fixture(scope="module")
def three_nodes() -> Iterator[Cluster]:
    cluster = Cluster(failover.RUN_DIR, failover.BROKER_SESSION_MS, failover.BROKER_HEARTBEAT_MS)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def gateway_urls(
    three_nodes: Cluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[str]]:
    work: Path = tmp_path_factory.mktemp("failover")
    with failover.gateways(three_nodes.bootstrap, work) as servers:
        yield [s.base_url for s in servers]


@pytest.mark.parametrize("seq", [0, 1])
@pytest.mark.parametrize("kind", KINDS)
def test_the_leader_killed_loses_nothing_answered_and_does_nothing_twice(
    three_nodes: Cluster, gateway_urls: list[str], kind: str, seq: int
) -> None:
    result = failover.run_trial(three_nodes, gateway_urls, kind, seq)
    assert result["failures"] == []
    # the trial did what it says: the leader died, another took over, and every worker of
    # both gateways was answered again after the kill
    assert result["killed_node"] != result["new_leader"]
    assert len(result["recovered_s"]) >= result["workers"] >= 1
