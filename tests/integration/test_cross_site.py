"""Pages of other sites and names other than the server's, in process
(docs/security.md#browsers): a server without keys refuses requests that change something sent
for a page of another site (a foreign or ``null`` Origin) and every WebSocket handshake from
one, and answers only loopback names and those of ``SLUICE_ALLOWED_HOSTS``, GETs and handshakes
included (DNS rebinding); programs, which send no Origin, and the server's own pages pass. A
server with keys keeps its rules: any Host, any Origin over HTTP, its own pages' sockets."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from app.main import create_app
from app.security.cross_site import host_name, same_origin
from tests.integration.helpers import LoopbackClient

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketDenialResponse

BASE = "http://localhost:8080"
EVIL = "http://evil.example"
TEXT = {"Content-Type": "text/plain"}  # a body a page may send without a preflight


@pytest.fixture
def open_server(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """A client (``BASE``) of a new server without keys, on ``settings`` besides the
    defaults."""
    opened: list[TestClient] = []

    def make(**settings: Any) -> TestClient:
        data = tmp_path / f"data{len(opened)}"
        c = LoopbackClient(create_app(Settings(data_dir=str(data), **settings)), base_url=BASE)
        c.__enter__()
        opened.append(c)
        return c

    yield make
    for c in opened:
        c.__exit__(None, None, None)


@pytest.fixture
def c(open_server: Callable[..., TestClient]) -> TestClient:
    c = open_server()
    assert c.post("/v1/topics", json={"name": "t"}).status_code == 201
    produce = {"records": [{"value": str(i)} for i in range(5)]}
    assert c.post("/v1/topics/t/records", json=produce).status_code == 200
    return c


def refused(status: int, code: str, r: Any) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text


def log_start(c: TestClient) -> int:
    (partition,) = c.get("/v1/topics/t").json()["partitions"]
    return int(partition["log_start_offset"])


def denial(c: TestClient, url: str, **kwargs: Any) -> WebSocketDenialResponse:
    try:
        with c.websocket_connect(url, **kwargs):
            pass
    except WebSocketDenialResponse as answer:
        return answer
    raise AssertionError(f"{url} was accepted")


DELETE_RECORDS = '{"partitions": [{"partition": 0, "before_offset": 5}]}'


@pytest.mark.parametrize("origin", [EVIL, "null", "http://localhost:9999", "https://localhost"])
def test_a_page_of_another_site_may_not_change_anything(c: TestClient, origin: str) -> None:
    page = {"Origin": origin, **TEXT}
    r = c.post("/v1/topics/t/delete-records", content=DELETE_RECORDS, headers=page)
    refused(403, "ORIGIN_NOT_ALLOWED", r)
    assert "SLUICE_WS_ALLOWED_ORIGINS" in r.json()["error"]["message"]
    assert log_start(c) == 0
    # the hot path too (the gate answers produce itself)
    r = c.post("/v1/topics/t/records", content='{"records": [{"value": "x"}]}', headers=page)
    refused(403, "ORIGIN_NOT_ALLOWED", r)
    for method in ("PUT", "PATCH", "DELETE"):
        refused(403, "ORIGIN_NOT_ALLOWED", c.request(method, "/v1/topics/t", headers=page))
    assert c.get("/v1/topics/t/partitions/0/offsets").json()["offset"] == 5
    # reading is not changing (and the page cannot read the answer: no CORS headers)
    assert c.get("/v1/topics/t", headers=page).status_code == 200
    assert c.head("/healthz", headers=page).status_code in (200, 405)
    assert c.options("/v1/topics", headers=page).status_code != 403


def test_programs_and_the_servers_own_pages_may(c: TestClient) -> None:
    # no Origin: curl, services, the clients
    r = c.post("/v1/topics/t/delete-records", content=DELETE_RECORDS, headers=TEXT)
    assert r.status_code == 200, r.text
    assert log_start(c) == 5
    # the dashboard served by this server: same host and port, either scheme's default
    for origin, host in (
        (BASE, "localhost:8080"),
        ("http://LOCALHOST:8080/", "localhost:8080"),
        ("http://127.0.0.1", "127.0.0.1:80"),
        ("https://[::1]", "[::1]"),
    ):
        r = c.post(
            "/v1/topics/t/records",
            json={"records": [{"value": "x"}]},
            headers={"Origin": origin, "Host": host},
        )
        assert r.status_code == 200, (origin, host, r.text)


def test_allowed_origins_may_change_things(open_server: Callable[..., TestClient]) -> None:
    c = open_server(ws_allowed_origins="https://ops.example.com/, null")
    for origin in ("https://OPS.example.com", "null"):
        r = c.post("/v1/topics", json={"name": f"t{len(origin)}"}, headers={"Origin": origin})
        assert r.status_code == 201, r.text
    refused(403, "ORIGIN_NOT_ALLOWED", c.post("/v1/topics", json={}, headers={"Origin": EVIL}))
    c = open_server(ws_allowed_origins="*")
    assert c.post("/v1/topics", json={"name": "u"}, headers={"Origin": EVIL}).status_code == 201


@pytest.mark.parametrize(
    "path", ["/v1/topics", "/healthz", "/", "/dashboard/app.css", "/openapi.json"]
)
def test_only_loopback_names_are_answered(c: TestClient, path: str) -> None:
    for host in ("evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost."):
        r = c.get(path, headers={"Host": host})
        refused(403, "HOST_NOT_ALLOWED", r)
        assert "SLUICE_ALLOWED_HOSTS" in r.json()["error"]["message"]
    for host in ("localhost", "LocalHost:1234", "127.0.0.1:8080", "[::1]:80", "[::1]"):
        assert c.get(path, headers={"Host": host}).status_code == 200, host


def test_a_write_to_a_foreign_name_is_refused_whatever_its_origin(c: TestClient) -> None:
    """DNS rebinding: the page and the request are both of the site's name."""
    page = {"Host": "evil.example:8080", "Origin": "http://evil.example:8080", **TEXT}
    r = c.post("/v1/topics/t/delete-records", content=DELETE_RECORDS, headers=page)
    refused(403, "HOST_NOT_ALLOWED", r)
    assert log_start(c) == 0


