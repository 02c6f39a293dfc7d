"""The event feed (``WS /v1/events``) of a gateway (``SLUICE_BACKEND=kafka``) on the native
broker, as a real process: the snapshot lists a topic created over HTTP with its partitions'
offsets, and events follow the cluster (a produce's high watermark, a consumer group's member
and committed offset with its lag, a share group's member, an open transaction that leaves
once committed, its partition's last stable offset held back until then); a reading of the
cluster that fails answering the last state read; and a group named outside the contract's
names left out, the rest shown."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.sync.client import ClientConnection, connect

from app.clock import SystemClock
from app.config import Settings
from app.kafka.cluster import Cluster
from app.kafka.feed_state import KafkaFeedState
from app.kafka.produce import KafkaProduce
from app.kafka.reads import KafkaReads
from app.kafka.share import KafkaShareGroups
from app.kafka.share_members import GatewayShareGroups
from tests.conftest import ServerProcess
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_http import PRINCIPAL, api_key
from tests.kafka.test_share import new_group, new_topic, produce
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

ID = {
    "topics": "topic",
    "share_groups": "group_id",
    "groups": "group_id",
    "transactions": "transactional_id",
}


@pytest.fixture
def gateway(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[tuple[ServerProcess, httpx.Client, str]]:
    key = api_key(kafka_cluster.bootstrap)
    server = server_factory(
        data_dir=tmp_path / "unused",
        SLUICE_BACKEND="kafka",
        SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
        SLUICE_SUPER_USERS=PRINCIPAL,
        SLUICE_EVENTS_INTERVAL_MS="200",
    )
    server.start(timeout=60)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers=headers) as client:
        yield server, client, key
    assert server.stop() == 0


class Feed:
    """One socket's view of the feed: the snapshot, then every event applied to it."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        snapshot = self._frame(TIMEOUT)
        assert snapshot["type"] == "snapshot", snapshot
        self.snapshot = snapshot
        self.state: dict[str, dict[str, Any]] = {
            kind: {e[key]: e for e in snapshot[kind]} for kind, key in ID.items()
        }
        self.events = 0

    def _frame(self, timeout: float) -> dict[str, Any]:
        raw = self.ws.recv(timeout=timeout)
        frame: dict[str, Any] = orjson.loads(raw)
        return frame

    def until(self, predicate: Callable[[dict[str, dict[str, Any]]], bool]) -> None:
        """Apply events until ``predicate`` holds of the state (within ``TIMEOUT``)."""
        deadline = time.monotonic() + TIMEOUT
        while not predicate(self.state):
            left = deadline - time.monotonic()
            assert left > 0, f"the feed never showed it: {self.state}"
            event = self._frame(left)
            assert event["type"] == "event", event
            self.events += 1
            for kind, key in ID.items():
                for e in event["changes"][kind]:
                    self.state[kind][e[key]] = e
                for gone in event["removed"][kind]:
                    self.state[kind].pop(gone, None)


