"""The native Kafka cluster of the tests marked ``kafka``: ``make kafka`` (kafka/cluster.sh).

The fixture ``kafka_cluster`` (tests/kafka/conftest.py, scoped to that package) reuses the
cluster that ``make kafka`` left running from kafka/run/, whatever its number of brokers, and
otherwise starts one broker with ``make kafka BROKERS=1`` and stops it after the package's last
test, so that in ``make test`` the node does not run beside the rest of the suite; a cluster it
reused is emptied after the last test (``empty``). Either way
the tests see the nodes' data directories, where the broker keeps each partition's log segments.

The gateway pass (``SLUICE_TEST_BACKEND=kafka``, tests/conftest.py's ``server_factory``) takes
the same fixture, and ``empty`` to leave the cluster as a new one between its tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        else:
            # a cluster found running (make kafka, make serve-kafka) is left without the
            # keys, ACLs and topics the tests made: a gateway started on it afterwards would
            # otherwise ask for an API key nobody holds
            empty(bootstrap)


# what emptying the cluster between tests leaves: Kafka's own topics (``__consumer_offsets``,
# ``__transaction_state``, ``__share_group_state``) and the gateway's keys topic, whose key
# rows are removed by tombstones instead, so that a later gateway reads no key
KEYS_TOPIC = "__sluice_keys"
TOKEN_SECRET = b"ws-token-secret"  # app/kafka/keys.py: the record that is not a key
EMPTY_TIMEOUT = 60.0


def _keys_left(bootstrap: str) -> list[bytes]:
    """The key ids of ``__sluice_keys`` whose last record is a row, not a tombstone."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "sluice-test-empty",
            "enable.auto.commit": False,
        }
    )
    try:
        try:
            _, high = consumer.get_watermark_offsets(
                TopicPartition(KEYS_TOPIC, 0), timeout=EMPTY_TIMEOUT
            )
        except Exception:  # no keys topic yet: no key
            return []
        if high <= 0:
            return []
        consumer.assign([TopicPartition(KEYS_TOPIC, 0, OFFSET_BEGINNING)])
        last: dict[bytes, bool] = {}
        deadline = time.monotonic() + EMPTY_TIMEOUT
        position = 0
        while position < high:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{KEYS_TOPIC} not read to {high} in {EMPTY_TIMEOUT}s")
            msg = consumer.poll(0.5)
            if msg is None or msg.error() is not None:
                continue
            key = msg.key()
            if key is not None and key != TOKEN_SECRET:
                last[key] = msg.value() is not None
            position = int(msg.offset() or 0) + 1
        return [k for k, row in last.items() if row]
    finally:
        consumer.close()


async def _groups(bootstrap: str) -> list[str]:
    """Every group of every type (share groups too, which the native admin client does not
    list), as each broker's coordinator lists them."""
    from app.kafka.cluster import Cluster
    from app.kafka.protocol.messages import ListGroupsRequest

    cluster = Cluster(bootstrap, client_id="sluice-test-empty", request_timeout=EMPTY_TIMEOUT)
    await cluster.start()
    try:
        await cluster.refresh_metadata([])
        found: list[str] = []
        for node_id in list(cluster.brokers):
            conn = await cluster.connection(node_id)
            answer = await conn.send(ListGroupsRequest(types_filter=[]))
            found.extend(g.group_id for g in answer.groups)
        return found
    finally:
        await cluster.close()


async def _remove_quotas(bootstrap: str) -> None:
    """Remove every user's quotas and the default user's: a quota a test set on
    ``ANONYMOUS`` is also the brokers' quota on every later gateway, whose own connections are
    ``User:ANONYMOUS`` on these PLAINTEXT listeners."""
    from app.kafka.cluster import Cluster
    from app.kafka.protocol.messages import (
        AlterClientQuotasRequest,
        DescribeClientQuotasRequest,
    )
    from app.kafka.quotas import USER, ops_of
    from app.security.quotas import Override

    cluster = Cluster(bootstrap, client_id="sluice-test-empty", request_timeout=EMPTY_TIMEOUT)
    await cluster.start()
    try:
        conn = await cluster.any_connection()
        names: list[str | None] = []
        for match_type in (1, 2):  # the default user, every named user
            component = DescribeClientQuotasRequest.ComponentData(
                entity_type=USER, match_type=match_type, match=None
            )
            answer = await conn.send(
                DescribeClientQuotasRequest(components=[component], strict=False)
            )
            names += [e.entity[0].entity_name for e in answer.entries or [] if e.values]
        if names:
            await conn.send(
                AlterClientQuotasRequest(
                    entries=[
                        AlterClientQuotasRequest.EntryData(
                            entity=[AlterClientQuotasRequest.EntityData(USER, name)],
                            ops=ops_of(Override()),
                        )
                        for name in names
                    ]
                )
            )
    finally:
        await cluster.close()


def _every_binding() -> Any:
    """A filter that matches every ACL binding."""
    from confluent_kafka.admin import (
        AclBindingFilter,
        AclOperation,
        AclPermissionType,
        ResourcePatternType,
        ResourceType,
    )

    anything: Any = None  # no name, principal or host to match: any (the stubs say str)
    return AclBindingFilter(
        ResourceType.ANY,
        anything,
        ResourcePatternType.ANY,
        anything,
        anything,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )


def empty(bootstrap: str) -> None:
    """Leave the cluster as a new one for the next test's gateway: delete every topic that is
    not internal and every group, tombstone every key, remove every quota and ACL binding, and
    wait until the cluster no longer lists them (Kafka deletes topics in the background, and a
    topic of the same name created before that is done is refused). It runs event loops of
    its own, which asyncio refuses in a thread that runs one already (a test's browser runs
    one in the test's thread): then in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        _empty(bootstrap)
        return
    with ThreadPoolExecutor(1) as pool:
        pool.submit(_empty, bootstrap).result()


def _empty(bootstrap: str) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.monotonic() + EMPTY_TIMEOUT
    while True:
        topics = [
            t for t in admin.list_topics(timeout=EMPTY_TIMEOUT).topics if not t.startswith("__")
        ]
        groups = asyncio.run(_groups(bootstrap))
        if not topics and not groups:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"still listed after {EMPTY_TIMEOUT}s: {topics} {groups}")
        for future in (admin.delete_topics(topics) if topics else {}).values():
            with contextlib.suppress(Exception):  # already being deleted
                future.result()
        if groups:
            for future in admin.delete_consumer_groups(groups).values():
                with contextlib.suppress(Exception):  # a member not yet gone: tried again
                    future.result()
        time.sleep(0.2)  # Kafka deletes in the background: its listing is polled
    asyncio.run(_remove_quotas(bootstrap))
    # every ACL binding: the gateway keeps its bindings in the cluster, where the next test's
    # gateway would find them
    for future in admin.delete_acls([_every_binding()]).values():
        future.result(timeout=EMPTY_TIMEOUT)
    keys = _keys_left(bootstrap)
    if keys:
        producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
        for key in keys:
            producer.produce(KEYS_TOPIC, key=key, value=None, partition=0)
        assert producer.flush(EMPTY_TIMEOUT) == 0
