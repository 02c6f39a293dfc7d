"""Push sessions through a gateway (``SLUICE_BACKEND=kafka``) on the native broker, as a real
process driven over WebSocket: records pushed within the credit window, acks reopening it and
accepted records not delivered again, a released record coming again with delivery count 2, a
release with a delay answered with an error frame while the socket stays open, ``auto_renew``
keeping records past their lock, an expired lock reopening the window, a member joined over
HTTP taken over and then removed from under the socket, the socket's end
releasing what it held to the next member, ``format=batches`` as binary frames of the batches,
and the server stopping ending the socket with 1001."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from confluent_kafka.admin import AdminClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.conftest import ServerProcess
from tests.integration.test_read_batches import open_envelope
from tests.kafka.native import TIMEOUT, set_group_configs
from tests.kafka.test_gateway_http import PRINCIPAL, api_key
from tests.kafka.test_gateway_share import new_group, new_topic
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

# how long a socket is watched for a frame that must not come
QUIET_S = 1.5


@dataclass
class Gateway:
    server: ServerProcess
    key: str
    http: httpx.Client

    def socket(self, group: str) -> ClientConnection:
        return connect(
            f"ws://127.0.0.1:{self.server.port}/v1/share-groups/{group}/consume",
            open_timeout=TIMEOUT,
            additional_headers={"Authorization": f"Bearer {self.key}"},
        )


@pytest.fixture
def gateway(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[Gateway]:
    key = api_key(kafka_cluster.bootstrap)
    server = server_factory(
        data_dir=tmp_path / "unused",
        SLUICE_BACKEND="kafka",
        SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
        SLUICE_SUPER_USERS=PRINCIPAL,
    )
    server.start(timeout=60)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers=headers) as client:
        yield Gateway(server, key, client)
    assert server.stop() == 0


def send(ws: ClientConnection, frame: dict[str, Any]) -> None:
    ws.send(orjson.dumps(frame).decode())


def receive(ws: ClientConnection, timeout: float = TIMEOUT) -> dict[str, Any]:
    data = ws.recv(timeout=timeout)
    assert isinstance(data, str), "a binary frame where a text frame was expected"
    frame: dict[str, Any] = orjson.loads(data)
    return frame


def subscribe(ws: ClientConnection, topic: str, **extra: Any) -> dict[str, Any]:
    send(ws, {"type": "subscribe", "topics": [topic], "encoding": "utf8", **extra})
    frame = receive(ws)
    assert frame["type"] == "subscribed", frame
    return frame


def take(
    ws: ClientConnection, n: int, answers: dict[Any, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The next ``n`` records pushed; the ack answers met on the way go into ``answers`` by
    id."""
    got: list[dict[str, Any]] = []
    while len(got) < n:
        frame = receive(ws)
        if frame["type"] in ("ack_result", "error") and answers is not None:
            answers[frame.get("id")] = frame
            continue
        assert frame["type"] == "records", frame
        got.extend(frame["records"])
    assert len(got) == n, got
    return got


def answer_to(
    ws: ClientConnection, ident: int, answers: dict[Any, dict[str, Any]]
) -> dict[str, Any]:
    """The answer to the ack frame ``ident`` (no records may come meanwhile)."""
    while ident not in answers:
        frame = receive(ws)
        assert frame["type"] in ("ack_result", "error"), frame
        answers[frame.get("id")] = frame
    return answers.pop(ident)


def nothing_more(ws: ClientConnection) -> None:
    with pytest.raises(TimeoutError):
        frame = ws.recv(timeout=QUIET_S)
        pytest.fail(f"a frame came: {frame!r}")


def ack(
    ws: ClientConnection, ident: int, topic: str, offsets: list[int], kind: str, **extra: Any
) -> None:
    send(
        ws,
        {
            "type": "ack",
            "id": ident,
            "acknowledgements": [
                {
                    "topic": topic,
                    "partition": 0,
                    "first_offset": off,
                    "last_offset": off,
                    "type": kind,
                    **extra,
                }
                for off in offsets
            ],
        },
    )


