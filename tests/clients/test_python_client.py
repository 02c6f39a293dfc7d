"""The Python client (clients/python, package ``sluice``) against a real server process: the
exception tree against the server's error table, the admin calls and the idempotent producer,
sync and async twins alike, on both wires (record batches, the default, and JSON), and a
produce whose answer is lost sent again, byte for byte, without a duplicate."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import sluice
from sluice import errors
from sluice._core import Wire
from sluice._partitioner import murmur2
from sluice._push import Frames

from app.errors import ErrorCode
from app.partitioner import partition_for_key
from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow
CLIENT = ROOT / "clients" / "python"
WIRES = pytest.mark.parametrize("wire", ["batches", "json"])


def test_every_code_of_the_server_has_its_exception() -> None:
    assert set(errors.ERRORS) == {c.name for c in ErrorCode}
    for code in ErrorCode:
        cls = errors.ERRORS[code.name]
        assert issubclass(cls, errors.SluiceError)
        assert (cls.code, cls.status, cls.retriable, cls.kafka_code) == (
            code.name,
            code.value.status,
            code.value.retriable,
            code.value.kafka_code,
        )
    # a status's class is the base of every code of that status
    assert issubclass(errors.UnknownTopicOrPartitionError, errors.NotFoundError)
    assert issubclass(errors.ProducerFencedError, errors.ConflictError)
    error = errors.error_from(
        409, {"error": {"code": "PRODUCER_FENCED", "message": "m", "retriable": False}}
    )
    assert isinstance(error, errors.ProducerFencedError) and not errors.is_retriable(error)
    future = errors.error_from(418, {"error": {"code": "NEW", "message": "m", "retriable": True}})
    assert isinstance(future, errors.UnknownServerError) and errors.is_retriable(future)


def test_the_exception_module_is_what_the_generator_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("gen_errors", CLIENT / "gen_errors.py")
    assert spec is not None and spec.loader is not None
    gen_errors = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_errors)
    out = tmp_path / "errors.py"
    out.write_text(gen_errors.render())
    ruff = Path(sys.executable).with_name("ruff")
    subprocess.run([str(ruff), "format", "-q", str(out)], check=True, cwd=ROOT)
    assert out.read_text() == (CLIENT / "src" / "sluice" / "errors.py").read_text(), (
        "run python clients/python/gen_errors.py and ruff format"
    )


def test_the_partitioner_is_the_servers() -> None:
    for key in (b"", b"a", b"ab", b"abc", b"customer-7", "ümlaut".encode(), bytes(range(40))):
        assert (murmur2(key) & 0x7FFFFFFF) % 7 == partition_for_key(key, 7)


def _read(url: str, topic: str, partition: int) -> list[dict[str, Any]]:
    r = httpx.get(f"{url}/v1/topics/{topic}/partitions/{partition}/records", params={"offset": 0})
    r.raise_for_status()
    return list(r.json()["records"])


@WIRES
def test_admin_and_producer(server: ServerProcess, wire: Wire) -> None:
    with sluice.Sluice(server.url, wire=wire) as client:
        created = client.admin.create_topic("orders", 3, {"retention_ms": 86_400_000})
        assert created["name"] == "orders" and len(created["partitions"]) == 3
        with pytest.raises(errors.TopicAlreadyExistsError):
            client.admin.create_topic("orders")
        assert [t["name"] for t in client.admin.list_topics()] == ["orders"]
        assert client.admin.describe_topic("orders")["config"]["retention_ms"] == 86_400_000
        with client.producer(linger=0.05, max_batch=100) as producer:
            keyed = [producer.send("orders", f"v{i}", key=f"k{i % 5}") for i in range(50)]
            loose = [producer.send("orders", f"l{i}") for i in range(10)]
            pinned = producer.send("orders", b"\x00\xff", partition=2, headers={"h": "1"})
            producer.flush()
        for i, f in enumerate(keyed):
            meta = f.result(timeout=0)
            assert meta.partition == partition_for_key(f"k{i % 5}".encode(), 3)
        assert len({f.result().partition for f in loose}) == 1  # one request: one partition
        stored = {(p, r["offset"]): r for p in range(3) for r in _read(server.url, "orders", p)}
        assert len(stored) == 61
        for i, f in enumerate(keyed):
            meta = f.result()
            assert stored[(meta.partition, meta.offset)]["value"] == f"v{i}"
        meta = pinned.result()
        assert meta.partition == 2
        with client.producer(linger=60) as producer:  # one request: both batches together
            nowhere = producer.send("orders", "lost", partition=9)
            after = producer.send("orders", "kept", partition=2)
        with pytest.raises(errors.UnknownTopicOrPartitionError):
            nowhere.result()  # a batch refused on its own fails its records only
        assert after.result().offset == meta.offset + 1
        with pytest.raises(errors.UnknownTopicOrPartitionError):
            client.admin.describe_topic("nope")
        client.admin.delete_topic("orders")
        assert client.admin.list_topics() == []


def test_records_go_when_their_linger_ends(server: ServerProcess) -> None:
    with sluice.Sluice(server.url) as client:
        client.admin.create_topic("lingered")
        with client.producer(linger=0.02, max_batch=1000) as producer:
            # no flush: the linger sends each
            assert producer.send("lingered", "a", partition=0).result(timeout=10).offset == 0
            assert producer.send("lingered", "b", partition=0).result(timeout=10).offset == 1
        with client.producer(linger=60) as producer:
            producer.send("lingered", "c", partition=0)
            deadline = time.monotonic() + 10
            while producer._sleeps_until is None:  # the linger thread waits out c's 60 s
                assert time.monotonic() < deadline
            producer.flush()
            producer.linger = 0.02
            # a shorter linger than the thread waits for wakes it
            assert producer.send("lingered", "d", partition=0).result(timeout=10).offset == 3
    assert [r["value"] for r in _read(server.url, "lingered", 0)] == ["a", "b", "c", "d"]


def test_a_busy_producer_lingers_on_one_thread(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    with sluice.Sluice(server.url) as client:
        client.admin.create_topic("busy")
        with client.producer(linger=60, max_batch=10) as producer:
            # every 10th record fills a request, which goes at once
            futures = [producer.send("busy", f"v{i}", partition=0) for i in range(100)]
            assert [f.result(timeout=10).offset for f in futures] == list(range(100))
    assert len(started) == 1  # not a timer thread for each request
    started[0].join(timeout=10)
    assert not started[0].is_alive()  # the producer closed: its linger thread ended


@WIRES
def test_async_twin(server: ServerProcess, wire: Wire) -> None:
    async def main() -> None:
        async with sluice.AsyncSluice(server.url, wire=wire) as client:
            await client.admin.create_topic("events", 2)
            async with client.producer(linger=0.01) as producer:
                futures = [await producer.send("events", f"e{i}", key=str(i)) for i in range(20)]
                await producer.flush()
            metas = [await f for f in futures]
            for i, meta in enumerate(metas):
                assert meta.partition == partition_for_key(str(i).encode(), 2)
            with pytest.raises(errors.TopicAlreadyExistsError):
                await client.admin.create_topic("events")

    asyncio.run(main())
    assert sum(len(_read(server.url, "events", p)) for p in (0, 1)) == 20


def _produces(request: httpx.Request) -> bool:
    path = request.url.path
    return path == "/v1/produce" or path.endswith("/batches")


class LosesAnswers(httpx.HTTPTransport):
    """Sends every request; the answer of the first ``n`` produce requests never arrives.
    Keeps the body of every produce request sent."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.left = n
        self.bodies: list[bytes] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if _produces(request):
            self.bodies.append(request.read())
        response = super().handle_request(request)
        if _produces(request) and self.left > 0:
            self.left -= 1
            response.read()
            raise httpx.ReadError("connection reset (test seam)", request=request)
        return response


