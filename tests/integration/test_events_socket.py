"""The WebSocket ``/v1/events`` of an in-process app (Starlette's test client): the snapshot on
connect, events, error answers, readiness and shutdown."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.main import create_app
from app.runtime import Broker
from tests.integration.helpers import LoopbackClient

with warnings.catch_warnings():
    # This Starlette release asks for the httpx2 package and warns once, on import, when its
    # test client runs on httpx; the client behaves the same.
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient, WebSocketTestSession


@pytest.fixture
def client(settings_factory: Callable[..., Settings]) -> Iterator[TestClient]:
    with LoopbackClient(create_app(settings_factory(events_interval_ms=50))) as c:
        yield c


def broker(c: TestClient) -> Broker:
    b: Broker = c.app.state.broker  # type: ignore[attr-defined]
    return b


def ok(r: Any, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return dict(r.json()) if r.content else {}


def receive(ws: WebSocketTestSession) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(ws.receive_text())
    return frame


def until_event(
    ws: WebSocketTestSession, found: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The first event frame ``found`` accepts (the publisher ticks every 50 ms; an open
    transaction changes every tick, so frames keep coming until it is seen)."""
    for _ in range(200):
        frame = receive(ws)
        if frame["type"] == "event" and found(frame):
            return frame
    raise AssertionError("no such event")


def test_snapshot_on_connect_has_what_was_created_before(client: TestClient) -> None:
    c = client
    ok(c.post("/v1/topics", json={"name": "orders", "partitions": 2}), 201)
    ok(c.post("/v1/topics/orders/records", json={"records": [{"value": "a"}, {"value": "b"}]}))
    hb = {"member_epoch": 0, "member_id": "m1", "subscribed_topics": ["orders"]}
    ok(c.post("/v1/groups/workers/heartbeat", json=hb))
    ok(c.patch("/v1/share-groups/jobs/config", json={"delivery_count_limit": 3}))
    pid = ok(c.post("/v1/producers", json={"transactional_id": "tx"}))
    produce = {
        "producer_id": pid["producer_id"],
        "producer_epoch": pid["producer_epoch"],
        "transactional_id": "tx",
        "batches": [
            {"topic": "orders", "partition": 1, "base_sequence": 0, "records": [{"value": "t"}]}
        ],
    }
    ok(c.post("/v1/produce", json=produce))
    with c.websocket_connect("/v1/events") as ws:
        snap = receive(ws)
        assert snap["type"] == "snapshot" and snap["interval_ms"] == 50
        (topic,) = snap["topics"]
        assert topic["topic"] == "orders"
        assert [(p["high_watermark"], p["last_stable_offset"]) for p in topic["partitions"]] == [
            (2, 2),
            (1, 0),  # the open transaction holds the last stable offset back
        ]
        (group,) = snap["groups"]
        assert group == {
            "group_id": "workers",
            "state": "Stable",
            "group_epoch": group["group_epoch"],
            "members": 1,
            "offsets": [],
        }
        assert [g["group_id"] for g in snap["share_groups"]] == ["jobs"]
        assert snap["share_groups"][0]["config"]["delivery_count_limit"] == 3
        (txn,) = snap["transactions"]
        assert txn["transactional_id"] == "tx" and txn["state"] == "Ongoing"
        assert txn["partitions"] == 1 and 0 < txn["time_left_ms"] <= txn["timeout_ms"]


def test_a_transaction_opened_later_appears_with_its_state(client: TestClient) -> None:
    c = client
    ok(c.post("/v1/topics", json={"name": "out"}), 201)
    with c.websocket_connect("/v1/events") as ws:
        assert receive(ws)["transactions"] == []
        pid = ok(c.post("/v1/producers", json={"transactional_id": "later"}))
        produce = {
            **pid,
            "transactional_id": "later",
            "batches": [
                {"topic": "out", "partition": 0, "base_sequence": 0, "records": [{"value": "x"}]}
            ],
        }
        ok(c.post("/v1/produce", json=produce))
        event = until_event(ws, lambda f: bool(f["changes"]["transactions"]))
        (txn,) = event["changes"]["transactions"]
        assert txn["transactional_id"] == "later" and txn["state"] == "Ongoing"
        assert txn["producer_id"] == pid["producer_id"]
        ok(c.post("/v1/transactions/later/abort", json=pid))
        until_event(ws, lambda f: f["removed"]["transactions"] == ["later"])


def test_a_message_from_the_client_is_answered_with_an_error_and_the_socket_stays(
    client: TestClient,
) -> None:
    c = client
    with c.websocket_connect("/v1/events") as ws:
        assert receive(ws)["type"] == "snapshot"
        ws.send_text('{"subscribe": "everything"}')
        ws.send_bytes(b"\x00")
        for _ in range(2):
            frame = receive(ws)
            while frame["type"] == "event":
                frame = receive(ws)
            assert frame["type"] == "error"
            assert frame["error"]["code"] == "INVALID_REQUEST"
            assert set(frame["error"]) == {"code", "message", "retriable", "kafka_code"}
        ok(c.post("/v1/topics", json={"name": "after"}), 201)
        event = until_event(ws, lambda f: bool(f["changes"]["topics"]))
        assert [t["topic"] for t in event["changes"]["topics"]] == ["after"]


def test_shutdown_closes_the_sockets_with_1001_and_refuses_new_ones_with_1013(
    client: TestClient,
) -> None:
    c = client
    with c.websocket_connect("/v1/events") as ws:
        assert receive(ws)["type"] == "snapshot"
        assert c.portal is not None
        c.portal.call(broker(c).begin_shutdown)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                receive(ws)
        assert closed.value.code == 1001
    assert broker(c).feed.subscriptions == []
    with pytest.raises(WebSocketDisconnect) as refused, c.websocket_connect("/v1/events") as ws:
        ws.receive_text()
    assert refused.value.code == 1013


def test_a_socket_before_the_server_is_ready_is_closed_with_1013(
    settings_factory: Callable[..., Settings],
) -> None:
    app = create_app(settings_factory())
    c = LoopbackClient(app)  # no lifespan: recovery never ran, the broker is not ready
    with pytest.raises(WebSocketDisconnect) as refused, c.websocket_connect("/v1/events") as ws:
        ws.receive_text()
    assert refused.value.code == 1013
    assert refused.value.reason == "the server is starting or stopping"
