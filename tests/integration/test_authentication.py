"""Authentication in the request gate, on an in-process app: 401 for missing, wrong and
revoked keys on HTTP (a routed endpoint and a direct hot one) and WebSocket handshakes; the
public paths; keys through the Authorization header, a subprotocol or a short-lived token
(expiring by the injected clock); whoami; the admin endpoints."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.clock import FakeClock
from app.config import Settings
from app.main import create_app
from app.runtime import Broker
from tests.integration.helpers import LoopbackClient

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketDenialResponse
    from starlette.websockets import WebSocketDisconnect


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(
    settings_factory: Callable[..., Settings], fake_clock: FakeClock
) -> Iterator[TestClient]:
    app = create_app(
        # super-users: these tests are about keys; what a principal may do is the ACL tests'
        settings_factory(
            events_interval_ms=50, ws_token_ttl_ms=30_000, super_users="admin,alice,bob"
        ),
        clock=fake_clock,
    )
    with LoopbackClient(app) as c:
        yield c


def broker(c: TestClient) -> Broker:
    b: Broker = c.app.state.broker  # type: ignore[attr-defined]
    return b


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def create_key(
    c: TestClient, principal: str, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    r = c.post("/v1/admin/keys", json={"principal": principal}, headers=headers or {})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def refused(c: TestClient, path: str, **kwargs: Any) -> WebSocketDenialResponse:
    """The answer to a WebSocket handshake the server refuses (HTTP, not an accept)."""
    try:
        with c.websocket_connect(path, **kwargs):
            pass
    except WebSocketDenialResponse as denial:
        return denial
    raise AssertionError(f"{path} was accepted")


def assert_unauthenticated(r: Any) -> None:
    assert r.status_code == 401, r.text
    assert r.headers["www-authenticate"] == "Bearer"
    assert r.json()["error"]["code"] == "UNAUTHENTICATED"


def test_without_keys_everything_is_anonymous(client: TestClient) -> None:
    r = client.get("/v1/auth/whoami")
    assert r.json() == {"principal": None, "keys_required": False}
    assert client.get("/v1/topics").status_code == 200
    with client.websocket_connect("/v1/events") as ws:
        assert ws.receive_json()["type"] == "snapshot"


def test_once_a_key_exists_requests_need_one(client: TestClient) -> None:
    c = client
    assert c.post("/v1/topics", json={"name": "orders"}).status_code == 201
    alice = create_key(c, "alice")
    assert alice["principal"] == "alice" and alice["key"].startswith("sk_" + alice["key_id"])
    key = alice["key"]
    produce = {"records": [{"value": "a"}]}
    for headers in ({}, bearer("sk_nope"), bearer(key + "x"), {"Authorization": key}):
        assert_unauthenticated(c.get("/v1/topics", headers=headers))
        assert_unauthenticated(c.post("/v1/topics/orders/records", json=produce, headers=headers))
        assert_unauthenticated(c.get("/metrics", headers=headers))
        assert_unauthenticated(c.get("/v1/admin/keys", headers=headers))
        assert_unauthenticated(c.get("/v1/auth/whoami", headers=headers))
    assert c.get("/v1/topics", headers=bearer(key)).status_code == 200
    assert c.post("/v1/topics/orders/records", json=produce, headers=bearer(key)).status_code == 200
    assert c.get("/v1/auth/whoami", headers={"authorization": f"bearer {key}"}).json() == {
        "principal": "alice",
        "keys_required": True,
    }
    # the public paths
    for path in (
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/docs",
        "/redoc",
        "/",
        "/dashboard/app.css",
    ):
        assert c.get(path).status_code == 200, path
    assert c.get("/docs/oauth2-redirect").status_code == 200
    assert c.get("/dashboard/nothing.js").status_code == 404  # public, and still not there


def test_admin_endpoints_create_list_revoke(client: TestClient) -> None:
    c = client
    first = create_key(c, "admin")
    auth = bearer(first["key"])
    r = c.post("/v1/admin/keys", json={"principal": "bob", "description": "ci"})
    assert_unauthenticated(r)
    bob = create_key(c, "bob", auth)
    listed = c.get("/v1/admin/keys", headers=auth).json()["keys"]
    assert sorted(k["principal"] for k in listed) == ["admin", "bob"]
    assert all("key" not in k and "hash" not in k and "salt" not in k for k in listed)
    assert bob["key"] not in c.get("/v1/admin/keys", headers=auth).text
    assert c.get("/v1/topics", headers=bearer(bob["key"])).status_code == 200
    assert c.delete(f"/v1/admin/keys/{bob['key_id']}", headers=auth).status_code == 204
    assert_unauthenticated(c.get("/v1/topics", headers=bearer(bob["key"])))
    revoked = {
        k["key_id"]: k["revoked_ms"] for k in c.get("/v1/admin/keys", headers=auth).json()["keys"]
    }
    assert revoked[bob["key_id"]] is not None and revoked[first["key_id"]] is None
    r = c.delete("/v1/admin/keys/nonexistent0", headers=auth)
    assert r.status_code == 404 and r.json()["error"]["code"] == "NOT_FOUND"
    for body in ({}, {"principal": ""}, {"principal": "a b"}, {"principal": "x", "description": 1}):
        r = c.post("/v1/admin/keys", json=body, headers=auth)
        assert r.status_code == 400 and r.json()["error"]["code"] == "INVALID_REQUEST", body
    r = c.post("/v1/admin/keys", content=b"[1]", headers=auth)
    assert r.status_code == 400


def test_websocket_handshakes(client: TestClient, fake_clock: FakeClock) -> None:
    c = client
    key = create_key(c, "alice")["key"]
    for kwargs in (
        {},
        {"headers": bearer("sk_bad")},
        {"subprotocols": ["sluice", "sluice.bearer.x"]},
    ):
        assert_unauthenticated(refused(c, "/v1/events", **kwargs))
    with c.websocket_connect("/v1/events", headers=bearer(key)) as ws:
        assert ws.receive_json()["type"] == "snapshot"
    # a browser: the key as a subprotocol; the server selects "sluice", never the key
    with c.websocket_connect("/v1/events", subprotocols=["sluice", "sluice.bearer." + key]) as ws:
        assert ws.accepted_subprotocol == "sluice"
        assert ws.receive_json()["type"] == "snapshot"
    # a token: once, and only within its lifetime
    assert_unauthenticated(c.post("/v1/auth/ws-token"))
    answer = c.post("/v1/auth/ws-token", headers=bearer(key)).json()
    assert answer["expires_ms"] == fake_clock.now_ms() + 30_000
    token = answer["token"]
    with c.websocket_connect(f"/v1/events?token={token}") as ws:
        assert ws.receive_json()["type"] == "snapshot"
    assert_unauthenticated(refused(c, f"/v1/events?token={token}"))  # used up
    late = c.post("/v1/auth/ws-token", headers=bearer(key)).json()["token"]
    fake_clock.advance(30_000)
    assert_unauthenticated(refused(c, f"/v1/events?token={late}"))
    # the key itself is never taken from the URL
    assert_unauthenticated(refused(c, f"/v1/events?token={key}"))


def test_revoking_a_key_closes_its_sockets_and_voids_its_tokens(client: TestClient) -> None:
    c = client
    admin = bearer(create_key(c, "admin")["key"])
    alice = create_key(c, "alice", admin)
    token = c.post("/v1/auth/ws-token", headers=bearer(alice["key"])).json()["token"]
    with c.websocket_connect("/v1/events", headers=bearer(alice["key"])) as ws:
        assert ws.receive_json()["type"] == "snapshot"
        assert c.delete(f"/v1/admin/keys/{alice['key_id']}", headers=admin).status_code == 204
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert (closed.value.code, closed.value.reason) == (1008, "key revoked")
    assert_unauthenticated(refused(c, f"/v1/events?token={token}"))


def test_anonymous_sockets_close_once_keys_are_required(client: TestClient) -> None:
    c = client
    with c.websocket_connect("/v1/events", subprotocols=["sluice"]) as ws:
        assert ws.accepted_subprotocol == "sluice"
        assert ws.receive_json()["type"] == "snapshot"
        create_key(c, "alice")
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 1008
    assert broker(c).keys.sockets.__len__() == 0


def test_the_openapi_document_says_which_operations_need_a_key(client: TestClient) -> None:
    create_key(client, "alice")
    doc = client.get("/openapi.json").json()  # public
    assert doc["components"]["securitySchemes"]["apiKey"] == {"type": "http", "scheme": "bearer"}
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            if path in ("/healthz", "/readyz"):
                assert "security" not in operation and "401" not in operation["responses"]
            else:
                assert operation["security"] == [{"apiKey": []}, {}], (method, path)
                assert "401" in operation["responses"], (method, path)


def test_a_push_consume_handshake_needs_a_key_too(client: TestClient) -> None:
    key = create_key(client, "alice")["key"]
    assert_unauthenticated(refused(client, "/v1/share-groups/g/consume"))
    path = "/v1/share-groups/g/consume"
    with client.websocket_connect(path, subprotocols=["sluice", f"sluice.bearer.{key}"]) as ws:
        assert ws.accepted_subprotocol == "sluice"
        ws.send_json({"type": "credit", "n": 1})  # before subscribe: an error frame, socket open
        assert ws.receive_json()["type"] == "error"
