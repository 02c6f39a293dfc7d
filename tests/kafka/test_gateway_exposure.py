"""A gateway on an address other than loopback, as an operator starts one (docs/kafka.md):
refused while the cluster holds no API key, as the embedded server is without keys in its data
directory; ``python -m app keys create --kafka-bootstrap`` gives the cluster its first key, and
the gateway then starts and requires it; ``keys list`` and ``keys revoke`` work on the
cluster's keys too. The example of docs/kafka.md that does it runs as written."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess, free_port
from tests.kafka.native import TIMEOUT
from tests.kafka_cluster import KafkaCluster, empty

pytestmark = pytest.mark.kafka


def app(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_public_gateway_needs_a_key_in_the_cluster(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> None:
    bootstrap = kafka_cluster.bootstrap
    empty(bootstrap)  # no key left by other tests
    serve = ["serve", "--host", "0.0.0.0", "--backend", "kafka", "--kafka-bootstrap", bootstrap]
    refused = app(*serve, "--port", str(free_port()), "--data-dir", str(tmp_path / "unused"))
    assert refused.returncode == 2, refused.stderr
    assert "refusing to serve on 0.0.0.0 without API keys" in refused.stderr
    assert "--kafka-bootstrap of the same cluster" in refused.stderr

    created = app("keys", "create", "--principal", "ops", "--kafka-bootstrap", bootstrap)
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    assert key and "in the cluster" in created.stderr
    listed = app("keys", "list", "--kafka-bootstrap", bootstrap)
    assert listed.returncode == 0, listed.stderr
    (row,) = [line for line in listed.stdout.splitlines() if " ops " in line]
    key_id = row.split()[0]
    assert key_id in key  # the listing names the key by its id, never its secret

    gateway = server_factory(
        data_dir=tmp_path / "unused",
        args=("--host", "0.0.0.0", "--backend", "kafka", "--kafka-bootstrap", bootstrap),
    )
    gateway.start(timeout=60)
    try:
        anonymous = httpx.get(gateway.url + "/v1/topics", timeout=TIMEOUT)
        assert anonymous.status_code == 401
        keyed = httpx.get(
            gateway.url + "/v1/topics",
            headers={"Authorization": f"Bearer {key}"},
            timeout=TIMEOUT,
        )
        assert keyed.status_code == 200, keyed.text
    finally:
        assert gateway.stop() == 0

    revoked = app("keys", "revoke", key_id, "--kafka-bootstrap", bootstrap)
    assert revoked.returncode == 0, revoked.stderr
    unknown = app("keys", "revoke", "nosuchkey", "--kafka-bootstrap", bootstrap)
    assert unknown.returncode == 1 and "no API key 'nosuchkey'" in unknown.stderr
    listed = app("keys", "list", "--kafka-bootstrap", bootstrap)
    (row,) = [line for line in listed.stdout.splitlines() if line.startswith(key_id)]
    assert row.split()[4] != "-"  # the revocation time
    empty(bootstrap)


def test_the_docs_example_creates_the_first_key(kafka_cluster: KafkaCluster) -> None:
    text = (ROOT / "docs" / "kafka.md").read_text()
    section = text[text.index('<a id="security"></a>') :]
    block = section[section.index("```sh\n") + 6 : section.index("\n```", section.index("```sh"))]
    assert "keys create" in block
    empty(kafka_cluster.bootstrap)
    # as a reader runs it, from the repository, then the key it left in ADMIN_KEY
    ran = subprocess.run(
        ["bash", "-euc", block + '\necho "key=$ADMIN_KEY"'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    )
    try:
        assert ran.returncode == 0, ran.stderr
        (key_line,) = [line for line in ran.stdout.splitlines() if line.startswith("key=")]
        assert len(key_line) > len("key=") + 20
        assert any(" admin " in line for line in ran.stdout.splitlines())  # the listing
    finally:
        empty(kafka_cluster.bootstrap)


def test_the_keys_command_says_when_it_cannot_reach_the_cluster() -> None:
    down = app("keys", "list", "--kafka-bootstrap", f"127.0.0.1:{free_port()}")
    assert down.returncode == 2
    assert down.stderr.startswith("sluice: no answer from the Kafka cluster")
