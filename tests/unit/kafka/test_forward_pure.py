"""Forwarding between gateways without a cluster (app/kafka/forward.py,
docs/kafka.md#several-gateways): the member ids a gateway chooses name it and stay within
Kafka's 36 characters; the requests keyed by a member are recognised, and the member id found
in their body; a forwarding signature verifies only for its request, its key and its time;
the gateway's address and the setting that moves it; a gateway's application is the
forwarding one and the embedded server's is not."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.config import Settings, SettingsError
from app.kafka.forward import (
    _MEMBER_ID,
    SIGNATURE_VALID_MS,
    GatewayApp,
    _read,
    member_route,
    sign,
    signing_key,
    verify,
)
from app.kafka.gateways import advertised_url, new_gateway_id
from app.kafka.protocol.errors import ConnectionClosedError
from app.kafka.share_members import MAX_MEMBER_ID, gateway_of, new_member_id
from app.main import RequestGate, Sluice, create_app


def test_member_ids_name_their_gateway_within_kafkas_bound() -> None:
    gateway = new_gateway_id()
    for principal in ("alice", None):
        member = new_member_id(principal, gateway)
        assert len(member) <= MAX_MEMBER_ID
        assert gateway_of(member) == gateway
        assert gateway_of(new_member_id(principal)) is None  # no gateway: held where it joined
    # ids a client chose name no gateway
    for chosen in ("consumer-1", "abc.def", "", "3f9a435b16984058.my-member"):
        assert gateway_of(chosen) is None


def scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "headers": []}


def test_the_requests_keyed_by_a_member_are_recognised() -> None:
    for kind in ("heartbeat", "fetch", "acknowledge"):
        route = member_route(scope("POST", f"/v1/share-groups/g1/{kind}"))
        assert route is not None and route.group_id == "g1" and route.member_id is None
    leave = member_route(scope("DELETE", "/v1/share-groups/g1/members/m-1"))
    assert leave is not None and leave.member_id == "m-1"
    for method, path in [
        ("GET", "/v1/share-groups/g1"),
        ("POST", "/v1/share-groups/g1/offsets"),
        ("GET", "/v1/share-groups/g1/fetch"),
        ("POST", "/v1/topics/t/records"),
    ]:
        assert member_route(scope(method, path)) is None
    body = b'{"acknowledgements": [], "member_id" : "abc.0a1b2c-ff"}'
    found = _MEMBER_ID.search(body)
    assert found is not None and found.group(1) == b"abc.0a1b2c-ff"
    # the words inside a string are not the body's member id
    assert _MEMBER_ID.search(b'{"x": "\\"member_id\\": \\"abc\\"", "member_id": null}') is None


def test_a_forwarding_signature_verifies_only_for_its_request_key_and_time() -> None:
    key = signing_key(b"the cluster's secret")
    now = 1_767_225_600_000
    header = sign(key, "0a1b2c", now, "POST", "/v1/share-groups/g/fetch")
    assert verify(key, header, now + 1000, "POST", "/v1/share-groups/g/fetch")
    assert not verify(key, header, now, "POST", "/v1/share-groups/g/acknowledge")
    assert not verify(key, header, now, "DELETE", "/v1/share-groups/g/fetch")
    assert not verify(signing_key(b"another"), header, now, "POST", "/v1/share-groups/g/fetch")
    late = now + SIGNATURE_VALID_MS + 1
    assert not verify(key, header, late, "POST", "/v1/share-groups/g/fetch")
    altered = header.replace(b"0a1b2c", b"0a1b2d")
    assert not verify(key, altered, now, "POST", "/v1/share-groups/g/fetch")
    for junk in (b"", b"a.b", b"a.b.c", b"\xff"):
        assert not verify(key, junk, now, "POST", "/v1/share-groups/g/fetch")


def test_the_advertised_address() -> None:
    assert advertised_url(Settings(port=8123)) == "http://127.0.0.1:8123"
    moved = Settings(
        backend="kafka",
        kafka_bootstrap="127.0.0.1:9",
        gateway_advertised_url="http://gw-1.internal:80/",
    )
    assert advertised_url(moved) == "http://gw-1.internal:80"
    assert advertised_url(Settings(host="::1", port=1)) == "http://[::1]:1"
    for wrong in ("gw-1:8080", "ftp://gw-1", "http://"):
        with pytest.raises(SettingsError, match="SLUICE_GATEWAY_ADVERTISED_URL"):
            Settings(backend="kafka", kafka_bootstrap="127.0.0.1:9", gateway_advertised_url=wrong)


def test_only_a_gateway_forwards(tmp_path: Any) -> None:
    gateway = create_app(Settings(backend="kafka", kafka_bootstrap="127.0.0.1:9"))
    assert isinstance(gateway, GatewayApp)
    embedded = create_app(Settings(data_dir=str(tmp_path / "data")))
    assert type(embedded) is Sluice


def receiving(*messages: dict[str, Any]) -> Any:
    """An ASGI ``receive`` answering ``messages`` in turn, then waiting for ever."""
    pending = list(messages)

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return receive


async def test_a_body_is_read_within_its_limit_and_its_time() -> None:
    whole: list[bytes] = []
    assert await _read(receiving(body_message(b"{}", False)), whole, 10, 1000)
    assert whole == [b"{}"]
    parts: list[bytes] = []
    two = receiving(body_message(b"{", True), body_message(b"}", False))
    assert await _read(two, parts, 10, 1000) and b"".join(parts) == b"{}"
    # larger than the limit: left for the application to refuse, with what was read
    large: list[bytes] = []
    assert not await _read(receiving(body_message(b"x" * 11, False)), large, 10, 1000)
    over = receiving(body_message(b"x" * 6, True), body_message(b"x" * 6, True))
    assert not await _read(over, [], 10, 1000)
    # the rest of a body that does not come in time
    with pytest.raises(TimeoutError):
        await _read(receiving(body_message(b"{", True)), [], 10, 20)


def body_message(body: bytes, more: bool) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


async def test_a_hot_route_answers_errors_with_the_applications_handlers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On a gateway, an error of the exchange with a broker raised by a hot route (produce,
    share fetch and acknowledge, commit: answered by ``RequestGate`` itself, below no exception
    layer) is the 503 CLUSTER_UNAVAILABLE the other routes answer, not a 500; any other error
    is the application's 500 INTERNAL, logged with its traceback."""

    class Route:
        def __init__(self, exc: Exception) -> None:
            self.exc = exc

        async def endpoint(self, request: Any) -> Any:
            raise self.exc

    app = create_app(Settings(data_dir="unused"))
    gate = object.__new__(RequestGate)
    gate.handlers = app.exception_handlers

    async def answer(exc: Exception) -> tuple[int, dict[str, Any]]:
        async def receive() -> Any:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Any) -> None:
            raise AssertionError("the gate answers; the route sends nothing")

        scope = {"type": "http", "method": "POST", "path": "/v1/produce", "headers": []}
        response = await gate._direct(scope, receive, send, Route(exc), {})  # type: ignore[arg-type]
        return response.status_code, json.loads(bytes(response.body))["error"]

    status, error = await answer(ConnectionClosedError("no broker answered: 127.0.0.1:9 refused"))
    assert status == 503
    assert error["code"] == "CLUSTER_UNAVAILABLE" and error["retriable"] is True
    status, error = await answer(RuntimeError("a bug"))
    assert status == 500 and error["code"] == "INTERNAL"
    assert "a bug" in caplog.text and "Traceback" in caplog.text
