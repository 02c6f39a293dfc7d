"""The cluster ids kafka/cluster.sh formats its nodes with: 22 characters of URL-safe base64
(16 random bytes), never starting with '-', which the storage formatter would take for an
option and refuse (as Kafka's own random ids never do). No cluster is needed."""

from __future__ import annotations

import re
import subprocess

from tests.kafka_cluster import SCRIPT


def test_cluster_ids_are_16_bytes_of_url_safe_base64_never_starting_with_a_dash() -> None:
    count = 3000  # one id in 64 would start with '-' if nothing prevented it
    done = subprocess.run(
        ["bash", str(SCRIPT), "cluster-id", str(count)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    ids = done.stdout.split()
    assert len(ids) == count
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{21}", i) for i in ids), [
        i for i in ids if i.startswith("-")
    ][:3]
    assert len(set(ids)) == count