def offsets(topic: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(log start, last stable, high watermark) of each partition."""
    return [
        (p["log_start_offset"], p["last_stable_offset"], p["high_watermark"])
        for p in topic["partitions"]
    ]


def test_the_feed_follows_the_cluster(
    gateway: tuple[ServerProcess, httpx.Client, str],
) -> None:
    server, http, key = gateway
    topic = f"gw-feed-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": topic, "partitions": 2}).status_code == 201
    with connect(
        f"ws://127.0.0.1:{server.port}/v1/events",
        open_timeout=TIMEOUT,
        additional_headers={"Authorization": f"Bearer {key}"},
    ) as ws:
        feed = Feed(ws)
        assert feed.snapshot["interval_ms"] == 200
        shown = feed.state["topics"][topic]
        assert [p["partition"] for p in shown["partitions"]] == [0, 1]
        assert offsets(shown) == [(0, 0, 0), (0, 0, 0)]
        assert shown["rate"] == 0

        # a produce: an event shows the partition's high watermark move
        produced = http.post(
            f"/v1/topics/{topic}/records",
            json={"records": [{"value": f"r{i}", "partition": 0} for i in range(3)]},
        )
        assert produced.status_code == 200, produced.text
        feed.until(lambda s: offsets(s["topics"][topic])[0] == (0, 3, 3))
        assert feed.events >= 1

        # a consumer group's member and committed offset, with its lag behind the high
        # watermark
        group = f"gw-feed-g-{uuid.uuid4().hex[:8]}"
        consumer = http.post(
            f"/v1/groups/{group}/heartbeat",
            json={"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
        )
        assert consumer.status_code == 200, consumer.text
        committed = http.post(
            f"/v1/groups/{group}/offsets",
            json={
                "member_id": consumer.json()["member_id"],
                "member_epoch": consumer.json()["member_epoch"],
                "offsets": [{"topic": topic, "partition": 0, "offset": 1}],
            },
        )
        assert committed.status_code == 200, committed.text
        assert committed.json()["offsets"][0]["error"] is None, committed.text
        feed.until(lambda s: bool(s["groups"].get(group, {}).get("offsets")))
        shown_group = feed.state["groups"][group]
        assert shown_group["offsets"] == [{"topic": topic, "partition": 0, "offset": 1, "lag": 2}]
        assert shown_group["members"] == 1 and shown_group["group_epoch"] >= 1

        # a share group with a member
        share = f"gw-feed-s-{uuid.uuid4().hex[:8]}"
        joined = http.post(
            f"/v1/share-groups/{share}/heartbeat",
            json={"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
        )
        assert joined.status_code == 200, joined.text
        member = joined.json()["member_id"]
        feed.until(lambda s: bool(s["share_groups"].get(share, {}).get("members")))
        described = feed.state["share_groups"][share]
        assert described["state"] == "Stable"
        assert described["members"] == [
            {"member_id": member, "subscribed_topics": [topic], "last_seen_ms": -1}
        ]
        assert set(described["config"]) == {
            "record_lock_duration_ms",
            "delivery_count_limit",
            "dead_letter_topic",
            "isolation_level",
        }
        for p in described["partitions"]:  # Kafka shows no records by state
            assert (p["runs"], p["runs_truncated"], p["available"]) == ([], False, None)

        # an open transaction: shown, its partition's last stable offset held back, then gone
        # once committed
        tid = f"gw-feed-tx-{uuid.uuid4().hex[:8]}"
        init = http.post(
            "/v1/producers", json={"transactional_id": tid, "transaction_timeout_ms": 60_000}
        )
        assert init.status_code == 200, init.text
        pid, epoch = init.json()["producer_id"], init.json()["producer_epoch"]
        batch = {
            "topic": topic,
            "partition": 1,
            "base_sequence": 0,
            "records": [{"value": "t1"}, {"value": "t2"}],
        }
        written = http.post(
            "/v1/produce",
            json={
                "producer_id": pid,
                "producer_epoch": epoch,
                "transactional_id": tid,
                "batches": [batch],
            },
        )
        assert written.status_code == 200, written.text
        feed.until(
            lambda s: tid in s["transactions"] and offsets(s["topics"][topic])[1] == (0, 0, 2)
        )
        txn = feed.state["transactions"][tid]
        assert (txn["producer_id"], txn["producer_epoch"]) == (pid, epoch)
        assert (txn["state"], txn["timeout_ms"], txn["partitions"]) == ("Ongoing", 60_000, 1)
        assert 0 < txn["time_left_ms"] <= 60_000
        commit = http.post(
            f"/v1/transactions/{tid}/commit", json={"producer_id": pid, "producer_epoch": epoch}
        )
        assert commit.status_code == 200, commit.text
        # the commit marker takes an offset: the last stable offset reaches the high watermark
        feed.until(
            lambda s: tid not in s["transactions"] and offsets(s["topics"][topic])[1] == (0, 3, 3)
        )


async def test_a_reading_that_fails_answers_the_last_state(kafka_cluster: KafkaCluster) -> None:
    settings = Settings(
        backend="kafka", kafka_bootstrap=kafka_cluster.bootstrap, kafka_request_timeout_ms=5000
    )
    cluster = Cluster(kafka_cluster.bootstrap, client_id="gateway-test-feed", request_timeout=5)
    source = KafkaFeedState(cluster, settings, SystemClock())
    topic = f"gw-feed-{uuid.uuid4().hex[:8]}"
    await source.topics.create(topic, 1, {})
    first = await source.observe(0, 500)
    assert first.state["topics"][topic]["partitions"] == [
        {"partition": 0, "log_start_offset": 0, "last_stable_offset": 0, "high_watermark": 0}
    ]
    assert first.counts[topic].appended == 0
    await cluster.close()  # every request fails from here on
    again = await source.observe(1, 500)
    assert not first.stale and again.stale  # the feed takes no rates from it
    assert again._replace(stale=False) == first
    assert again.state is not first.state  # a copy: the feed adds the rates to what it gets


async def test_a_group_named_outside_the_contract_is_left_out(kafka_cluster: KafkaCluster) -> None:
    settings = Settings(backend="kafka", kafka_bootstrap=kafka_cluster.bootstrap)
    cluster = Cluster(kafka_cluster.bootstrap, client_id="gateway-test-feed", request_timeout=5)
    try:
        source = KafkaFeedState(cluster, settings, SystemClock())
        topic = f"gw-feed-{uuid.uuid4().hex[:8]}"
        await source.topics.create(topic, 1, {})
        # Kafka takes a space in a group id; no route of the contract could name the group
        odd, plain = f"gw feed {uuid.uuid4().hex[:8]}", f"gw-feed-s-{uuid.uuid4().hex[:8]}"
        for group in (odd, plain):
            await KafkaShareGroups(cluster).heartbeat(group, None, 0, [topic])
        seen = await source.observe(0, 500)
        assert topic in seen.state["topics"]
        assert len(seen.state["share_groups"][plain]["members"]) == 1
        assert odd not in seen.state["share_groups"]
    finally:
        await cluster.close()


async def test_the_consume_rate_counts_what_the_gateway_answered(
    kafka_cluster: KafkaCluster,
) -> None:
    """The feed's consume rate on a gateway: the records it answered to reads and to share
    fetches, by topic (Kafka counts no reads)."""
    settings = Settings(backend="kafka", kafka_bootstrap=kafka_cluster.bootstrap)
    cluster = Cluster(kafka_cluster.bootstrap, client_id="gateway-test-feed", request_timeout=30)
    await cluster.start()
    consumed: Counter[str] = Counter()
    source = KafkaFeedState(cluster, settings, SystemClock(), consumed)
    reads = KafkaReads(cluster, consumed=consumed)
    share = GatewayShareGroups(KafkaShareGroups(cluster), SystemClock(), consumed)
    try:
        topic = await new_topic(cluster)
        group = await new_group(cluster)
        await produce(KafkaProduce(cluster, settings), topic, [(0, b"a"), (0, b"b"), (0, b"c")])
        read = await reads.read(topic, 0, 0, max_records=2, max_bytes=1 << 20, max_wait_ms=0)
        assert len(read.result.records) == 2 and consumed[topic] == 2
        fetched, member_id = 0, None
        deadline = time.monotonic() + TIMEOUT
        while fetched < 3 and time.monotonic() < deadline:
            got = await share.fetch(
                group,
                member_id,
                [topic] if member_id is None else None,
                max_records=10,
                max_wait_ms=1_000,
                record_limit=False,
                acks={},
                principal=None,
            )
            member_id = got.member_id
            fetched += sum(len(fr.records) for fr in got.records)
        assert fetched == 3 and consumed[topic] == 5
        seen = await source.observe(0, 500)
        assert seen.counts[topic].consumed == 5
    finally:
        await share.close()
        await source.close()
        await cluster.close()
