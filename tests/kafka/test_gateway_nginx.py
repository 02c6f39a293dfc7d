"""Three gateways behind nginx, round-robin, with the configuration of
kafka/nginx-gateways.conf (its ports changed to free ones; docs/kafka.md#several-gateways): the
Python client's producer and share consumer, pointed at nginx, get every record produced once,
none delivered again, while the consumer's fetches and acknowledgements reach every gateway
(those not holding the member forward them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import sluice

from tests.conftest import ROOT, ServerProcess, free_port
from tests.kafka.conftest import keyed_gateways
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_forward import Gateway
from tests.kafka.test_gateway_share import new_group
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

CONF = ROOT / "kafka" / "nginx-gateways.conf"
MEMBER_ROUTES = (
    'route="/v1/share-groups/{group_id}/fetch"',
    'route="/v1/share-groups/{group_id}/acknowledge"',
)


def nginx() -> str:
    """Debian's nginx (make kafka-deps installs it), which is in /usr/sbin."""
    found = shutil.which("nginx", path=os.environ.get("PATH", "") + os.pathsep + "/usr/sbin")
    assert found is not None, "nginx is missing: make kafka-deps installs it"
    return found


@pytest.fixture
def gateways(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[list[Gateway]]:
    """Three gateways of one cluster, each with a client of the test's key."""
    with keyed_gateways(
        kafka_cluster.bootstrap, server_factory, tmp_path, 3, check_stop=False
    ) as three:
        yield three


@pytest.fixture
def balancer(gateways: list[Gateway], tmp_path: Path) -> Iterator[str]:
    """nginx in front of the three gateways; its URL."""
    port = free_port()
    text = CONF.read_text()
    upstreams = [(8081 + n, server.port) for n, (server, _) in enumerate(gateways)]
    for fixed, free in ((8080, port), *upstreams):
        assert text.count(f"127.0.0.1:{fixed};") == 1
        text = text.replace(f"127.0.0.1:{fixed};", f"127.0.0.1:{free};")
    run = tmp_path / "nginx"
    run.mkdir()
    (run / "nginx.conf").write_text(text)
    # as root, nginx's workers run as root too, so that they may use the test's directory
    settings = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
    log = open(run / "stdout.log", "wb")  # noqa: SIM115 - handed to the child
    command = [nginx(), "-p", str(run), "-c", str(run / "nginx.conf")]
    proc = subprocess.Popen(
        [*command, "-e", str(run / "error.log"), "-g", settings],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert proc.poll() is None, (run / "stdout.log").read_text()
            try:
                if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "nginx did not pass /readyz on"
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def member_requests(http: httpx.Client) -> float:
    """The share fetches and acknowledgements a gateway answered (its own members' and those
    it forwarded)."""
    text = http.get("/metrics").text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("sluice_http_requests_total{")
        and any(route in line for route in MEMBER_ROUTES)
    )


def test_a_producer_and_a_share_consumer_through_round_robin(
    kafka_cluster: KafkaCluster, gateways: list[Gateway], balancer: str
) -> None:
    https = [http for _, http in gateways]
    key = https[0].headers["Authorization"].removeprefix("Bearer ")
    group = new_group(kafka_cluster.bootstrap)
    topic = f"gw-lb-{uuid.uuid4().hex[:8]}"
    total = 300
    before = [member_requests(http) for http in https]
    with sluice.Sluice(balancer, api_key=key) as client:
        client.admin.create_topic(topic, partitions=2)
        producer = client.producer()
        sent = [producer.send(topic, f"r{i}") for i in range(total)]
        producer.flush()
        assert all(f.result(TIMEOUT).offset >= 0 for f in sent)

        consumer = client.share_consumer(
            group, max_records=20, acknowledgement_mode="explicit", acquire_mode="record_limit"
        )
        consumer.subscribe([topic])
        seen: list[tuple[str | None, int]] = []
        deadline = time.monotonic() + 2 * TIMEOUT
        while len(seen) < total:
            assert time.monotonic() < deadline, f"{len(seen)} of {total} records came"
            records = consumer.poll(0.5)
            for r in records:
                seen.append((r.text(), r.delivery_count))
                consumer.acknowledge(r)
            consumer.commit_sync()
        consumer.close()
    assert Counter(v for v, _ in seen) == Counter(f"r{i}" for i in range(total))
    assert {count for _, count in seen} == {1}  # the member kept its session: none came again
    after = [member_requests(http) for http in https]
    assert all(x > y for x, y in zip(after, before, strict=True)), (before, after)
