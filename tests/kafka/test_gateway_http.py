"""The server started as a gateway (``SLUICE_BACKEND=kafka``) on the native broker of make
kafka, as a real process, driven over HTTP: a topic created, records with keys and headers
produced as JSON and read back, a consumer group's offsets committed and fetched; the records
checked with the native client, on the partition Kafka's own partitioner picks for their keys;
a transaction committed; a share group's config set and the group described and listed with
the member that joined it; and share acknowledgements in a transaction and the push socket
answering UNSUPPORTED_ON_KAFKA_BACKEND with their names, not a 500 (share-group members:
test_gateway_share.py; the event feed: test_gateway_feed.py)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import confluent_kafka
import httpx
import orjson
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from websockets.sync.client import connect

from app.clock import SystemClock
from app.kafka.cluster import Cluster
from app.kafka.keys import KafkaKeys
from app.kafka.share import KafkaShareGroups
from app.partitioner import partition_for_key
from tests.conftest import ServerProcess
from tests.kafka.native import TIMEOUT
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

PARTITIONS = 4
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
KEYS = ["order-1", "order-2", "alice", "bob", "carol", "k-17"]


PRINCIPAL = "gateway-test"


def api_key(bootstrap: str) -> str:
    """A key of ``PRINCIPAL`` written to the cluster's keys: other tests of the package leave
    keys there, and once one exists every gateway of the cluster requires one."""

    async def create() -> str:
        cluster = Cluster(bootstrap, client_id="gateway-test-keys", request_timeout=TIMEOUT)
        await cluster.start()
        keys = KafkaKeys(cluster, SystemClock())
        try:
            await keys.start()
            _, key = await keys.create(PRINCIPAL)
            return key
        finally:
            await keys.close()
            await cluster.close()

    return asyncio.run(create())


@pytest.fixture
def gateway(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[tuple[ServerProcess, str]]:
    key = api_key(kafka_cluster.bootstrap)
    # the data directory is never created: the gateway keeps nothing on disk
    s = server_factory(
        data_dir=tmp_path / "unused",
        SLUICE_BACKEND="kafka",
        SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
        SLUICE_SUPER_USERS=PRINCIPAL,
    )
    s.start(timeout=60)
    yield s, key
    assert s.stop() == 0
    assert not (tmp_path / "unused").exists()


@pytest.fixture
def http(gateway: tuple[ServerProcess, str]) -> Iterator[httpx.Client]:
    server, key = gateway
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers=headers) as client:
        yield client


def native_partitions(bootstrap: str, topic: str, keys: list[str]) -> dict[str, int]:
    """The partition the native producer, with Kafka's default partitioner (murmur2 of the
    key), puts each key on."""
    placed: dict[str, int] = {}

    def delivered(err: object, msg: confluent_kafka.Message) -> None:
        assert err is None, err
        key, partition = msg.key(), msg.partition()
        assert isinstance(key, bytes) and partition is not None
        placed[key.decode()] = partition

    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random"})
    for k in keys:
        producer.produce(topic, key=k.encode(), value=b"x", on_delivery=delivered)
    assert producer.flush(TIMEOUT) == 0
    return placed


def native_read(
    bootstrap: str, topic: str, partition: int, count: int
) -> list[confluent_kafka.Message]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, partition, confluent_kafka.OFFSET_BEGINNING)])
        got: list[confluent_kafka.Message] = []
        while len(got) < count:
            msg = consumer.poll(TIMEOUT)
            assert msg is not None, f"{topic}/{partition}: {len(got)} of {count} records"
            assert msg.error() is None, msg.error()
            got.append(msg)
        return got
    finally:
        consumer.close()


def test_the_gateway_serves_topics_records_and_group_offsets_from_kafka(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    bootstrap = kafka_cluster.bootstrap
    topic = f"gw-{uuid.uuid4().hex[:8]}"

    created = http.post("/v1/topics", json={"name": topic, "partitions": PARTITIONS})
    assert created.status_code == 201, created.text
    assert created.json()["name"] == topic
    assert http.get(f"/v1/topics/{topic}").json()["name"] == topic
    assert topic in [t["name"] for t in http.get("/v1/topics").json()["topics"]]

    records = [
        {
            "key": k,
            "value": f"value of {k}",
            "headers": [{"key": "trace", "value": f"t{i}"}, {"key": "source", "value": "web"}],
            "timestamp": T0 + i,
        }
        for i, k in enumerate(KEYS)
    ]
    produced = http.post(f"/v1/topics/{topic}/records", json={"records": records})
    assert produced.status_code == 200, produced.text
    offsets = produced.json()["offsets"]
    assert [o["partition"] for o in offsets] == [
        partition_for_key(k.encode(), PARTITIONS) for k in KEYS
    ]
    assert [o["timestamp"] for o in offsets] == [r["timestamp"] for r in records]

    # Kafka's own partitioner, in the native client, puts each key where the gateway did
    other = f"gw-native-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": other, "partitions": PARTITIONS}).is_success
    assert native_partitions(bootstrap, other, KEYS) == {
        k: o["partition"] for k, o in zip(KEYS, offsets, strict=True)
    }

    # read back over HTTP, partition by partition
    by_partition: dict[int, list[tuple[int, dict[str, object]]]] = {}
    for o, r in zip(offsets, records, strict=True):
        by_partition.setdefault(o["partition"], []).append((o["offset"], r))
    for partition, expected in by_partition.items():
        read = http.get(f"/v1/topics/{topic}/partitions/{partition}/records", params={"offset": 0})
        assert read.status_code == 200, read.text
        body = read.json()
        assert [
            (x["offset"], x["key"], x["value"], x["headers"], x["timestamp"])
            for x in body["records"]
        ] == [(off, r["key"], r["value"], r["headers"], r["timestamp"]) for off, r in expected]
        assert body["next_offset"] == body["high_watermark"] == len(expected)

        # and with the native client, straight from the Kafka topic
        native = native_read(bootstrap, topic, partition, len(expected))
        assert [
            (
                m.offset(),
                m.key(),
                m.value(),
                list(m.headers() or []),
                m.timestamp(),
            )
            for m in native
        ] == [
            (
                off,
                str(r["key"]).encode(),
                str(r["value"]).encode(),
                [("trace", f"t{KEYS.index(str(r['key']))}".encode()), ("source", b"web")],
                (confluent_kafka.TIMESTAMP_CREATE_TIME, r["timestamp"]),
            )
            for off, r in expected
        ]

    # a consumer group's offsets, committed and fetched
    group = f"billing-{uuid.uuid4().hex[:8]}"
    commit = [
        {"topic": topic, "partition": p, "offset": len(e), "metadata": f"done {p}"}
        for p, e in by_partition.items()
    ]
    committed = http.post(f"/v1/groups/{group}/offsets", json={"offsets": commit})
    assert committed.status_code == 200, committed.text
    assert all(o["error"] is None for o in committed.json()["offsets"])
    fetched = http.get(f"/v1/groups/{group}/offsets", params={"topic": topic})
    assert fetched.status_code == 200, fetched.text
    got = {
        o["partition"]: (o["offset"], o["metadata"])
        for o in fetched.json()["offsets"]
        if o["offset"] >= 0
    }
    assert got == {p: (len(e), f"done {p}") for p, e in by_partition.items()}

    # the committed offsets are the Kafka group's, as the native client sees them
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        seen = consumer.committed([TopicPartition(topic, p) for p in by_partition], timeout=TIMEOUT)
    finally:
        consumer.close()
    assert {tp.partition: tp.offset for tp in seen} == {p: len(e) for p, e in by_partition.items()}


def joined_member(bootstrap: str, group: str, topic: str) -> str:
    """The id of a member that joins ``group`` on ``topic`` over a connection of its own: Kafka
    keeps it in the group until its session times out."""

    async def join() -> str:
        cluster = Cluster(bootstrap, client_id="gateway-test-share", request_timeout=TIMEOUT)
        await cluster.start()
        try:
            member = await KafkaShareGroups(cluster).heartbeat(group, None, 0, [topic])
            return member.member_id
        finally:
            await cluster.close()

    return asyncio.run(join())


def test_share_group_admin_over_http(kafka_cluster: KafkaCluster, http: httpx.Client) -> None:
    topic, group = f"gw-{uuid.uuid4().hex[:8]}", f"gws-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    config = {"record_lock_duration_ms": 20_000, "auto_offset_reset": "earliest"}
    patched = http.patch(f"/v1/share-groups/{group}/config", json=config)
    assert patched.status_code == 200, patched.text
    assert patched.json() == {
        "record_lock_duration_ms": 20_000,
        "delivery_count_limit": 5,
        "partition_max_record_locks": 2000,
        "auto_offset_reset": "earliest",
        "isolation_level": "read_uncommitted",
        "renew_enabled": True,
        "dead_letter_topic": None,
    }
    refused = http.patch(f"/v1/share-groups/{group}/config", json={"delivery_count_limit": 11})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "INVALID_CONFIG"
    # configs alone make no group on Kafka
    missing = http.get(f"/v1/share-groups/{group}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "GROUP_ID_NOT_FOUND"

    member_id = joined_member(kafka_cluster.bootstrap, group, topic)
    described = http.get(f"/v1/share-groups/{group}")
    assert described.status_code == 200, described.text
    body = described.json()
    assert (body["group_id"], body["state"], body["config"]) == (group, "Stable", patched.json())
    assert [(m["member_id"], m["subscribed_topics"]) for m in body["members"]] == [
        (member_id, [topic])
    ]
    listed = http.get("/v1/share-groups").json()["share_groups"]
    assert {"group_id": group, "state": "Stable", "members": 1} in listed

    view = http.get(f"/v1/share-groups/{group}/partitions/{topic}/0/records")
    assert view.status_code == 400
    assert view.json()["error"]["unsupported"] == "share_record_view"
    for busy in (
        http.delete(f"/v1/share-groups/{group}"),
        http.post(
            f"/v1/share-groups/{group}/offsets",
            json={"topics": [{"topic": topic, "to": "earliest"}], "dry_run": True},
        ),
    ):
        assert busy.status_code == 409, busy.text
        assert busy.json()["error"]["code"] == "NON_EMPTY_GROUP"


def test_a_transaction_over_http_commits_on_kafka(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    topic = f"gw-txn-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    tid = f"tx-{uuid.uuid4().hex[:8]}"
    init = http.post("/v1/producers", json={"transactional_id": tid})
    assert init.status_code == 200, init.text
    pid, epoch = init.json()["producer_id"], init.json()["producer_epoch"]
    produced = http.post(
        "/v1/produce",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "transactional_id": tid,
            "batches": [
                {
                    "topic": topic,
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"value": "p1"}, {"value": "p2"}],
                }
            ],
        },
    )
    assert produced.status_code == 200, produced.text
    assert produced.json()["batches"] == [
        {"topic": topic, "partition": 0, "base_offset": 0, "error": None}
    ]
    path = f"/v1/topics/{topic}/partitions/0/records"
    committed_view: dict[str, str | int] = {"offset": 0, "isolation_level": "read_committed"}
    assert http.get(path, params=committed_view).json()["records"] == []
    commit = http.post(
        f"/v1/transactions/{tid}/commit", json={"producer_id": pid, "producer_epoch": epoch}
    )
    assert commit.status_code == 200, commit.text
    assert commit.json() == {"producer_id": pid, "producer_epoch": epoch + 1}
    read = http.get(path, params=committed_view).json()
    assert [r["value"] for r in read["records"]] == ["p1", "p2"]
    # the records and the commit marker are Kafka's: the native client reads them committed
    native = native_read(kafka_cluster.bootstrap, topic, 0, 2)
    assert [m.value() for m in native] == [b"p1", b"p2"]
    described = http.get(f"/v1/transactions/{tid}")
    assert described.status_code == 200, described.text
    # share acknowledgements in a transaction are Kafka's to refuse, by name
    acks = http.post(
        f"/v1/transactions/{tid}/acknowledgements",
        json={
            "producer_id": pid,
            "producer_epoch": epoch + 1,
            "group_id": "workers",
            "member_id": "m-1",
            "acknowledgements": [
                {
                    "topic": topic,
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 1,
                    "type": "accept",
                }
            ],
        },
    )
    assert acks.status_code == 400, acks.text
    assert acks.json()["error"]["code"] == "UNSUPPORTED_ON_KAFKA_BACKEND"
    assert acks.json()["error"]["unsupported"] == "transactional_share_acknowledgements"


def test_a_stale_epoch_on_a_transactional_produce_refuses_the_whole_request(
    http: httpx.Client,
) -> None:
    """docs/api.md: with a transactional id, a fenced or timed-out epoch is the request's
    409 ``INVALID_PRODUCER_EPOCH``, not one batch's error in a 200."""
    topic = f"gw-stale-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    tid = f"tx-{uuid.uuid4().hex[:8]}"
    init = http.post("/v1/producers", json={"transactional_id": tid})
    assert init.status_code == 200, init.text
    pid, epoch = init.json()["producer_id"], init.json()["producer_epoch"]
    # a second instance fences the first: its epoch is stale from now on
    again = http.post("/v1/producers", json={"transactional_id": tid})
    assert again.status_code == 200, again.text
    assert again.json()["producer_epoch"] > epoch
    batch = {"topic": topic, "partition": 0, "base_sequence": 0, "records": [{"value": "z"}]}
    stale = http.post(
        "/v1/produce",
        json={
            "producer_id": pid,
            "producer_epoch": epoch,
            "transactional_id": tid,
            "batches": [batch],
        },
    )
    assert stale.status_code == 409, stale.text
    assert stale.json()["error"]["code"] == "INVALID_PRODUCER_EPOCH"
    assert http.get(f"/v1/topics/{topic}").json()["partitions"][0]["high_watermark"] == 0


