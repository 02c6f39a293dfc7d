"""make kafka beside a cluster it already runs: the same number of brokers reuses it (the same
bootstrap list, once it has taken a write), another number is refused with the way out, and
the running cluster is left as it was either way; so is a start with another KAFKA_SECURITY."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.kafka_cluster import ROOT, KafkaCluster

pytestmark = pytest.mark.kafka


def _make_kafka(brokers: int, **more: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(more)
    return subprocess.run(
        ["make", "--no-print-directory", "kafka", f"BROKERS={brokers}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_kafka_reuses_the_running_cluster_of_as_many_brokers(
    kafka_cluster: KafkaCluster,
) -> None:
    done = _make_kafka(kafka_cluster.brokers)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == kafka_cluster.bootstrap
    assert f"reusing the {kafka_cluster.brokers}-node cluster" in done.stderr


def test_make_kafka_refuses_another_number_of_brokers_and_leaves_the_cluster_running(
    kafka_cluster: KafkaCluster,
) -> None:
    pids = sorted(p.read_text() for p in kafka_cluster.run_dir.glob("node-*/pid"))
    done = _make_kafka(kafka_cluster.brokers + 1)
    assert done.returncode != 0
    assert f"a {kafka_cluster.brokers}-node cluster already runs" in done.stderr
    assert "make kafka-stop" in done.stderr
    assert sorted(p.read_text() for p in kafka_cluster.run_dir.glob("node-*/pid")) == pids
    assert _make_kafka(kafka_cluster.brokers).returncode == 0  # and it still takes writes


def test_make_kafka_refuses_another_security_than_the_running_clusters(
    kafka_cluster: KafkaCluster,
) -> None:
    running = (kafka_cluster.run_dir / "cluster.env").read_text()
    want = "plaintext" if "SECURITY=sasl_ssl" in running else "sasl_ssl"
    pids = sorted(p.read_text() for p in kafka_cluster.run_dir.glob("node-*/pid"))
    done = _make_kafka(kafka_cluster.brokers, KAFKA_SECURITY=want)
    assert done.returncode != 0
    assert "already runs" in done.stderr and f"before starting one with {want}" in done.stderr
    assert sorted(p.read_text() for p in kafka_cluster.run_dir.glob("node-*/pid")) == pids
    bogus = _make_kafka(kafka_cluster.brokers, KAFKA_SECURITY="tls")
    assert bogus.returncode != 0
    assert "KAFKA_SECURITY must be plaintext or sasl_ssl, not 'tls'" in bogus.stderr
