"""The native Kafka cluster of the tests marked ``kafka``: ``make kafka`` (kafka/cluster.sh).

The fixture ``kafka_cluster`` (tests/kafka/conftest.py, scoped to that package) reuses the
cluster that ``make kafka`` left running from kafka/run/, whatever its number of brokers, and
otherwise starts one broker with ``make kafka BROKERS=1`` and stops it after the package's last
test, so that in ``make test`` the node does not run beside the rest of the suite. Either way
the tests see the nodes' data directories, where the broker keeps each partition's log segments.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "kafka" / "cluster.sh"
# kafka/cluster.sh's run directory, which KAFKA_RUN_DIR moves for both
RUN_DIR = Path(os.environ.get("KAFKA_RUN_DIR") or ROOT / "kafka" / "run")
# a cold start fetches the jars (tens of seconds) before the broker starts (ten seconds or so)
START_TIMEOUT = 600.0


@dataclass(frozen=True)
class KafkaCluster:
    bootstrap: str  # 127.0.0.1:port,... as clients take it
    run_dir: Path

    @property
    def brokers(self) -> int:
        return len(self.bootstrap.split(","))

    def data_dir(self, node_id: int) -> Path:
        """Where node ``node_id`` (1, 2, ...; the broker id clients see) keeps its logs."""
        return self.run_dir / f"node-{node_id}" / "data"

    def segments(self, node_id: int, topic: str, partition: int) -> list[Path]:
        """The log segments of a partition's replica on one node, oldest first."""
        return sorted((self.data_dir(node_id) / f"{topic}-{partition}").glob("*.log"))


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    # a make of our own, not a part of one that runs these tests (make test-kafka): the
    # variables of the outer make stay out of it
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
    )


def running() -> str | None:
    """The bootstrap list of the cluster running from kafka/run/, or None."""
    done = subprocess.run(
        ["bash", str(SCRIPT), "status"], capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


@pytest.fixture(scope="package")
def kafka_cluster() -> Iterator[KafkaCluster]:
    bootstrap = running()
    started = bootstrap is None
    if bootstrap is None:
        done = _make("kafka", "BROKERS=1")
        if done.returncode != 0:
            raise RuntimeError(f"make kafka BROKERS=1 failed:\n{done.stdout}\n{done.stderr}")
        bootstrap = done.stdout.strip().splitlines()[-1]
    try:
        yield KafkaCluster(bootstrap=bootstrap, run_dir=RUN_DIR)
    finally:
        if started:
            _make("kafka-stop")