@WIRES
def test_a_lost_answer_is_sent_again_and_stored_once(server: ServerProcess, wire: Wire) -> None:
    transport = LosesAnswers(2)
    with sluice.Sluice(server.url, transport=transport, backoff=0.01, wire=wire) as client:
        client.admin.create_topic("once")
        with client.producer(linger=0) as producer:
            first = producer.send("once", "a", partition=0).result()
            second = producer.send("once", "b", partition=0).result()
    assert transport.left == 0  # both answers were lost, then sent again
    assert (first.offset, second.offset) == (0, 1)
    assert [r["value"] for r in _read(server.url, "once", 0)] == ["a", "b"]
    # the first record's answer was lost twice: it was sent three times, the same bytes each
    a, a_again, a_third, b = transport.bodies
    assert a == a_again == a_third != b


class Keeps(httpx.HTTPTransport):
    """Sends every request and keeps it, body read."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.sent.append(request)
        return super().handle_request(request)


def test_records_travel_as_record_batches_by_default(server: ServerProcess) -> None:
    """Unless told ``wire="json"``, the producer sends record batches, the consumer-group
    consumer reads them, the share consumer fetches them and its push session asks for them."""
    url = server.url
    transport = Keeps()
    with sluice.Sluice(url, transport=transport) as client:
        assert client.settings.wire == "batches"
        client.admin.create_topic("t", 2)
        with client.producer() as producer:
            for i in range(4):
                producer.send("t", f"v{i}", key=f"k{i}")
        with client.consumer("g", auto_offset_reset="earliest") as member:
            member.subscribe(["t"])
            got: list[str] = []
            while len(got) < 4:
                got += [r.text() or "" for r in member.poll(1.0)]
        assert sorted(got) == [f"v{i}" for i in range(4)]
        client.admin.alter_share_group_config("s", {"auto_offset_reset": "earliest"})
        with client.share_consumer("s") as consumer:
            consumer.subscribe(["t"])
            shared: list[str] = []
            while len(shared) < 4:
                shared += [r.text() or "" for r in consumer.poll(1.0)]
        assert sorted(shared) == sorted(got)
    paths = [(r.method, r.url.path) for r in transport.sent]
    assert ("POST", "/v1/produce") not in paths
    produced = [r for r in transport.sent if r.url.path.endswith("/batches")]
    assert produced and all(
        r.headers["content-type"] == "application/vnd.sluice.record-batch" for r in produced
    )
    reads = [r for r in transport.sent if r.url.path.endswith("/records")]
    assert reads and all(r.url.params["format"] == "batches" for r in reads)
    fetches = [r for r in transport.sent if r.url.path.endswith("/fetch")]
    assert fetches and all(json.loads(r.content)["format"] == "batches" for r in fetches)
    frame = json.loads(Frames.subscribe(["t"], 10, False, sluice.Sluice().settings.wire))
    assert frame["format"] == "batches"


def test_api_key_from_the_argument_or_the_environment(
    server_factory: Callable[..., ServerProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = server_factory(SLUICE_SUPER_USERS="ops")
    server.start()
    # the first key, created while the server still serves everyone (on either engine: a
    # gateway keeps its keys in the cluster, not in a data directory)
    created = httpx.post(f"{server.url}/v1/admin/keys", json={"principal": "ops"})
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    monkeypatch.delenv("SLUICE_API_KEY", raising=False)
    with sluice.Sluice(server.url) as anonymous, pytest.raises(errors.UnauthenticatedError):
        anonymous.admin.list_topics()
    with sluice.Sluice(server.url, api_key=key) as client:
        assert client.admin.list_topics() == []
    monkeypatch.setenv("SLUICE_API_KEY", key)
    monkeypatch.setenv("SLUICE_URL", server.url)
    with sluice.Sluice() as client:
        client.admin.create_topic("t")
        assert [t["name"] for t in client.admin.list_topics()] == ["t"]
    server.stop()


@pytest.mark.embedded_only("share_group_by_config")
def test_admin_of_groups_share_groups_and_transactions(server: ServerProcess) -> None:
    url = server.url
    with sluice.Sluice(url) as client:
        admin = client.admin
        admin.create_topic("jobs", 2)
        httpx.post(f"{url}/v1/topics/jobs/records", json={"records": [{"value": "j"}] * 4})
        config = admin.alter_share_group_config("workers", {"auto_offset_reset": "earliest"})
        assert config["auto_offset_reset"] == "earliest"
        assert [g["group_id"] for g in admin.list_share_groups()] == ["workers"]
        preview = admin.reset_share_group_offsets(
            "workers", [{"topic": "jobs", "to": "latest"}], dry_run=True
        )
        assert preview["dry_run"] is True
        described = admin.describe_share_group("workers")
        assert described["state"] == "Empty"
        admin.delete_share_group("workers")
        with pytest.raises(errors.GroupIdNotFoundError):
            admin.describe_share_group("workers")
        httpx.post(
            f"{url}/v1/groups/etl/offsets",
            json={"offsets": [{"topic": "jobs", "partition": 1, "offset": 3}]},
        ).raise_for_status()
        assert [g["group_id"] for g in admin.list_groups()] == ["etl"]
        assert admin.describe_group("etl")["offsets"][0]["offset"] == 3
        assert [(o["partition"], o["offset"]) for o in admin.group_offsets("etl")] == [(1, 3)]
        admin.delete_group("etl")
        assert admin.list_groups() == []
        # transactional ids an earlier test left (a gateway's cluster keeps them: Kafka deletes
        # none, it lets them expire); none on a new embedded server
        earlier = [t["transactional_id"] for t in admin.list_transactions()]
        producer = client.transactional_producer("tx-admin")
        producer.begin()
        assert admin.describe_transaction("tx-admin")["state"] == "Empty"
        listed = [t["transactional_id"] for t in admin.list_transactions()]
        assert listed == sorted({*earlier, "tx-admin"})
        assert admin.list_transactions("Ongoing") == []


@WIRES
def test_bytes_and_text_in_one_request_each_keep_their_encoding(
    server: ServerProcess, wire: Wire
) -> None:
    """A request of bytes only says base64 once; one that mixes text and bytes says it for
    each record in bytes (JSON); both read back exactly, on either wire."""
    with sluice.Sluice(server.url, wire=wire) as client:
        client.admin.create_topic("mixed")
        with client.producer(linger=60, max_batch=1000) as producer:  # one request each
            only_bytes = [
                producer.send("mixed", bytes([i, 255 - i]), partition=0) for i in range(3)
            ]
            producer.flush()
            mixed = [
                producer.send("mixed", "text", partition=0),
                producer.send("mixed", b"\x00\xff", partition=0, headers={"h": b"\x01"}),
                producer.send("mixed", "more text", key="k", partition=0),
            ]
        assert [f.result().offset for f in only_bytes + mixed] == list(range(6))
    r = httpx.get(
        f"{server.url}/v1/topics/mixed/partitions/0/records",
        params={"offset": 0, "encoding": "base64"},
    )
    values = [base64.b64decode(x["value"]) for x in r.json()["records"]]
    expected = [bytes([0, 255]), bytes([1, 254]), bytes([2, 253]), b"text", b"\x00\xff"]
    assert values == [*expected, b"more text"]
    headers = r.json()["records"][4]["headers"]
    assert [(h["key"], base64.b64decode(h["value"])) for h in headers] == [("h", b"\x01")]


def test_the_request_body_says_base64_once_when_every_record_is_bytes() -> None:
    from sluice._batches import Batches, wire_record

    batches = Batches(10, "json")
    for v in (b"a", b"b"):
        batches.add("t", 0, wire_record(v, None, None, None), None)
    body = batches.body(1, 0, batches.take())
    assert body["encoding"] == "base64"
    assert body["batches"][0]["records"] == [{"value": "YQ=="}, {"value": "Yg=="}]
    batches.add("t", 0, wire_record(b"a", None, None, None), None)
    batches.add("t", 0, wire_record("text", None, None, None), None)
    body = batches.body(1, 0, batches.take())
    assert "encoding" not in body
    assert body["batches"][0]["records"] == [
        {"value": "YQ==", "encoding": "base64"},
        {"value": "text"},
    ]


# its dead-letter topic is orders-dlq, a name Kafka's dead-letter topics cannot have
@pytest.mark.embedded_only("dead_letter_topic_name")
def test_dead_letters_are_listed_and_redriven_once(server: ServerProcess) -> None:
    """Rejected records land in the group's dead-letter topic; the admin lists them with their
    source and reason, and a redrive sent twice puts each back once, without the dlq headers."""
    url = server.url
    with sluice.Sluice(url) as client:
        admin = client.admin
        admin.create_topic("orders")
        admin.create_topic("orders-dlq")
        admin.alter_share_group_config(
            "billing", {"auto_offset_reset": "earliest", "dead_letter_topic": "orders-dlq"}
        )
        with client.producer(linger=0) as producer:
            for i in range(3):
                producer.send("orders", f"o{i}", partition=0, headers={"trace": f"t{i}"})
        consumer = client.share_consumer("billing", acknowledgement_mode="explicit")
        consumer.subscribe(["orders"])
        records = consumer.poll(2.0)
        assert [r.text() for r in records] == ["o0", "o1", "o2"]
        for r in records:
            consumer.acknowledge(r, "reject" if r.text() in ("o0", "o2") else "accept")
        consumer.commit_sync()
        consumer.close()
        letters = admin.dead_letters("billing")
        assert [(x.source_topic, x.source_partition, x.source_offset) for x in letters] == [
            ("orders", 0, 0),
            ("orders", 0, 2),
        ]
        assert {(x.group, x.reason, x.delivery_count) for x in letters} == {
            ("billing", "rejected", 1)
        }
        assert [x.value for x in letters] == [b"o0", b"o2"]
        assert [x.headers for x in letters] == [(("trace", b"t0"),), (("trace", b"t2"),)]
        first = admin.redrive(letters[0])
        again = admin.redrive(letters[0])  # a retry, or a second click: stored once
        admin.redrive(letters[1])
        assert first == again
        back = _read(url, "orders", 0)[3:]
        assert [(r["value"], r["headers"]) for r in back] == [
            ("o0", [{"key": "trace", "value": "t0"}]),
            ("o2", [{"key": "trace", "value": "t2"}]),
        ]
        admin.alter_share_group_config("no-dlq", {"auto_offset_reset": "earliest"})
        assert admin.dead_letters("no-dlq") == []  # a group without a dead-letter topic


def test_an_empty_groups_offsets_are_set_by_the_admin(server: ServerProcess) -> None:
    with sluice.Sluice(server.url) as client:
        client.admin.create_topic("events", 2)
        client.admin.commit_group_offsets(
            "reporting",
            [
                {"topic": "events", "partition": 0, "offset": 0},
                {"topic": "events", "partition": 1, "offset": 0},
            ],
        )
        offsets = client.admin.group_offsets("reporting")
        assert [(o["partition"], o["offset"]) for o in offsets] == [(0, 0), (1, 0)]
        with client.consumer("reporting") as member:
            member.subscribe(["events"])
            with pytest.raises(errors.UnknownMemberIdError):  # not while it has a member
                client.admin.commit_group_offsets(
                    "reporting", [{"topic": "events", "partition": 0, "offset": 5}]
                )