def test_allowed_hosts_widen_the_names(open_server: Callable[..., TestClient]) -> None:
    c = open_server(allowed_hosts=" Sluice.Internal , 10.0.0.7:8080, fe80::1")
    for host in ("sluice.internal", "sluice.internal:9000", "10.0.0.7", "[fe80::1]:8080"):
        assert c.get("/v1/topics", headers={"Host": host}).status_code == 200, host
        # and the pages of that name are the server's own
        page = {"Host": host, "Origin": f"http://{host}"}
        assert c.post("/v1/topics", json={"name": "x"}, headers=page).status_code in (201, 409)
    for host in ("evil.example", "internal", "10.0.0.8"):
        refused(403, "HOST_NOT_ALLOWED", c.get("/v1/topics", headers={"Host": host}))
    c = open_server(allowed_hosts="*")
    assert c.get("/v1/topics", headers={"Host": "anything.example"}).status_code == 200


def test_sockets_of_foreign_names_and_pages_are_refused_before_they_open(c: TestClient) -> None:
    consume = "/v1/share-groups/g/consume"
    for path in (consume, "/v1/events"):
        # rebinding: Host and Origin are both the site's name, so they are "the same origin"
        answer = denial(
            c, f"ws://evil.example:8080{path}", headers={"Origin": "http://evil.example:8080"}
        )
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "HOST_NOT_ALLOWED"
        # another site's page, sent to the right name
        answer = denial(c, path, headers={"Origin": EVIL})
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
        answer = denial(c, path, headers={"Origin": "null"})
        assert answer.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    assert c.get("/v1/share-groups/g").status_code == 404  # no member ever joined
    # a program, and the server's own page
    for headers in ({}, {"Origin": BASE}):
        with c.websocket_connect("/v1/events", headers=headers) as ws:
            assert ws.receive_json()["type"] == "snapshot"


def test_a_server_with_keys_keeps_its_rules(open_server: Callable[..., TestClient]) -> None:
    c = open_server(super_users="admin")
    key = c.post("/v1/admin/keys", json={"principal": "admin"}).json()["key"]
    auth = {"Authorization": f"Bearer {key}"}
    # a browser sends no key on its own: with one, any name and any page is the key's holder
    page = {"Host": "sluice.example.com", "Origin": EVIL, **auth}
    assert c.post("/v1/topics", json={"name": "k"}, headers=page).status_code == 201
    with c.websocket_connect("ws://sluice.example.com/v1/events", headers=auth) as ws:
        assert ws.receive_json()["type"] == "snapshot"
    # but a page of another site never opens a socket
    answer = denial(c, "/v1/events", headers={"Origin": EVIL, **auth})
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        ("http://127.0.0.1:8080", "127.0.0.1:8080", True),  # the dashboard of this server
        ("http://LOCALHOST:8080", "localhost:8080", True),
        ("https://queue.example", "queue.example", True),  # default ports on both sides
        ("https://queue.example:443", "queue.example", True),
        ("http://[::1]:8080", "[::1]:8080", True),
        ("http://evil.example", "127.0.0.1:8080", False),  # another site's page
        ("http://127.0.0.1:9999", "127.0.0.1:8080", False),  # another port is another origin
        ("http://127.0.0.1:8080.evil.example", "127.0.0.1:8080", False),
        ("null", "127.0.0.1:8080", False),  # a sandboxed or file page
        ("http://127.0.0.1:x", "127.0.0.1:8080", False),
        ("ftp://127.0.0.1:8080", "127.0.0.1:8080", False),
        ("http://127.0.0.1:8080", None, False),  # no Host: nothing to be the same as
    ],
)
def test_same_origin(origin: str, host: str | None, allowed: bool) -> None:
    asked = None if host is None else host.encode()
    assert same_origin(origin.encode(), asked) is allowed
    listed = {"http://evil.example", "null", "http://127.0.0.1:9999", "http://127.0.0.1:x"}
    assert same_origin(origin.encode(), asked, listed) is (allowed or origin in listed)
    assert same_origin(origin.encode(), asked, {"*"}) is True


def test_host_name() -> None:
    assert host_name(b"LocalHost:8080") == b"localhost"
    assert host_name(b"[::1]:8080") == b"[::1]"
    assert host_name(b"[::1") == b""
    assert host_name(b"example.com") == b"example.com"