def seen(records: list[dict[str, Any]]) -> list[tuple[int, str, int]]:
    return [(r["offset"], r["value"], r["delivery_count"]) for r in records]


def test_the_window_holds_acks_reopen_it_and_a_release_comes_again(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(gateway.http, [f"v{i}" for i in range(6)])
    answers: dict[Any, dict[str, Any]] = {}
    with gateway.socket(group) as ws:
        sub = subscribe(ws, topic, credits=3)
        assert sub["credits"] == 3 and not sub["auto_renew"]
        assert len(sub["member_id"]) <= 36 and "." in sub["member_id"]  # the principal's
        # three records out, then nothing until the client acknowledges
        assert seen(take(ws, 3)) == [(0, "v0", 1), (1, "v1", 1), (2, "v2", 1)]
        nothing_more(ws)

        # accepting two reopens the window by two
        ack(ws, 7, topic, [0, 1], "accept")
        assert seen(take(ws, 2, answers)) == [(3, "v3", 1), (4, "v4", 1)]
        result = answer_to(ws, 7, answers)
        assert result["type"] == "ack_result", result
        assert [r["error"] for r in result["results"]] == [None]

        # a released record comes again, its delivery count one higher
        ack(ws, 8, topic, [2], "release")
        assert seen(take(ws, 1, answers)) == [(2, "v2", 2)]
        assert answer_to(ws, 8, answers)["type"] == "ack_result"

        # a release with a delay: an error frame with the ack's id, the socket stays open and
        # the records stay out (the window stays shut)
        ack(ws, 9, topic, [3], "release", delay_ms=1000)
        refused = answer_to(ws, 9, answers)
        assert refused["type"] == "error", refused
        assert refused["error"]["code"] == "UNSUPPORTED_ON_KAFKA_BACKEND"
        assert refused["error"]["unsupported"] == "release_delay"
        nothing_more(ws)

        ack(ws, 10, topic, [2, 3, 4], "accept")
        assert seen(take(ws, 1, answers)) == [(5, "v5", 1)]
        assert answer_to(ws, 10, answers)["type"] == "ack_result"
        ack(ws, 11, topic, [5], "accept")
        assert answer_to(ws, 11, answers)["results"][0]["error"] is None
        # every record accepted: none is delivered again
        nothing_more(ws)


def short_lock_group(bootstrap: str, lock_ms: int = 1000) -> str:
    """A group of ``new_group`` whose locks last ``lock_ms`` (a second: the least Kafka takes),
    renewals allowed."""
    group = new_group(bootstrap, lock_ms=lock_ms)
    set_group_configs(
        AdminClient({"bootstrap.servers": bootstrap}),
        group,
        [("share.renew.acknowledge.enable", "true")],
    )
    return group


def test_auto_renew_keeps_the_records_past_their_lock(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    # locks of 3 s, renewed every 1.5 s: a busy machine's delays stay within the slack (with
    # locks of 1 s a renewal came late once under a loaded test run, and the lock ran out)
    group = short_lock_group(kafka_cluster.bootstrap, lock_ms=3000)
    topic = new_topic(gateway.http, ["a", "b"])
    with gateway.socket(group) as ws:
        subscribe(ws, topic, credits=5, auto_renew=True)
        assert seen(take(ws, 2)) == [(0, "a", 1), (1, "b", 1)]
        # another member polls for three locks' time: the socket's records stay the socket's
        joined = gateway.http.post(
            f"/v1/share-groups/{group}/fetch",
            json={"member_id": None, "subscribed_topics": [topic], "max_wait_ms": 500},
        )
        assert joined.status_code == 200, joined.text
        other = joined.json()["member_id"]
        assert joined.json()["records"] == []
        until = time.monotonic() + 9
        while time.monotonic() < until:
            polled = gateway.http.post(
                f"/v1/share-groups/{group}/fetch",
                json={"member_id": other, "max_wait_ms": 500},
            )
            assert polled.status_code == 200, polled.text
            assert polled.json()["records"] == []
        ack(ws, 1, topic, [0, 1], "accept")
        result = receive(ws)
        assert result["type"] == "ack_result" and result["id"] == 1, result
        assert [r["error"] for r in result["results"]] == [None]


def test_without_auto_renew_an_expired_lock_reopens_the_window(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    group = short_lock_group(kafka_cluster.bootstrap)
    topic = new_topic(gateway.http, ["a", "b"])
    with gateway.socket(group) as ws:
        subscribe(ws, topic, credits=1)
        assert seen(take(ws, 1)) == [(0, "a", 1)]
        # not acknowledged: its lock runs out, Kafka releases it, and it comes again
        assert seen(take(ws, 1)) == [(0, "a", 2)]


def test_the_end_of_a_socket_releases_what_it_held_to_the_next_member(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(gateway.http, ["a", "b", "c"])
    with gateway.socket(group) as first:
        subscribe(first, topic, credits=2)
        assert seen(take(first, 2)) == [(0, "a", 1), (1, "b", 1)]
    # the first socket's member left: the next member gets its records, delivered a second time
    with gateway.socket(group) as second:
        subscribe(second, topic, credits=10)
        got = take(second, 3)
        assert sorted(seen(got)) == [(0, "a", 2), (1, "b", 2), (2, "c", 1)]


def test_a_socket_takes_over_a_member_joined_over_http_until_it_is_removed(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(gateway.http, ["a", "b"])
    joined = gateway.http.post(
        f"/v1/share-groups/{group}/heartbeat",
        json={"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
    )
    assert joined.status_code == 200, joined.text
    member = joined.json()["member_id"]
    with gateway.socket(group) as ws, gateway.socket(group) as other:
        sub = subscribe(ws, topic, credits=1, member_id=member)
        assert sub["member_id"] == member
        assert seen(take(ws, 1)) == [(0, "a", 1)]
        # a member another socket consumes is not taken
        send(other, {"type": "subscribe", "topics": [topic], "member_id": member})
        refused = receive(other)
        assert refused["type"] == "error" and refused["error"]["code"] == "INVALID_REQUEST"

        # the member removed over HTTP: the socket is told, and may subscribe again
        removed = gateway.http.delete(f"/v1/share-groups/{group}/members/{member}")
        assert removed.status_code in (200, 204), removed.text
        gone = receive(ws)
        assert gone["type"] == "error" and gone["error"]["code"] == "UNKNOWN_MEMBER_ID", gone
        again = subscribe(ws, topic, credits=5)
        assert again["member_id"] != member
        assert sorted(seen(take(ws, 2))) == [(0, "a", 2), (1, "b", 1)]


def test_format_batches_pushes_binary_frames_of_the_batches(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(gateway.http, [f"v{i}" for i in range(4)])
    with gateway.socket(group) as ws:
        subscribe(ws, topic, credits=10, format="batches")
        taken: list[tuple[int, bytes, int]] = []
        deadline = time.monotonic() + TIMEOUT
        while len(taken) < 4:
            assert time.monotonic() < deadline, taken
            data = ws.recv(timeout=TIMEOUT)
            assert isinstance(data, bytes), data
            head, headers, records = open_envelope(data)
            assert head["type"] == "records" and "member_id" not in head and headers
            ranges = [r for p in head["partitions"] for r in p["acquired"]]
            taken += [
                (r.offset, r.value, a["delivery_count"])
                for r in records
                for a in ranges
                if a["first_offset"] <= r.offset <= a["last_offset"]
            ]
        assert taken == [(i, f"v{i}".encode(), 1) for i in range(4)]
        ack(ws, 1, topic, [0, 1, 2, 3], "accept")
        result = receive(ws)
        assert result["type"] == "ack_result" and result["id"] == 1, result
        assert [r["error"] for r in result["results"]] == [None]


def test_the_server_stopping_ends_the_socket_with_1001(
    kafka_cluster: KafkaCluster, gateway: Gateway
) -> None:
    group = new_group(kafka_cluster.bootstrap)
    topic = new_topic(gateway.http, ["a"])
    with gateway.socket(group) as ws:
        subscribe(ws, topic, credits=5)
        assert seen(take(ws, 1)) == [(0, "a", 1)]
        assert gateway.server.stop() == 0
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=TIMEOUT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