def test_both_api_websockets_are_served(gateway: tuple[ServerProcess, str]) -> None:
    """The event feed and the push socket open on the gateway (their behaviour:
    test_gateway_feed.py and test_gateway_push.py)."""
    server, key = gateway
    headers = {"Authorization": f"Bearer {key}"}
    with connect(
        f"ws://127.0.0.1:{server.port}/v1/events", open_timeout=TIMEOUT, additional_headers=headers
    ) as ws:
        assert orjson.loads(ws.recv(timeout=TIMEOUT))["type"] == "snapshot"
    with connect(
        f"ws://127.0.0.1:{server.port}/v1/share-groups/workers/consume",
        open_timeout=TIMEOUT,
        additional_headers=headers,
    ) as ws:
        ws.send('{"type": "credit", "n": 1}')
        frame = orjson.loads(ws.recv(timeout=TIMEOUT))
        assert frame["type"] == "error" and frame["error"]["code"] == "INVALID_REQUEST"


def test_each_difference_answers_its_name_and_applies_nothing(
    kafka_cluster: KafkaCluster, http: httpx.Client
) -> None:
    """Every refusal of docs/kafka.md's table of `unsupported` names, through the gateway:
    400 UNSUPPORTED_ON_KAFKA_BACKEND with the name, and the request changes nothing."""
    topic = f"gw-diff-{uuid.uuid4().hex[:8]}"
    assert http.post("/v1/topics", json={"name": topic, "partitions": 1}).status_code == 201
    produced = http.post(f"/v1/topics/{topic}/records", json={"records": [{"value": "a"}]})
    assert produced.status_code == 200, produced.text
    group = f"gw-diff-{uuid.uuid4().hex[:8]}"
    ack = {"topic": topic, "partition": 0, "first_offset": 0, "last_offset": 0}
    refusals: list[tuple[str, httpx.Response]] = [
        (
            "commit_all",
            http.post(
                "/v1/transactions:commit-all",
                json={
                    "transactions": [
                        {"transactional_id": "t-1", "producer_id": 1, "producer_epoch": 0}
                    ]
                },
            ),
        ),
        (
            "share_acquisitions",
            http.post(
                f"/v1/share-groups/{group}/fetch",
                json={"acquisition_id": "run-1:task-1", "subscribed_topics": [topic]},
            ),
        ),
        (
            "share_acquisitions",
            http.post(
                f"/v1/share-groups/{group}/acquisitions/acknowledge",
                json={"acquisition_ids": ["run-1:task-1"], "type": "accept"},
            ),
        ),
        ("share_acquisitions", http.get(f"/v1/share-groups/{group}/acquisitions")),
        (
            "share_record_view",
            http.get(f"/v1/share-groups/{group}/partitions/{topic}/0/records"),
        ),
        (
            "dead_letter_topic_name",
            http.patch(f"/v1/share-groups/{group}/config", json={"dead_letter_topic": topic}),
        ),
        (
            "release_delay",
            http.post(
                f"/v1/share-groups/{group}/fetch",
                json={
                    "member_id": None,
                    "subscribed_topics": [topic],
                    "max_wait_ms": 0,
                    "acknowledgements": [{**ack, "type": "release", "delay_ms": 1000}],
                },
            ),
        ),
    ]
    for name, answer in refusals:
        assert answer.status_code == 400, (name, answer.text)
        error = answer.json()["error"]
        assert (error["code"], error["unsupported"]) == ("UNSUPPORTED_ON_KAFKA_BACKEND", name)
    # nothing applied: no group was made, no config set, the record is still there once
    assert http.get(f"/v1/share-groups/{group}").status_code == 404
    read = http.get(f"/v1/topics/{topic}/partitions/0/records", params={"offset": 0})
    assert [r["value"] for r in read.json()["records"]] == ["a"]
